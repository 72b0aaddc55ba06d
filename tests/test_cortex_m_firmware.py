"""The cortex_m kernels in firmware: a program calling every one of them (tests/cortex_m_chain.py) runs on
QEMU for Cortex-M33 (DSP paths, mps2-an505) and Cortex-M55 (MVE paths, corstone-300) and equals the host
runtime and the numpy references bit for bit; the project holds only the CMSIS-NN functions it calls;
`cmsis_nn=PATH` builds against an installed CMSIS-NN instead (here a stand-in tree laid out like Arm's);
find_cmsis_nn locates an installed pack through cmsis-pack-manager. The CMSIS-NN functions (ours, and Arm's when a
tree is at hand) read their unaligned words with loads, not memcpy calls (codegen/firmware/compile_flags.toml
builds the kernel libraries without -ffreestanding)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cortex_m_chain import chain
from mcu_export.boards import load_firmware_board
from mcu_export.errors import UsageError
from mcu_export.firmware import callgraph
from mcu_export.firmware.cmsis_nn import find_cmsis_nn
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.model_project import build_model_firmware, model_ops, project_of, render_model_project
from mcu_export.pte.reader import read_program
from mcu_export.runners import run_model_firmware
from mcu_export.runners.host import run_pte

ROOT = Path(__file__).resolve().parents[1]
needs_firmware_tools = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
)


@pytest.fixture(scope="module")
def program():
    return chain(seed=0)


def _assert_outputs(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


def test_chain_on_host_matches_references(program, tmp_path):
    pte, inputs, expected = program
    (tmp_path / "chain.pte").write_bytes(pte)
    _assert_outputs(run_pte(tmp_path / "chain.pte", inputs), expected)


@needs_firmware_tools
@pytest.mark.parametrize("board", ["mps2-an505", "corstone-300"])
@pytest.mark.slow
def test_chain_on_qemu_is_bit_exact(program, tmp_path, board):
    pte, inputs, expected = program
    build = build_model_firmware(tmp_path, board, model=pte)
    run = run_model_firmware(build, board, inputs)
    _assert_outputs(run.outputs, expected)
    # only what the kernels call: no int16/softmax-LUT/transpose-conv sources, and the ELF links no mx_k_aten_*
    project = project_of(build)
    copied = sorted(p.name for p in (project / "cmsis_nn" / "src").glob("*.c"))
    ours = sorted(p.name for p in (ROOT / "cmsis_nn_kernels").glob("*.c"))
    assert set(copied) <= set(ours) and "arm_convolve_s8.c" in copied
    # the convolution variants are chosen ahead of time (model/mx_model_cmsis_nn.c): no wrapper is linked
    assert "arm_convolve_wrapper_s8.c" not in copied and "arm_depthwise_conv_wrapper_s8.c" not in copied
    # kernel sums are ahead-of-time data, except the M55's im2col convolution, which folds bias + input_offset *
    # sum(w) per filter once per call (arm_convolve_s8's MVE path; DSP and scalar builds do not link it)
    if load_firmware_board(board).cpu.isa != "mve":
        assert "arm_vector_sum_s8" not in Elf(build.elf).symbols()
    # each kernel: execute, load-time check, signature (data)
    kernels = {
        s for s in Elf(build.elf).symbols() if s.startswith("mx_k_") and not s.endswith((".c", "_check", "_sig"))
    }
    assert kernels == {op.kernel for op in model_ops(read_program(pte).method("forward"))}
    assert len(kernels) == 13 and all(k.startswith("mx_k_cortex_m_") for k in kernels)
    assert _inner_loops_calling_memcpy(build.elf) == []


def _inner_loops_calling_memcpy(elf: Path) -> list:
    """The CMSIS-NN support functions (arm_nn_*: the GEMM, vector-matrix and depthwise inner loops) that call
    memcpy/memmove: a kernel library built freestanding (-fno-builtin) calls memcpy for each unaligned word it reads
    (Arm's arm_nn_read_s8x4 and kin), which costs CMSIS-NN 2.8x its instructions on a Cortex-M33."""
    funcs, _ = callgraph.read_image(elf, Elf(elf))
    copies = {a for a, f in funcs.items() if f.name in ("memcpy", "memmove")}
    # the DSP depthwise runs of 2-3 channels copy the kernel once per call into a padded stack buffer (so no word
    # read leaves it): one call per kernel call, not one per word
    once_per_call = {"arm_nn_dw_conv_group_s8"}
    return sorted(
        f.name
        for f in funcs.values()
        if f.name.startswith("arm_nn_") and f.calls & copies and f.name not in once_per_call
    )


def _standin_cmsis_nn(root: Path) -> Path:
    """A tree laid out like Arm's CMSIS-NN (Include/, Source/<Family>/*.c), made from our kernels, without
    arm_quantized_activation_s8 (which Arm's library lacks)."""
    shutil.copytree(ROOT / "cmsis_nn_kernels" / "include", root / "Include")  # with Internal/, as Arm's
    for src in (ROOT / "cmsis_nn_kernels").glob("*.c"):
        if src.name == "arm_quantized_activation_s8.c":
            continue
        family = "ConvolutionFunctions" if "conv" in src.name else "NNSupportFunctions"
        (root / "Source" / family).mkdir(parents=True, exist_ok=True)
        shutil.copy(src, root / "Source" / family / src.name)
    return root


def test_cmsis_nn_option_takes_sources_from_the_installed_tree(program, tmp_path):
    from mcu_export.boards import load_board

    pte = program[0]
    tree = _standin_cmsis_nn(tmp_path / "CMSIS-NN")
    project = render_model_project(pte, load_board("mps2-an505"), tmp_path / "out", cmsis_nn=tree)
    files = sorted(p.relative_to(project / "cmsis_nn").as_posix() for p in (project / "cmsis_nn").rglob("*.c"))
    assert "Source/ConvolutionFunctions/arm_convolve_s8.c" in files  # the variant chosen ahead of time
    assert "src/arm_quantized_activation_s8.c" in files  # the gap is filled from ours
    assert not any(f.startswith("src/") and f != "src/arm_quantized_activation_s8.c" for f in files)
    cmake = (project / "CMakeLists.txt").read_text()
    assert "cmsis_nn/include" in cmake and "runtime/kernels/portable" in cmake
    with pytest.raises(UsageError, match="Include/arm_nnfunctions.h"):
        render_model_project(pte, load_board("mps2-an505"), tmp_path / "out2", cmsis_nn=tmp_path / "nowhere")


@needs_firmware_tools
@pytest.mark.slow
def test_firmware_built_against_an_installed_cmsis_nn_is_bit_exact(program, tmp_path):
    pte, inputs, expected = program
    tree = _standin_cmsis_nn(tmp_path / "CMSIS-NN")
    build = build_model_firmware(tmp_path, "mps2-an505", model=pte, cmsis_nn=tree)
    _assert_outputs(run_model_firmware(build, "mps2-an505", inputs).outputs, expected)


# ---- locating a CMSIS-NN pack ---------------------------------------------------------------------

PDSC = """<?xml version="1.0" encoding="UTF-8"?>
<package schemaVersion="1.7.7"><vendor>ARM</vendor><name>CMSIS-NN</name><description>CMSIS NN</description>
<url>https://www.keil.com/pack/</url><releases><release version="{v}">r</release></releases></package>
"""


def _pack(root: Path, version: str, pdsc: str = PDSC) -> Path:
    folder = root / "ARM" / "CMSIS-NN" / version
    _standin_cmsis_nn(folder)
    (folder / "ARM.CMSIS-NN.pdsc").write_text(pdsc.format(v=version))
    return folder


def test_find_cmsis_nn_picks_the_newest_valid_pack(tmp_path):
    assert find_cmsis_nn(tmp_path) is None
    _pack(tmp_path, "6.0.0")
    newest = _pack(tmp_path, "7.0.0")
    _pack(tmp_path, "9.0.0", pdsc="not xml {v}")  # cmsis-pack-manager cannot parse it
    (tmp_path / "ARM" / "CMSIS-NN" / "8.0.0").mkdir()  # a folder without a description
    assert find_cmsis_nn(tmp_path) == newest


def _real_cmsis_nn():
    """Arm's CMSIS-NN: the newest installed pack, else the source tree at $CMSIS_NN_PATH (Include/, Source/)."""
    found = find_cmsis_nn()
    if found is None and os.environ.get("CMSIS_NN_PATH"):
        found = Path(os.environ["CMSIS_NN_PATH"])
    if found is None:
        pytest.skip(
            "no Arm CMSIS-NN: no ARM.CMSIS-NN pack installed ($CMSIS_PACK_ROOT, ~/.cache/arm/packs or "
            "cmsis-pack-manager's cache) and $CMSIS_NN_PATH is not set (a CMSIS-NN source tree, v7.0.0 or later: "
            "its arm_convolve_s8 takes upscale_dims and it has per-channel fully connected): install or set one to "
            "check our kernels against Arm's"
        )
    return found


@needs_firmware_tools
@pytest.mark.slow
def test_arm_cmsis_nn_inner_loops_read_words_without_memcpy(program, tmp_path):
    """Built (not run) for the Cortex-M33, whose DSP paths read unaligned words through memcpy."""
    from mcu_export.firmware.compile_flags import source_set

    found = _real_cmsis_nn()
    build = build_model_firmware(tmp_path, "mps2-an505", model=program[0], cmsis_nn=found)
    arm = sorted((project_of(build) / "cmsis_nn" / "Source").rglob("*.c"))
    assert arm and all(source_set(f"cmsis_nn/Source/{p.name}").name == "cmsis-nn-arm" for p in arm)
    for entry in source_set("cmsis_nn/Source/x.c").files:  # the table's per-file entries name Arm's files
        assert (Path(found) / "Source" / entry).is_file(), f"compile_flags.toml names {entry}, not in {found}/Source"
    assert _inner_loops_calling_memcpy(build.elf) == []


def test_real_cmsis_nn_if_installed(program, tmp_path):
    found = _real_cmsis_nn()
    if any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")):
        pytest.skip("needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja")
    pte, inputs, expected = program
    build = build_model_firmware(tmp_path, "corstone-300", model=pte, cmsis_nn=found)
    _assert_outputs(run_model_firmware(build, "corstone-300", inputs).outputs, expected)
