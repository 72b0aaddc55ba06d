"""Write outputs so that a failure never leaves a half-written artifact: temporary name, then rename."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Dict, Union


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: Union[str, Path], data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # mkstemp makes the file 0600; an output is an ordinary file, with the mode open() would give it
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_files(out_dir: Union[str, Path], files: Dict[str, bytes]) -> Path:
    """All files of an artifact appear together: they are staged in a hidden folder beside them first."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".mcu-export-stage-", dir=out_dir))
    try:
        for name, data in files.items():
            (stage / name).parent.mkdir(parents=True, exist_ok=True)
            (stage / name).write_bytes(data)
        for name in files:
            (out_dir / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / name, out_dir / name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return out_dir
