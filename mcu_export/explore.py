"""`mcu-export explore OUT`: the export's model.pte in Google's Model Explorer, each instruction's node with its
source line and an Ethos-U delegate's TOSA graph as its subgraph (mcu_export/explorer_ext/mcu_export_explorer).

Model Explorer's .pte adapter (pte-adapter-model-explorer) needs flatbuffers > 25.9 while tosa-tools, which the
exporter needs, pins flatbuffers 25.2.10: the two live in separate venvs, and the explorer runs in its own
interpreter. That interpreter is the first of: $MCU_EXPORT_EXPLORER_PYTHON; this one, when it imports both
packages; the one behind a `model-explorer` on PATH; ~/.mcu-export-explorer/bin/python; the checkout's
.venv-explorer (made by `make venv`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

from mcu_export.errors import UsageError

ENV = "MCU_EXPORT_EXPLORER_PYTHON"
PACKAGES = ("model_explorer", "pte_adapter_model_explorer")
EXTENSION_DIR = Path(__file__).resolve().parent / "explorer_ext"  # holds the package mcu_export_explorer alone
SIDE_VENVS = (Path("~/.mcu-export-explorer"), Path(__file__).resolve().parent.parent / ".venv-explorer")
INSTALL = (
    "python -m venv ~/.mcu-export-explorer && "
    "~/.mcu-export-explorer/bin/pip install ai-edge-model-explorer pte-adapter-model-explorer"
)
WHY = "a venv of its own: pte-adapter-model-explorer needs flatbuffers>25.9, tosa-tools pins 25.2.10"


def _imports(python: str) -> bool:
    probe = f"import {', '.join(PACKAGES)}"
    try:
        return subprocess.run([python, "-c", probe], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _shebang_python(script: str) -> Optional[str]:
    """The interpreter a console script such as `model-explorer` starts with (pip writes `#!/path/python`)."""
    try:
        first = Path(script).read_bytes()[:512].split(b"\n", 1)[0].decode(errors="replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    return words[0] if words and "python" in Path(words[0]).name else None


def candidates() -> List[str]:
    """Interpreters to try, in order (module docstring); a candidate may still lack the packages."""
    found: List[str] = []
    if os.environ.get(ENV):
        found.append(os.environ[ENV])
    found.append(sys.executable)
    on_path = shutil.which("model-explorer")
    if on_path:
        python = _shebang_python(on_path)
        if python:
            found.append(python)
    for venv in SIDE_VENVS:
        side = venv.expanduser() / "bin" / "python"
        if side.exists():
            found.append(str(side))
    return list(dict.fromkeys(found))


def find_python() -> Optional[str]:
    """The first interpreter that imports Model Explorer and the .pte adapter, or None."""
    if os.environ.get(ENV) and not _imports(os.environ[ENV]):
        raise UsageError(f"{ENV}={os.environ[ENV]} does not import {' and '.join(PACKAGES)}; install: {INSTALL}")
    return next((p for p in candidates() if _imports(p)), None)


def environment() -> dict:
    """The explorer interpreter's environment: our extension on its path and nothing of this venv's."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = str(EXTENSION_DIR)
    return env


def model_path(out: Path) -> Path:
    pte = out / "model.pte" if out.is_dir() else out
    if not pte.is_file():
        raise UsageError(f"{out} holds no model.pte (run `mcu-export export` first)")
    return pte


def command(python: str, pte: Path, host: str, port: int, no_browser: bool) -> List[str]:
    cmd = [python, "-m", "mcu_export_explorer.launch", str(pte.resolve()), "--host", host, "--port", str(port)]
    return cmd + (["--no-browser"] if no_browser else [])


def explore(out: Path, host: str = "localhost", port: int = 8080, no_browser: bool = False) -> int:
    """Starts Model Explorer on OUT/model.pte (or a .pte) and waits for it (Ctrl-C ends it)."""
    pte = model_path(Path(out))
    python = find_python()
    if python is None:
        raise UsageError(f"Model Explorer is not installed; install it in {WHY}: {INSTALL}")
    try:
        return subprocess.run(command(python, pte, host, port, no_browser), env=environment()).returncode
    except KeyboardInterrupt:
        return 0
