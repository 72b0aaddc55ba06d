"""Corstone-320 model firmware with an Ethos-U85 delegate (boards/corstone-320.toml's npu fields,
mcu_export/firmware/npu.py, boards/ethosu/): `mcu-export export --quantize int8 --board corstone-320` of a small
conv builds one Cortex-M85 ELF (clang-16/lld-16) that links the delegate kernel, the driver with its U85 path and
both register accesses, with the NPU at NPU0's secure APB address and its .pte and arena where the NPU reaches
(DDR and the SSE-320's SRAM); a U55 program is refused for it, naming both products. Running it needs
FVP_Corstone_SSE-320, which is not installed here: that test skips naming it. What runs here instead: the same
firmware code for a corstone-300 whose board file says its NPU is a U85, on QEMU, where the driver's U85 path
meets the seam's register file and the job reaches the host: a test executor (which answers, or faults), or our
simulator's U85 executor, whose outputs equal the host runtime's and the int8 reference's bit for bit.
The driver's U85 register sequences are held to Arm's descriptions in test_ethosu_driver_u85.py."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from cli_runner import cli  # tests/support
from mcu_export.assets import asset_dir
from mcu_export.boards import load_board
from mcu_export.errors import RuntimeFailure
from mcu_export.pte import program as P
from mcu_export.pte.reader import read_program
from npu_test_tools import memory_of, missing, stream_words  # tests/support
from small_conv_model import INPUT_SHAPE, MODEL, model_spec  # tests/support

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")

BOARD = "corstone-320"
FVP = "FVP_Corstone_SSE-320"
TOOLS = ("clang-16", "ld.lld-16", "arm-none-eabi-gcc", "cmake", "ninja")  # clang links against newlib's multilib


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """SmallConv exported in int8 for corstone-320 (its NPU, an Ethos-U85-128) with its firmware built."""
    pytest.importorskip("tosa_serializer")
    if missing(*TOOLS):
        pytest.skip(f"needs {', '.join(missing(*TOOLS))}")
    work = tmp_path_factory.mktemp("c320")
    out = work / "out"
    result = cli("export", model_spec(work), "-o", out, "--quantize", "int8", "--board", BOARD)
    assert result.code == 0, result.err
    assert "ethos-u85-128" in result.out
    return out


def test_corstone_320_says_where_its_ethos_u85_is():
    board = load_board(BOARD)
    assert board.npu == "ethos-u85-128" and board.npu_base == 0x50004000 and board.npu_irq == 16
    assert board.npu_reachable == ("sram", "ddr")  # not BRAM, not the TCMs


@pytest.mark.slow
def test_the_firmware_links_the_u85_driver_and_places_what_the_npu_reads(exported):
    from mcu_export.firmware.elf import Elf

    fw = exported / "firmware" / BOARD
    elf = Elf(fw / "artifacts" / "firmware.elf")
    assert b"cortex-m85" in elf.section_bytes(".ARM.attributes")
    symbols = elf.symbols()
    for name in (
        "mx_ethosu_backend",  # the delegate kernel, in the kernel table's backends
        "mx_ethosu_init",
        "mx_ethosu_run",
        "mx_ethosu_u85_write_axi",  # the driver's U85 path
        "mx_ethosu_io_mmio_init",  # MMIO at npu_base on the FVP ...
        "mx_ethosu_semihost_read",  # ... or the seam where nothing answers there
        "mx_ethosu_platform_begin",
        "mx_ethosu_platform_end",
    ):
        assert name in symbols, name
    cmake = (fw / "CMakeLists.txt").read_text()
    for define in ("MX_NPU_BASE=0x50004000u", "MX_NPU_ID=0x20007001u", "MX_NPU_CONFIG=0x20000117u"):
        assert define in cmake, define
    program = read_program((exported / "model.pte").read_bytes())
    plan = program.method()
    (call,) = [ins for ins in plan.chains[0].instructions if isinstance(ins, P.DelegateCall)]
    scratch = plan.values[call.args[-1]]
    arena = symbols[f"mx_model_arena_{scratch.allocation_info.memory_id}"]
    assert memory_of(BOARD, symbols["mx_model_pte"].address) == "ddr"  # payload and weights, used in place
    assert memory_of(BOARD, arena.address) == "sram"  # the NPU scratch among the arena's tensors


@pytest.mark.slow
def test_a_u55_program_is_refused_for_the_u85_board_naming_both(tmp_path):
    """A delegate compiled for the U55 could never run on this NPU: the build says so before compiling."""
    pytest.importorskip("tosa_serializer")
    out = tmp_path / "out"
    exported = cli("export", model_spec(tmp_path), "-o", out, "--quantize", "int8", "--backend", "ethos-u55-128")
    assert exported.code == 0, exported.err
    built = cli("build", out, "--board", BOARD)
    assert built.code == 2 and "compiled for an Ethos-U55, but board 'corstone-320' has an Ethos-U85" in built.err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which(FVP) is None, reason=f"{FVP} is not on PATH (Arm FVPs cannot be downloaded here)")
def test_on_the_fvp_the_u85_runs_it_as_the_reference(exported, tmp_path):  # pragma: no cover (no FVP here)
    from mcu_export.ethosu.reference import tosa_delegate
    from mcu_export.int8.interpreter import run_reference

    x = np.random.default_rng(3).standard_normal(INPUT_SHAPE).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ran = cli("run", exported, "--board", BOARD, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npz")
    assert ran.code == 0, ran.err
    program = read_program((exported / "model.pte").read_bytes())
    graphs = [(exported / "npu" / "subgraph_0.tosa").read_bytes()]
    (want,) = run_reference(program, [x], delegate=tosa_delegate(graphs))
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["output_0"], want)


# --- the firmware's U85 path on QEMU: corstone-300 with its NPU file-swapped for a U85 ---------------------------


@pytest.fixture(scope="module")
def u85_on_qemu(tmp_path_factory):
    """corstone-300 whose board file says its NPU is an Ethos-U85-128 (QEMU's mps3-an547 has no NPU, so the
    firmware's driver meets the seam's register file reporting a U85's ID and CONFIG and does its U85 init there),
    with SmallConv exported and built for it: (board, build, export folder)."""
    import torch

    import mcu_export
    from mcu_export.firmware.flow import build_for_board

    pytest.importorskip("tosa_serializer")
    if missing("qemu-system-arm", "arm-none-eabi-gcc", "cmake", "ninja"):
        pytest.skip(f"needs {', '.join(missing('qemu-system-arm', 'arm-none-eabi-gcc', 'cmake', 'ninja'))}")
    folder = tmp_path_factory.mktemp("boards")
    text = (asset_dir("boards") / "corstone-300.toml").read_text()
    for old, new in (
        ('npu = "ethos-u55-128"', 'npu = "ethos-u85-128"'),
        ('npu_system_config = "Ethos_U55_High_End_Embedded"', 'npu_system_config = "Ethos_U85_SYS_DRAM_Mid"'),
    ):
        assert old in text
        text = text.replace(old, new)
    (folder / "corstone-300.toml").write_text(text)
    for sub in ("include", "cortex_m"):
        shutil.copytree(asset_dir("boards") / sub, folder / sub)
    board = load_board("corstone-300", directory=folder)
    namespace: dict = {}
    exec(compile(MODEL, "small_conv.py", "exec"), namespace)
    model, inputs = namespace["factory"]()
    with torch.no_grad():
        artifact = mcu_export.export(model, inputs, quantize="int8", board=board)
    out = artifact.save(tmp_path_factory.mktemp("u85qemu") / "out")
    return board, build_for_board(out, board), out


def qemu_run(u85_on_qemu, executor):
    from mcu_export.runners import runner_for

    board, build, _ = u85_on_qemu
    runner = runner_for(board, "qemu", timeout=60.0, profile=False, npu_executor=executor).use_build(build)
    return runner.run([np.zeros(INPUT_SHAPE, np.float32)])


@pytest.mark.slow
def test_on_qemu_the_firmware_drives_a_u85_through_the_seam(u85_on_qemu):
    """The job the U85 path programs reaches the host: the payload's command words, its weights; weight-decoder
    bit 7 (reserved on a U85) in the answer is not a fault there."""
    from mcu_export.ethosu import blob as B

    _, _, out = u85_on_qemu
    program = read_program((out / "model.pte").read_bytes())
    blob = B.unpack(bytes(program.backend_delegate_data[0]))
    assert struct.unpack_from("<I", blob.cmd_data, 8)[0] == 0x20000117  # compiled for the U85-128
    calls = []

    def executor(words: bytes, regions):
        calls.append(words)
        assert words == stream_words(blob.cmd_data) and bytes(regions[0]) == blob.weight_data
        return 0x22 | 0x80  # cmd_end_reached | irq_raised | bit 7

    qemu_run(u85_on_qemu, executor)
    assert len(calls) == 1


@pytest.mark.slow
def test_on_qemu_a_u85_branch_fault_is_its_error(u85_on_qemu):
    with pytest.raises(RuntimeFailure) as err:
        qemu_run(u85_on_qemu, lambda words, regions: 0x2 | 1 << 9)  # irq_raised | branch_fault
    assert "mx: npu: job: NPU branch fault (-24)" in str(err.value), str(err.value)


@pytest.mark.slow
def test_on_qemu_the_u85_job_on_our_simulator_equals_the_host_and_the_reference(u85_on_qemu):
    """The whole path for a U85: the firmware's driver programs the job, the seam hands it to our simulator's U85
    executor, and the outputs equal the host runtime's and the int8 reference's (TOSA's reference model for the
    delegate), bit for bit."""
    from mcu_export.ethosu.reference import tosa_delegate
    from mcu_export.int8.interpreter import run_reference
    from mcu_export.runners import runner_for

    board, build, out = u85_on_qemu
    program = read_program((out / "model.pte").read_bytes())
    graphs = [p.read_bytes() for p in sorted((out / "npu").glob("subgraph_*.tosa"))]
    x = np.random.default_rng(11).standard_normal(INPUT_SHAPE).astype(np.float32)
    run = runner_for(board, "qemu", timeout=60.0, profile=False).use_build(build).run([x])
    (want,) = run_reference(program, [x], delegate=tosa_delegate(graphs))
    host = runner_for("host")
    host.open(out)
    np.testing.assert_array_equal(run.outputs[0], want)
    np.testing.assert_array_equal(host.run([x]).outputs[0], want)
    assert np.unique(want).size > 8
