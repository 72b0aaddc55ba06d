"""ExecuTorch 1.5.1's own Ethos-U programs for mnist_mlp and kws_dscnn (its Arm flow's EthosUPartitioner for
ethos-u55-128, tests/support/et_ethosu_program.py) on mcu-export's runtimes: its delegate is called without a
scratch argument, so the host's mx_run and the corstone-300 firmware give it the platform scratch (the firmware's: a
static buffer as large as the delegate's scratch_size, in memory the NPU reaches, mcu_export/firmware/npu.py). Both
runs equal each other and ExecuTorch's own reference for the program, bit for bit: the int8 interpreter with the
delegate on TOSA's reference model, over the TOSA graph ExecuTorch lowered it to (dumped to its compile spec's
intermediates path)."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from mcu_export.ethosu import blob as B
from mcu_export.pte import program as P

pytestmark = [
    pytest.mark.interop,
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"),
]

BOARD = "corstone-300"
QEMU_TIMEOUT = 60.0
TOOLS = ("qemu-system-arm", "arm-none-eabi-gcc", "cmake", "ninja")


def memory_of(address: int) -> str:
    from mcu_export.boards import load_board

    for r in load_board(BOARD).memory:
        for origin in (r.origin, r.origin | 0x10000000):  # either security alias
            if origin <= address < origin + r.length:
                return r.name
    return "?"


@pytest.fixture(scope="module", params=["mnist_mlp", "kws_dscnn"])
def et_mlp(request, tmp_path_factory):
    """An example model through ExecuTorch's Arm flow: (.pte, the delegate's TOSA graph, the export folder)."""
    pytest.importorskip("executorch.backends.arm", reason="needs executorch==1.5.1 (pip install -e .[interop])")
    pytest.importorskip("tosa_serializer")
    from et_ethosu_program import executorch_ethosu_pte  # tests/support
    from example_models import model_and_inputs

    root = tmp_path_factory.mktemp(f"et_{request.param}")
    model, inputs = model_and_inputs(request.param)
    pte, graphs = executorch_ethosu_pte(model, inputs, tosa_dir=root / "intermediates")
    assert len(graphs) == 1, "one delegate, one TOSA graph"
    out = root / "out"
    out.mkdir()
    (out / "model.pte").write_bytes(pte)
    return pte, graphs, out


def test_the_firmware_gets_a_platform_scratch_of_the_delegates_size(et_mlp, tmp_path):
    from mcu_export.boards import load_board
    from mcu_export.firmware import npu
    from mcu_export.firmware.model_project import render_model_project
    from mcu_export.pte.reader import read_program

    pte, _, _ = et_mlp
    program = read_program(pte)
    plan = program.method()
    (call,) = [ins for ins in plan.chains[0].instructions if isinstance(ins, P.DelegateCall)]
    blob = B.unpack(npu.delegate_data(program, plan.delegates[call.delegate_index]))
    assert len(call.args) == len(blob.inputs) + len(blob.outputs)  # ExecuTorch's call: no scratch argument
    assert npu.platform_scratch(program, plan) == blob.scratch_size > 0
    project = render_model_project(pte, BOARD, tmp_path)
    memory = (project / "model" / "mx_model_memory.c").read_text()
    region = re.search(r"\.mx_arena\.(\w+)\.npu_scratch,", memory)
    assert region is not None and region.group(1) in load_board(BOARD).npu_reachable
    assert f"mx_npu_scratch[{blob.scratch_size}]" in memory and ".balign 16" in memory
    assert f"return bytes <= {blob.scratch_size}u ? mx_npu_scratch : 0;" in memory


@pytest.mark.skipif(bool([t for t in TOOLS if shutil.which(t) is None]), reason=f"needs {', '.join(TOOLS)}")
def test_executorch_program_on_host_and_qemu_equals_its_tosa_reference(et_mlp):
    from mcu_export.boards import load_board
    from mcu_export.ethosu.reference import tosa_delegate
    from mcu_export.firmware.elf import Elf
    from mcu_export.firmware.flow import build_for_board
    from mcu_export.int8.interpreter import run_reference
    from mcu_export.pte.reader import read_program
    from mcu_export.runners import run_program_bytes, runner_for

    pte, graphs, out = et_mlp
    program = read_program(pte)
    (shape,) = [program.method().values[v].sizes for v in program.method().inputs]
    x = np.random.default_rng(3).standard_normal(tuple(shape)).astype(np.float32)
    (want,) = run_reference(program, [x], delegate=tosa_delegate(graphs))
    (host,) = run_program_bytes(pte, [x], board="host")
    build = build_for_board(out, BOARD)
    scratch = Elf(build.elf).symbols()["mx_npu_scratch"]
    assert (
        scratch.address % 16 == 0
        and scratch.size == B.unpack(bytes(read_program(pte).backend_delegate_data[0])).scratch_size
    )
    assert memory_of(scratch.address) in load_board(BOARD).npu_reachable
    run = runner_for(BOARD, "qemu", timeout=QEMU_TIMEOUT, profile=False).use_build(build).run([x])
    np.testing.assert_array_equal(host, want)
    np.testing.assert_array_equal(run.outputs[0], want)
    assert host.tobytes() == run.outputs[0].tobytes() == np.asarray(want, np.float32).tobytes()
    assert np.any(want != 0)
