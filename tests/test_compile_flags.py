"""Firmware compile flags come from one table, codegen/firmware/compile_flags.toml (mcu_export/firmware/compile_flags.py):
every file it names exists (a renamed or deleted kernel does not silently lose its flags), every file of a set's
tree takes that set's flags, and a rendered project gives each source its set's flags: the runtime freestanding,
the kernel libraries not (their memcpy reads of unaligned words stay loads), the named inner loops at -O2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcu_export.assets import asset_dir
from mcu_export.firmware import compile_flags as cf
from mcu_export.firmware.build import render_project


def _tree(s: cf.SourceSet) -> Path:
    folder, _, rest = s.tree.partition("/")
    return asset_dir(folder) / rest


def test_the_table_holds_every_source_and_names_its_sets_once():
    names = [s.name for s in cf.sets()]
    assert len(names) == len(set(names))
    assert cf.sets()[-1].project == ""  # the catch-all: board, runtime core, model, test apps
    assert cf.source_set("app/main.c").name == "runtime"


def test_every_file_the_table_names_exists():
    for s in cf.sets():
        if s.tree is None:
            continue  # Arm's CMSIS-NN: checked against an installed tree in test_cortex_m_firmware.py
        missing = sorted(f for f in s.files if not (_tree(s) / f).is_file())
        assert not missing, (
            f"codegen/firmware/compile_flags.toml, set {s.name!r}: {missing} no longer in {s.tree}/ "
            "(renamed or deleted? move the entry with its figures)"
        )


def test_every_file_of_a_sets_tree_takes_its_flags():
    for s in cf.sets():
        if s.tree is None:
            continue
        sources = sorted(p.relative_to(_tree(s)).as_posix() for p in _tree(s).rglob("*.c"))
        assert sources, f"no C sources under {s.tree}/"
        elsewhere = [f for f in sources if cf.source_set(f"{s.project}/{f}") is not s]
        assert not elsewhere, f"files of {s.tree}/ an earlier set takes: {elsewhere}"


def _source_options(cmake: str) -> dict:
    """project path -> the COMPILE_OPTIONS CMakeLists.txt gives it."""
    out = {}
    for block, flags in re.findall(
        r"set_property\(SOURCE\n(.*?)\n  APPEND PROPERTY COMPILE_OPTIONS (.*?)\)", cmake, re.S
    ):
        for src in block.split():
            out[src] = flags.split()
    return out


def test_a_rendered_project_compiles_each_set_with_its_flags(tmp_path):
    c = "int f(void) { return 0; }\n"
    sources = {
        "app/main.c": "int main(void) { return 0; }\n",
        "runtime/src/program.c": c,
        "runtime/kernels/cortex_m/mx_k_cortex_m_softmax_out.c": c,
        "cmsis_nn/src/arm_softmax_s8.c": c,
        "cmsis_nn/src/arm_nn_mat_mult_nt_t_s8.c": c,
        "cmsis_nn/Source/SoftmaxFunctions/arm_softmax_s8.c": c,
    }
    cmake = (render_project("mps2-an505", tmp_path, sources) / "CMakeLists.txt").read_text()
    options = _source_options(cmake)
    common = re.search(r"target_compile_options\(firmware.elf PRIVATE (.*?)\)", cmake, re.S).group(1)
    assert "-ffreestanding" not in common and not re.search(r"-O[0-3sz]", common)
    for src in sources:
        assert options[src] == list(cf.flags_for(src)), src
    assert "-ffreestanding" in options["app/main.c"] and "-ffreestanding" in options["runtime/src/program.c"]
    assert any(s.startswith("board/") and "-ffreestanding" in f for s, f in options.items())
    for lib in ("cmsis_nn/src/arm_softmax_s8.c", "cmsis_nn/Source/SoftmaxFunctions/arm_softmax_s8.c"):
        assert "-ffreestanding" not in options[lib] and "-fno-builtin" not in options[lib]
    assert options["cmsis_nn/src/arm_nn_mat_mult_nt_t_s8.c"][-1] == "-O2"  # after the set's -Os: it wins
    assert "-Wno-error" in options["cmsis_nn/Source/SoftmaxFunctions/arm_softmax_s8.c"]
    assert "-Wno-error" not in options["cmsis_nn/src/arm_softmax_s8.c"]


@pytest.mark.parametrize("board", ["corstone-300", "corstone-320"])
def test_every_board_source_gets_flags(tmp_path, board):
    project = render_project(board, tmp_path, {"app/main.c": "int main(void) { return 0; }\n"})
    cmake = (project / "CMakeLists.txt").read_text()
    listed = re.search(r"add_executable\(firmware.elf\n(.*?)\n\)", cmake, re.S).group(1).split()
    assert set(listed) == set(_source_options(cmake))
