"""Render a self-contained firmware CMake project for a board, and build it with CMake + Ninja.

Project layout (everything a user needs to build it elsewhere):
    CMakeLists.txt  toolchain.cmake  firmware.ld
    board/<name>.toml  board/include/mx_platform.h  board/<family>/*.c *.h   (from boards/)
    <app sources as given>
Build outputs go to <project>/build/ (CMake's tree) and are published to <project>/artifacts/
(firmware.elf, firmware.bin, firmware.uf2 when the board wants one, firmware.map) all at once.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

from mcu_export.assets import asset_dir
from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import ToolchainError, UsageError
from mcu_export.firmware import callgraph, compile_flags, staging, uf2
from mcu_export.firmware import stack as stack_mod
from mcu_export.firmware.elf import Elf
from mcu_export.progress import Printer, Step
from mcu_export.templates import render

Source = Union[str, bytes, Path]

APT_HINT = {
    "cmake": "apt-get install cmake",
    "ninja": "apt-get install ninja-build",
    "arm-none-eabi-gcc": "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi",
    "clang-16": "apt-get install clang-16 lld-16",
    "ld.lld-16": "apt-get install lld-16",
}
NEWLIB_ROOT = Path("/usr/lib/arm-none-eabi")


@dataclass(frozen=True)
class BuildResult:
    elf: Path
    map: Path
    bin: Optional[Path] = None  # boards whose loadable sections sit in one region (outputs.formats)
    uf2: Optional[Path] = None
    # The CMake tree it was built in (its objects): staging.py's, or build/. Not part of what a build is: a build
    # found again in OUT (model_cli.current_build) is the same build.
    build_dir: Optional[Path] = field(default=None, compare=False)


def require_tools(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        hints = "; ".join(dict.fromkeys(APT_HINT.get(t, f"install {t}") for t in missing))
        raise ToolchainError(f"missing {', '.join(missing)} for the firmware build ({hints})")


def _tools_for(board: Board) -> Sequence[str]:
    compilers = (
        ("arm-none-eabi-gcc",) if board.compiler.kind == "gcc" else ("clang-16", "ld.lld-16", "arm-none-eabi-gcc")
    )
    return ("cmake", "ninja") + compilers


@functools.lru_cache(maxsize=None)
def _compiler_version(compiler: str) -> str:
    """The first line of `compiler --version`, once per process (a staging tree's key)."""
    return subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout.split("\n", 1)[0]


def _gcc_query(*args: str) -> str:
    out = subprocess.run(["arm-none-eabi-gcc", *args], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _toolchain_file(board: Board) -> bytes:
    if board.compiler.kind == "gcc":
        return (asset_dir("runtime_c") / "cmake" / "arm-none-eabi-gcc.cmake").read_bytes()
    require_tools("arm-none-eabi-gcc")
    flags = board.compiler.multilib_flags
    multilib = _gcc_query(*flags, "-print-multi-directory")
    libgcc = Path(_gcc_query(*flags, "-print-libgcc-file-name")).parent
    return render(
        "firmware/toolchain-clang.cmake.j2",
        multilib=multilib,
        newlib_include=NEWLIB_ROOT / "include",
        newlib_libdir=NEWLIB_ROOT / "newlib" / multilib,
        libgcc_dir=libgcc,
    ).encode()


def render_project(
    board: Union[Board, str],
    out_dir: Union[str, Path],
    app_sources: Mapping[str, Source],
    *,
    defines: Optional[Mapping[str, object]] = None,
    include_dirs: Sequence[str] = (),
    source_defines: Optional[Mapping[str, Mapping[str, str]]] = None,
    board_sources: Sequence[str] = (),
) -> Path:
    """Write the project for `board` into out_dir. app_sources maps a path inside the project to its
    text, bytes, or a file to copy; every `.c` among them is compiled. include_dirs are project-relative.
    source_defines: extra -D for single app sources (project path → {name: value}).
    board_sources: board files (relative to boards/) that this kind of firmware needs beyond the board's own
    [c].sources, e.g. the slot store of serving firmware."""
    board = load_firmware_board(board)
    out_dir = Path(out_dir)
    for rel in app_sources:
        if Path(rel).is_absolute() or ".." in Path(rel).parts or Path(rel).parts[0] in ("board", "build", "artifacts"):
            raise UsageError(f"app source path '{rel}' must be relative and outside board/, build/, artifacts/")
    files = {
        f"board/{board.name}.toml": board.path.read_bytes(),
        "board/include/mx_platform.h": (board.path.parent / "include" / "mx_platform.h").read_bytes(),
    }
    all_board_sources = [*board.sources, *(s for s in board_sources if s not in board.sources)]
    for src in all_board_sources:
        files[f"board/{src}"] = (board.path.parent / src).read_bytes()
    for folder in sorted({Path(src).parent for src in board.sources}):  # headers the board's C includes as "x.h"
        for header in sorted((board.path.parent / folder).glob("*.h")):
            files[f"board/{folder / header.name}"] = header.read_bytes()
    for rel, content in app_sources.items():
        files[rel] = (
            Path(content).read_bytes()
            if isinstance(content, Path)
            else (content.encode() if isinstance(content, str) else content)
        )
    sources = [f"board/{s}" for s in all_board_sources] + sorted(r for r in app_sources if r.endswith(".c"))
    for src in source_defines or {}:
        if src not in app_sources:
            raise UsageError(f"source_defines names '{src}', which is not an app source")
    all_defines = {**board.c_defines(), **{k: str(v) for k, v in (defines or {}).items()}}
    files["firmware.ld"] = render("firmware/firmware.ld.j2", board=board, s=board.sections).encode()
    files["toolchain.cmake"] = _toolchain_file(board)
    files["CMakeLists.txt"] = render(
        "firmware/CMakeLists.txt.j2",
        board=board,
        sources=sources,
        defines=sorted(all_defines.items()),
        include_dirs=["board/include", *include_dirs],
        source_flags=compile_flags.grouped(sources),
        source_defines=[(src, sorted(d.items())) for src, d in sorted((source_defines or {}).items())],
    ).encode()
    stack_ld = out_dir / stack_mod.STACK_LD
    if not stack_mod.analysed(board) or not stack_ld.is_file():  # a build's analysis rewrites it (build_project)
        files[stack_mod.STACK_LD] = stack_mod.stack_ld(board.stack_size).encode()
    for rel, data in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:  # unchanged files keep their mtime: fast rebuilds
            path.write_bytes(data)
    return out_dir


_progress = Printer("mcu-export: build: ")
_NINJA_STEP = re.compile(r"^\[(\d+)/(\d+)\] (.*)$")  # ninja's "[3/12] Building C object x.obj"


def _run_step(cmd: Sequence[str], cwd: Path, what: str, log: Path) -> None:
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        step = _NINJA_STEP.match(line.rstrip())
        if step:
            done, total, text = step.groups()
            _progress(Step("building", int(done), int(total), note=text.rsplit("/", 1)[-1]))
    proc.wait()
    log.write_text("".join(lines))
    if proc.returncode != 0:
        errors = [l.strip() for l in lines if "error" in l.lower()] or [l.strip() for l in lines[-3:]]
        raise ToolchainError(f"firmware {what} failed: {errors[0] if errors else 'no output'} (full log: {log})")


def build_project(out_dir: Union[str, Path], *, analyse_stack: bool = True) -> BuildResult:
    """Configure (once) and build the project rendered in out_dir; publish its outputs atomically.
    The stack is sized by call-graph analysis (stack.py) on boards that support it; analyse_stack=False reserves
    the board's stack_size instead (test firmware whose recursion is bounded by logic the analysis cannot see).
    The build runs in a staging tree shared by every project of the board (staging.py), unless disabled."""
    out_dir = Path(out_dir).resolve()
    boards = list((out_dir / "board").glob("*.toml"))
    if len(boards) != 1:
        raise UsageError(f"{out_dir} is not a rendered firmware project (no board/<name>.toml)")
    board = load_firmware_board(boards[0].stem, directory=out_dir / "board")
    require_tools(*_tools_for(board))
    if not staging.enabled():
        return _publish_build(out_dir, out_dir, board, _build_tree(out_dir, board, analyse_stack))
    with staging.slot(staging.key(out_dir, board.name, _compiler_version(_tools_for(board)[2]))) as tree:
        staging.sync(out_dir, tree)
        stack = _build_tree(tree, board, analyse_stack)
        staging.write_back(tree, out_dir, stack_mod.STACK_LD)
        return _publish_build(out_dir, tree, board, stack)


def _build_tree(project: Path, board: Board, analyse_stack: bool) -> Optional["stack_mod.StackReport"]:
    """Configure `project` when it has no build tree yet, run ninja, size the stack (relinking if it moved)."""
    build = project / "build"
    build.mkdir(exist_ok=True)
    if not (build / "build.ninja").exists():
        _progress(f"configuring for {board.name} ({board.compiler.kind})")
        _run_step(
            [
                "cmake",
                "-G",
                "Ninja",
                "-S",
                str(project),
                "-B",
                str(build),
                f"-DCMAKE_TOOLCHAIN_FILE={project / 'toolchain.cmake'}",
                "-DCMAKE_BUILD_TYPE=",
            ],
            project,
            "configure (cmake)",
            build / "configure.log",
        )
    analyse = analyse_stack and stack_mod.analysed(board)
    if not analyse:
        _write_if_changed(project / stack_mod.STACK_LD, stack_mod.stack_ld(board.stack_size))
    _run_step(["ninja", "-C", str(build)], project, "build (ninja)", build / "build.log")
    return _size_stack(project, board) if analyse else None


def _publish_build(out_dir: Path, tree: Path, board: Board, stack: Optional["stack_mod.StackReport"]) -> BuildResult:
    """Copy the outputs of `tree`'s build into out_dir/artifacts, all at once."""
    build = tree / "build"
    stage = Path(tempfile.mkdtemp(prefix=".artifacts-", dir=out_dir))
    try:
        names = ["firmware.elf", "firmware.map"] + (["firmware.bin"] if "bin" in board.outputs else [])
        for name in names:
            shutil.copy2(build / name, stage / name)
        if stack is not None:
            stack.save(stage / stack_mod.STACK_JSON)
        if "uf2" in board.outputs:
            base, family = board.region(board.sections.vectors).origin, board.flash.uf2_family_id
            assert family is not None  # the board loader refuses a "uf2" output without it
            image = (stage / "firmware.bin").read_bytes()
            (stage / "firmware.uf2").write_bytes(uf2.to_uf2(image, base, family, abs_block=board.flash.uf2_abs_block))
        _publish(stage, out_dir / "artifacts")
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    art = out_dir / "artifacts"
    Elf(art / "firmware.elf")  # a truncated or foreign file fails here, not in the runner
    _progress(f"done: {art / 'firmware.elf'}")
    return BuildResult(
        elf=art / "firmware.elf",
        map=art / "firmware.map",
        bin=art / "firmware.bin" if "bin" in board.outputs else None,
        uf2=art / "firmware.uf2" if "uf2" in board.outputs else None,
        build_dir=build,
    )


def _size_stack(out_dir: Path, board: Board) -> "stack_mod.StackReport":
    """Analyse the linked image's call graph; when the reservation it gives is not the one linked, write it to
    stack.ld and link again (the objects stay: only the link reruns)."""
    build = out_dir / "build"
    report = stack_mod.analyse(build / "firmware.elf", list(callgraph.ci_files(build)), board.stack_size)
    if _write_if_changed(out_dir / stack_mod.STACK_LD, stack_mod.stack_ld(report.reserved)):
        _progress(f"stack by call-graph analysis: {report.reserved} bytes (board limit {board.stack_size}); relinking")
        _run_step(["ninja", "-C", str(build)], out_dir, "link (ninja)", build / "link.log")
    return report


def _write_if_changed(path: Path, text: str) -> bool:
    """An unchanged file keeps its mtime, so ninja does not relink for nothing."""
    if path.is_file() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


def _publish(stage: Path, target: Path) -> None:
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}-old-{os.getpid()}")
        os.replace(target, old)
    os.replace(stage, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
