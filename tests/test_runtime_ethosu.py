"""EthosUBackend in the C runtime (runtime_c/backends/ethosu/) and mx_run's host NPU (runtime_c/host/mx_run_npu*.c):
an int8 export for ethos-u55-128 loads (init parses and checks the blob, the DelegateCall's arguments are checked
against its I/O records), its metadata pool is what the exporter counts, and a run reaches the simulator. A build
whose NPU reports the programmed job instead of simulating (build_host_runner(npu_check=True)) proves the plumbing
without the simulator: QBASE at the payload's command words in the loaded program, BASEP0 at weight_data in
place, BASEP1 at the call's scratch tensor in the planned arena, the inputs at their Vela offsets, and the
bytes the "NPU" leaves at each output offset in the program's outputs, through the float dequantize. ExecuTorch's
own Ethos-U .pte (no scratch argument) runs on the platform's scratch. Malformed blobs and calls (load errors naming
the delegate, never faults under ASan/UBSan) are in test_runtime_ethosu_errors.py."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mcu_export.assets import asset_dir
from mcu_export.ethosu import blob as B
from mcu_export.host_runtime import ETHOSU, HOST_BACKENDS, build_host_runner
from mcu_export.runners.host import program_info, run_pte
from runtime_ethosu_check import assert_job_as_programmed, planned_scratch, run_checked  # tests/support
from runtime_ethosu_tools import (  # tests/support
    Exported,
    delegate_call,
    export_for,
    model_and_inputs,
)

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")

ERR_FAILED = "a delegate's backend failed while running it (e.g. an NPU fault)"


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="mx-ethosu-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def exported(workdir) -> Exported:
    return export_for("ethos-u55-128", workdir)


@pytest.fixture(scope="module")
def check_runner():
    return build_host_runner(npu_check=True)


# --- the backend as the exporter sees it ----------------------------------------------------------------


def test_state_bytes_are_the_backend_source():
    header = (asset_dir("runtime_c") / "backends" / "ethosu" / "ethosu_backend.h").read_text()
    source = (asset_dir("runtime_c") / "backends" / "ethosu" / "ethosu_backend.c").read_text()
    assert f"#define MX_ETHOSU_STATE_BYTES {ETHOSU.state_bytes}u" in header
    assert "_Static_assert(sizeof(ethosu_state) == MX_ETHOSU_STATE_BYTES" in source
    assert f'"{ETHOSU.id}", sizeof(ethosu_state)' in source and ETHOSU.id == B.BACKEND_ID


def test_loads_with_the_pool_the_exporter_counts(exported):
    from mcu_export.firmware.model_project import pool_counts

    counted = dict(program_info(exported.path).meta_counts)
    assert counted == dataclasses.asdict(pool_counts(exported.program.method(), HOST_BACKENDS))
    assert counted["delegates"] == 1 and counted["delegate_state"] == ETHOSU.state_bytes
    runner = build_host_runner()
    info = subprocess.run([str(runner), str(exported.path), "--info"], capture_output=True, text=True, check=True)
    pool = int(re.search(r"^meta_pool (\d+)$", info.stdout, re.M).group(1))
    ok = subprocess.run([str(runner), str(exported.path), "--load-only", "--meta-pool-size", str(pool)])
    assert ok.returncode == 0  # init and the call's check pass with exactly that pool
    short = subprocess.run(
        [str(runner), str(exported.path), "--load-only", "--meta-pool-size", str(pool - 8)],
        capture_output=True,
        text=True,
    )
    assert short.returncode == 3 and "metadata pool is too small" in short.stderr


def test_the_job_is_programmed_as_the_program_says(exported, check_runner, workdir):
    report, q_inputs, outputs = run_checked(check_runner, exported.path, exported.program, workdir)
    assert_job_as_programmed(
        exported.program, exported.pte, report, q_inputs, outputs, planned_scratch(exported.program)
    )


@pytest.mark.slow
def test_an_ethos_u65_job_gets_the_fast_scratch(check_runner, workdir):
    """The host NPU plays the product the payload was compiled for (U65: 40-bit addresses in Arm's driver,
    64 here); Vela's Dedicated_Sram mode, the U65's default, gets the platform's fast scratch as region 2."""
    u65 = export_for("ethos-u65-256", workdir)
    report, q_inputs, outputs = run_checked(check_runner, u65.path, u65.program, workdir)
    assert_job_as_programmed(u65.program, u65.pte, report, q_inputs, outputs, planned_scratch(u65.program))


@pytest.mark.slow
def test_simulated_run_equals_the_cpu_program(exported, workdir):
    """With the executor built, mx_run's NPU result is the CPU program's, bit for bit."""
    import mcu_export

    model, inputs = model_and_inputs()
    cpu = mcu_export.export(model, inputs, quantize="int8", backend="cortex-m")
    cpu_path = workdir / "cpu.pte"
    cpu_path.write_bytes(cpu.pte)
    feeds = [t.numpy() for t in inputs]
    for got, want in zip(run_pte(exported.path, feeds), run_pte(cpu_path, feeds)):
        np.testing.assert_array_equal(got, want)


# --- ExecuTorch's own Ethos-U program: no scratch argument ------------------------------------------------


@pytest.fixture(scope="module")
def executorch_program(workdir):
    """TwoInTwoOut through ExecuTorch's Arm flow as aot_arm_compiler.py runs it for an Ethos-U target (its
    ReplaceQuantNodesPass included: the CPU's q/dq become cortex_m ops, which this runtime has)."""
    from et_ethosu_program import executorch_ethosu_pte  # tests/support
    from mcu_export.pte.reader import read_program

    model, inputs = model_and_inputs()
    pte, _ = executorch_ethosu_pte(model, inputs)
    path = workdir / "executorch.pte"
    path.write_bytes(pte)
    return Exported(read_program(pte), pte, path)


@pytest.mark.interop
@pytest.mark.slow
def test_executorch_program_runs_on_the_platform_scratch(executorch_program, check_runner, workdir):
    from mcu_export.firmware.model_project import pool_counts

    program = executorch_program.program
    plan = program.method()
    _, call = delegate_call(plan)
    blob = B.unpack(bytes(program.backend_delegate_data[0]))
    assert len(call.args) == len(blob.inputs) + len(blob.outputs)  # ExecuTorch's call: no scratch argument
    counted = dict(program_info(executorch_program.path).meta_counts)
    assert counted == dataclasses.asdict(pool_counts(plan, HOST_BACKENDS))
    report, q_inputs, outputs = run_checked(check_runner, executorch_program.path, program, workdir)
    assert_job_as_programmed(program, executorch_program.pte, report, q_inputs, outputs, "host_scratch+0")
