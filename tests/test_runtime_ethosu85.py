"""An Ethos-U85 program end to end on the host: a small int8 conv exported with `--backend ethos-u85-256` runs with
`mcu-export run OUT`, its delegate going through EthosUBackend and our driver's U85 path (the host's register file
plays a U85: ID arch 2.0.0, the payload's CONFIG) to the simulator (fvp/ethosu_sim/, mx_npu_execute_config with the
payload's CONFIG word), and its outputs equal the int8 Python reference (mcu_export.int8.interpreter with TOSA's
reference model for the delegate) bit for bit.

The simulator's U85 execution is being written alongside; until it lands, the run fails inside the simulator
(an error naming the opcode or the product it does not run) and so does test_a_u85_program_runs_on_the_host_bit_exact.
Meanwhile the check build (the start hook reports the job instead of simulating) shows the U85 job programmed as
the program says, and a U85 payload given a U55 (the host's NPU pinned with MX_RUN_NPU_CONFIG, as a board's NPU is
fixed) is refused at its run, naming both products."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cli_runner import cli  # tests/support
from mcu_export.host_runtime import build_host_runner
from mcu_export.pte.reader import read_program
from runtime_ethosu_check import assert_job_as_programmed, planned_scratch, run_checked  # tests/support
from runtime_ethosu_tools import export_for  # tests/support
from small_conv_model import INPUT_SHAPE, model_spec  # tests/support

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")

ERR_DATA = "a delegate's processed data is malformed or not what its backend runs"
U55_128_CONFIG = "0x00001807"


@pytest.fixture(scope="module")
def u85(tmp_path_factory) -> Path:
    """SmallConv exported in int8 for an Ethos-U85-256 through the CLI: the export folder."""
    pytest.importorskip("tosa_serializer")
    work = tmp_path_factory.mktemp("u85")
    out = work / "out"
    result = cli("export", model_spec(work), "-o", out, "--quantize", "int8", "--backend", "ethos-u85-256")
    assert result.code == 0, result.err
    assert "ethos-u85-256" in result.out
    program = read_program((out / "model.pte").read_bytes())
    assert [d.id for d in program.method().delegates] == ["EthosUBackend"]
    return out


def reference(out: Path, x: np.ndarray) -> np.ndarray:
    from mcu_export.ethosu.reference import tosa_delegate
    from mcu_export.int8.interpreter import run_reference

    program = read_program((out / "model.pte").read_bytes())
    graphs = [(out / "npu" / "subgraph_0.tosa").read_bytes()]
    (want,) = run_reference(program, [x], delegate=tosa_delegate(graphs))
    return want


@pytest.mark.slow
def test_a_u85_program_runs_on_the_host_bit_exact(u85, tmp_path):
    """Waits for the simulator's U85 execution (fvp/ethosu_sim/): until then mx_run fails in the simulator."""
    x = np.random.default_rng(3).standard_normal(INPUT_SHAPE).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ran = cli("run", u85, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npz")
    assert ran.code == 0, ran.err
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["output_0"], reference(u85, x))


@pytest.mark.slow
def test_a_u85_payload_on_a_u55_is_refused_naming_both(u85):
    """The host's NPU pinned to a U55-128 (a board's NPU is what it is): the driver refuses the U85 payload before
    touching a register, and the error line names both products."""
    env = dict(os.environ, MX_RUN_NPU_CONFIG=U55_128_CONFIG)
    x = np.zeros(INPUT_SHAPE, np.float32)
    x_file = u85 / "zeros.bin"
    x.tofile(x_file)
    runner = str(build_host_runner())
    shape = "x".join(map(str, INPUT_SHAPE))
    args = [runner, str(u85 / "model.pte"), "--input", f"6:{shape}:{x_file}", "--output", str(u85 / "o.bin")]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode != 0
    line = proc.stderr.strip()
    assert line.startswith(f"mx_run: error: {ERR_DATA} (method forward, instruction "), line
    names_both = "NPU: payload compiled for an Ethos-U85, but the NPU is an Ethos-U55"
    assert line.endswith(f"delegate 0 EthosUBackend: {names_both})"), line


@pytest.mark.slow
def test_a_u85_job_is_programmed_as_the_program_says(tmp_path):
    """On the check build (the start hook reports the job instead of simulating), the U85 path hands the NPU what
    the program says: QBASE at the payload's command words, BASEP0 at weight_data in place, BASEP1 at the call's
    scratch with the inputs at their Vela offsets (high words included: host pointers), and the outputs come out
    through the program's dequantize. This part does not wait for the simulator."""
    u85 = export_for("ethos-u85-256", tmp_path)
    report, q_inputs, outputs = run_checked(build_host_runner(npu_check=True), u85.path, u85.program, tmp_path)
    assert_job_as_programmed(u85.program, u85.pte, report, q_inputs, outputs, planned_scratch(u85.program))
