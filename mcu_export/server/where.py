"""Where a server lives and which one a command may use.

A server is named by a key: a digest of what the loaded process depends on (this Python, the mcu-export package
and its asset folders by path, size and modification time, the installed distributions, the toolchain binaries
and the environment variables read at import). A command computes the key in milliseconds without importing
torch; an edited mcu-export, a new torch or another OMP_NUM_THREADS means another key, so a stale server is never
used: it idles out.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Mapping, Optional

from mcu_export.assets import FOLDERS, asset_dir

ENV = "MCU_EXPORT_SERVER"  # off: never use a server; on: also start one in CI; unset: use one, start one unless CI
ENV_DIR = "MCU_EXPORT_SERVER_DIR"
ENV_IDLE = "MCU_EXPORT_SERVER_IDLE"
IDLE_SECONDS = 900.0
_OFF = ("0", "off", "no", "false")
_IMPORT_ENV = ("TORCH", "PYTORCH", "OMP_", "MKL_", "KMP_", "PYTHON", "LD_")  # read when the server starts
_TOOLS = ("arm-none-eabi-gcc", "cmake", "ninja", "clang-16", "qemu-system-arm")
_PACKAGE = Path(__file__).resolve().parent.parent


def enabled() -> bool:
    return os.environ.get(ENV, "").strip().lower() not in _OFF


def autostart() -> bool:
    """Start a server after a command that found none: not in CI (one command per fresh machine) unless asked."""
    value = os.environ.get(ENV, "").strip().lower()
    return value not in _OFF and (value == "on" or not os.environ.get("CI"))


def folder() -> Path:
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return Path(runtime, "mcu-export") if runtime else Path.home() / ".cache" / "mcu-export" / "servers"


def idle_seconds() -> float:
    try:
        return float(os.environ.get(ENV_IDLE, IDLE_SECONDS))
    except ValueError:
        return IDLE_SECONDS


def _stat_tree(digest, root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            digest.update(f"{os.path.relpath(path, root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())


def key(environ: Optional[Mapping[str, str]] = None) -> str:
    """`environ`: the command's environment as it started (torch's import adds TORCHINDUCTOR_CACHE_DIR)."""
    environ = os.environ if environ is None else environ
    digest = hashlib.sha256(f"{sys.executable}\0{sys.version}\0".encode())
    _stat_tree(digest, _PACKAGE)
    for name in FOLDERS:
        digest.update(f"[{name}]".encode())
        _stat_tree(digest, asset_dir(name))
    for entry in sys.path:  # installed distributions: a new version renames its .dist-info
        if entry.endswith("-packages") and os.path.isdir(entry):
            digest.update(" ".join(sorted(n for n in os.listdir(entry) if n.endswith(".dist-info"))).encode())
    for tool in _TOOLS:
        found = shutil.which(tool)
        if found:
            st = os.stat(found)
            digest.update(f"{found}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for name in sorted(environ):
        if name.startswith(_IMPORT_ENV):
            digest.update(f"{name}={environ[name]}\0".encode())
    return digest.hexdigest()[:20]


def socket_path(server_key: str) -> Path:
    return folder() / f"{server_key}.sock"


def make_folder() -> Path:
    """The folder, private to this user: a socket there runs commands as them."""
    path = folder()
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_uid != os.getuid():
        from mcu_export.errors import UsageError

        raise UsageError(f"{path} belongs to another user: set {ENV_DIR} to a folder of yours")
    os.chmod(path, 0o700)
    return path
