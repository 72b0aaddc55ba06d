"""The QEMU instruction-count plugin (fvp/qemu_icount_plugin.c): build it with the host compiler,
derive its arguments from a firmware ELF, and parse its report."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Optional, Union

from mcu_export.assets import asset_dir
from mcu_export.errors import ToolchainError
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.results import Icount, Region

# The region of mx_method_load: MX_ICOUNT_TAG_LOAD of boards/include/mx_platform.h (the last tag), apart from
# region 0 (the inference) and 1..n (instruction i - 1).
LOAD_TAG = 32767

_LINE = re.compile(r"^mx-icount (total (\d+)|region (\d+) (\d+) (\d+))$", re.M)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mcu-export"


def build_plugin(cache: Optional[Union[str, Path]] = None) -> Path:
    """Compile the plugin once per source version; returns the shared object's path."""
    source = asset_dir("fvp") / "qemu_icount_plugin.c"
    text = source.read_bytes()
    cache = Path(cache) if cache is not None else cache_dir()
    target = cache / f"qemu_icount_plugin-{hashlib.sha256(text).hexdigest()[:12]}.so"
    if target.exists():
        return target
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise ToolchainError("no host C compiler to build the QEMU icount plugin (apt-get install gcc)")
    cache.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    proc = subprocess.run(
        [cc, "-shared", "-fPIC", "-O2", "-std=c11", "-fvisibility=hidden", "-Wall", "-o", str(tmp), str(source)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise ToolchainError(f"building the QEMU icount plugin failed: {proc.stderr.strip().splitlines()[0]}")
    os.replace(tmp, target)
    return target


def plugin_args(elf: Union[str, Path]) -> Dict[str, str]:
    """lo/hi: the marker function's address range; window: the base its loads are relative to."""
    symbols = Elf(elf).symbols()
    hit, window = symbols.get("mx_icount_hit"), symbols.get("__mx_icount_window")
    if hit is None or window is None:  # firmware without markers (gc'd away): total count only
        return {"lo": "0x0", "hi": "0x0", "window": "0x0"}
    return {"lo": hex(hit.address), "hi": hex(hit.address + max(hit.size, 2)), "window": hex(window.value)}


def parse_icount(text: str) -> Icount:
    total = None
    regions: Dict[int, Region] = {}
    for m in _LINE.finditer(text):
        if m.group(2) is not None:
            total = int(m.group(2))
        else:
            regions[int(m.group(3))] = Region(entries=int(m.group(4)), instructions=int(m.group(5)))
    if total is None:
        raise ToolchainError("the QEMU icount plugin wrote no report (was QEMU run with -d plugin -D FILE?)")
    return Icount(total=total, regions=regions)
