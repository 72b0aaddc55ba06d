"""Which instruction-set paths each int8 kernel has: read from the C sources, so the list cannot drift.

A cortex_m kernel (runtime_c/kernels/cortex_m/) calls CMSIS-NN functions (cmsis_nn_kernels/, one per
file); each function has a scalar path and, where CMSIS-NN has them, DSP (Cortex-M4/M7/M33) and MVE
(Cortex-M55/M85) paths under #if. A kernel has a path when any function it reaches has it; the build picks
one by the board's CPU (boards/*.toml: cpu.dsp, cpu.mve). Portable kernels are plain C: every board.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import List, Set, Tuple

from mcu_export.assets import asset_dir

_INCLUDE = re.compile(r'#include "(?:util/)?(mx_cm_\w+)\.h"')
_CALL = re.compile(r"\b(arm_\w+)\(")
_PATHS = (
    ("dsp", re.compile(r"ARM_NN_USE_DSP|ARM_MATH_DSP|__ARM_FEATURE_DSP")),
    ("mve", re.compile(r"ARM_NN_USE_MVE|ARM_MATH_MVEI|__ARM_FEATURE_MVE")),
)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.is_file() else ""


@functools.lru_cache(maxsize=None)
def kernel_isas(kernel: str) -> Tuple[str, ...]:
    """("scalar", "dsp", "mve") or a prefix of the paths the int8 kernel `kernel` (a C symbol) reaches."""
    root = asset_dir("runtime_c") / "kernels" / "cortex_m"
    cmsis = asset_dir("cmsis_nn_kernels")
    texts: List[str] = []
    seen_util: Set[str] = set()
    seen_fn: Set[str] = set()
    pending = [_read(root / f"{kernel}.c")]
    while pending:
        text = pending.pop()
        for util in set(_INCLUDE.findall(text)) - seen_util:
            seen_util.add(util)
            pending.append(_read(root / "util" / f"{util}.c"))
        fns: Set[str] = set(_CALL.findall(text)) - seen_fn
        for fn in fns:
            seen_fn.add(fn)
            pending.append(_read(cmsis / f"{fn}.c"))
        texts.append(text)
    found = "\n".join(texts)
    return ("scalar",) + tuple(name for name, pattern in _PATHS if pattern.search(found))
