"""Where mcu-export itself builds a firmware project: a build tree per board and kind of project, kept in the
cache and shared by every export, so the runtime, board and kernel objects compile once per board and source
version and a model's build recompiles only what differs (its generated sources; a kernel it adds).

The project in OUT/firmware/BOARD stays self-contained (a user builds it with cmake alone); mcu-export copies it
into a staging folder (files whose bytes changed only: ninja sees unchanged files as built) and builds there,
then publishes the artifacts (and the analysed stack.ld) back. Files another model needed stay in the staging
folder but not in its CMakeLists, so a kernel that comes back is still compiled. A folder serves one build at
a time (a lock); concurrent builds for one board (parallel tests) take the next of a few slots.
`MCU_EXPORT_STAGING=0` builds in the project's own build/ instead.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

SLOTS = 4
_SKIP = ("build", "artifacts")  # CMake's tree and the published outputs: never copied in


def enabled() -> bool:
    return os.environ.get("MCU_EXPORT_STAGING", "1") != "0"


def root() -> Path:
    from mcu_export.host_runtime import cache_root

    return cache_root() / "firmware-builds"


def key(project: Path, board: str, compiler: str) -> str:
    """One staging tree per board, kind of project (model firmware, serving firmware: their top folders) and
    compiler version (ninja would not rebuild objects of an upgraded compiler at the same path)."""
    tops = sorted(p.name for p in project.iterdir() if p.is_dir() and p.name not in _SKIP)
    return f"{board}-{hashlib.sha256(' '.join([compiler, *tops]).encode()).hexdigest()[:10]}"


@contextmanager
def slot(name: str) -> Iterator[Path]:
    """A staging folder for `name`, locked for this build: the first free slot, else wait for one."""
    base = root() / name
    base.mkdir(parents=True, exist_ok=True)
    handle = None
    try:
        for k in range(SLOTS):
            handle = open(base / f"slot{k}.lock", "w")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                handle.close()
                handle = None
        if handle is None:  # all busy: queue on one
            k = os.getpid() % SLOTS
            handle = open(base / f"slot{k}.lock", "w")
            fcntl.flock(handle, fcntl.LOCK_EX)
        folder = base / f"slot{k}"
        folder.mkdir(exist_ok=True)
        yield folder
    finally:
        if handle is not None:
            handle.close()  # closing releases the lock


def sync(project: Path, stage: Path) -> int:
    """Copy the project's files into `stage` where their bytes differ; returns how many were written."""
    written = 0
    for path in project.rglob("*"):
        rel = path.relative_to(project)
        if rel.parts[0] in _SKIP or not path.is_file() or rel.name.startswith("."):
            continue
        target = stage / rel
        data = path.read_bytes()
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    return written


def write_back(stage: Path, project: Path, name: str) -> Optional[Path]:
    """A file the build itself rewrote in the staging folder (the analysed stack.ld), copied to the project."""
    src, dst = stage / name, project / name
    if not src.is_file():
        return None
    data = src.read_bytes()
    if not dst.is_file() or dst.read_bytes() != data:
        dst.write_bytes(data)
    return dst
