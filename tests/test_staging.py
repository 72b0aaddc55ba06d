"""mcu-export builds firmware in a staging tree per board and kind of project (mcu_export/firmware/staging.py):
objects compile once per board and source version, a model's build recompiles what differs, and the linked
image is the one the project builds on its own (the same functions: selective kernel registration intact)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from mcu_export.firmware import callgraph, staging

needs_gcc = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs arm-none-eabi-gcc")
BOARD = "mps2-an505"


def test_sync_writes_only_what_changed(tmp_path):
    project, stage = tmp_path / "p", tmp_path / "s"
    for rel, text in {"a.c": "a", "model/b.c": "b", "build/x.obj": "o", "artifacts/f.elf": "e"}.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    assert staging.sync(project, stage) == 2  # build/ and artifacts/ stay out
    assert sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file()) == ["a.c", "model/b.c"]
    mtime = (stage / "a.c").stat().st_mtime_ns
    (project / "model/b.c").write_text("b2")
    assert staging.sync(project, stage) == 1 and (stage / "a.c").stat().st_mtime_ns == mtime
    (project / "a.c").unlink()  # gone from the project: stays staged (ninja no longer builds it)
    assert staging.sync(project, stage) == 0 and (stage / "a.c").is_file()


def test_slots_lock_one_build_each(tmp_path, monkeypatch):
    monkeypatch.setenv("MCU_EXPORT_CACHE", str(tmp_path))
    with staging.slot("b-1") as first, staging.slot("b-1") as second:
        assert first != second and first.parent == second.parent == tmp_path / "firmware-builds" / "b-1"
    with staging.slot("b-1") as again:
        assert again == first  # released


def test_ci_files_are_those_of_the_objects_built(tmp_path):
    (tmp_path / "CMakeFiles/f.dir/runtime").mkdir(parents=True)
    for name in ("a.c.ci", "stale.c.ci"):
        (tmp_path / "CMakeFiles/f.dir/runtime" / name).write_text("graph: {}")
    (tmp_path / "build.ninja").write_text(
        "build CMakeFiles/f.dir/runtime/a.c.obj: C_COMPILER__f_ /p/runtime/a.c || x\n"
    )
    assert [p.name for p in callgraph.ci_files(tmp_path)] == ["a.c.ci"]


def _nm_functions(elf) -> set:
    out = subprocess.run(["arm-none-eabi-nm", "--defined-only", str(elf)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.split()[1] in "tT"}


@needs_gcc
@pytest.mark.slow
def test_second_model_compiles_only_its_own_and_links_the_same(tmp_path, monkeypatch):
    import mcu_export
    from mcu_export.examples import spec
    from mcu_export.firmware.model_project import build_model_firmware
    from mcu_export.model_spec import load_model

    monkeypatch.setenv("MCU_EXPORT_CACHE", str(tmp_path / "cache"))
    exports = {}
    for name in ("kws_dscnn", "mnist_mlp"):
        model, inputs = load_model(spec(name))
        exports[name] = mcu_export.export(model, inputs, quantize="int8", board=BOARD).save(tmp_path / name)

    build_model_firmware(exports["kws_dscnn"], BOARD)  # cold: everything it needs
    staged = build_model_firmware(exports["mnist_mlp"], BOARD)
    log = (staged.build_dir / "build.log").read_text()
    compiled = [line.split(".dir/", 1)[-1] for line in log.splitlines() if "Building C object" in line]
    # the runtime core and the board's code were built for kws already: what compiles is mnist's own
    assert "model/kernel_table.c.obj" in compiled, compiled
    assert not [c for c in compiled if c.startswith(("runtime/src/", "board/"))], compiled

    monkeypatch.setenv("MCU_EXPORT_STAGING", "0")
    alone = build_model_firmware(tmp_path / "alone", BOARD, model=exports["mnist_mlp"] / "model.pte")
    assert alone.build_dir == tmp_path / "alone" / "firmware" / BOARD / "build"
    assert _nm_functions(staged.elf) == _nm_functions(alone.elf)
    assert {f for f in _nm_functions(staged.elf) if f.startswith("mx_k_")}  # kernels are linked, and the same
