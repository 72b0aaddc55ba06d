"""What a built firmware was built from besides its model: the C sources, templates and board files of this
mcu-export. `mcu-export run` reuses a firmware only when its model.pte and this fingerprint both match, so an
upgraded (or edited) runtime is never run from an old build."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from mcu_export.assets import asset_dir

FILE = "sources.sha256"  # in the project's artifacts/ folder
_FOLDERS = ("runtime_c", "codegen", "boards", "cmsis_nn_kernels")


@functools.lru_cache(maxsize=1)
def sources_fingerprint() -> str:
    from mcu_export import __version__

    digest = hashlib.sha256(__version__.encode())
    for name in _FOLDERS:
        root = asset_dir(name)
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(f"{name}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def record(artifacts: Path) -> None:
    (artifacts / FILE).write_text(sources_fingerprint() + "\n")


def matches(artifacts: Path) -> bool:
    path = artifacts / FILE
    return path.is_file() and path.read_text().strip() == sources_fingerprint()
