"""Whether OUT/report.html is current. The page carries a digest of what it was made from: the export's
report.json and model.pte, the last run without its wall time, the report's own code and templates, and whether
matplotlib was there to draw the figures. `export` and `run` skip drawing a page whose digest is unchanged, so
re-running an unchanged export does not spend two seconds of matplotlib on the same page (issue 16's loop);
`mcu-export report` always draws."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from pathlib import Path

from mcu_export.assets import asset_dir
from mcu_export.report.data import LAST_RUN

META = "mcu-export-report-inputs"
_FILES = ("report.json", "model.pte")
_VOLATILE = ("seconds",)  # last_run.json's fields the page does not show and a rerun changes


def _code_digest() -> bytes:
    h = hashlib.sha256()
    for folder in (Path(__file__).parent, asset_dir("codegen") / "report"):
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.suffix in (".py", ".j2", ".css"):
                h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.digest()


def inputs_key(out: Path) -> str:
    h = hashlib.sha256(_code_digest())
    h.update(b"matplotlib" if importlib.util.find_spec("matplotlib") else b"-")
    for name in _FILES:
        path = out / name
        h.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"-"))
    try:
        run = json.loads((out / LAST_RUN).read_text())
    except (OSError, ValueError):
        run = None
    if isinstance(run, dict):
        run = {k: v for k, v in run.items() if k not in _VOLATILE}
    h.update(json.dumps(run, sort_keys=True).encode())
    return h.hexdigest()


def meta_tag(key: str) -> str:
    return f'<meta name="{META}" content="{key}">'


def is_current(page: Path, key: str) -> bool:
    """The page's head names `key` (only the first few KiB are read: the tag is in the head)."""
    try:
        with open(page, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    found = re.search(rf'<meta name="{META}" content="([0-9a-f]+)">', head)
    return bool(found and found.group(1) == key)
