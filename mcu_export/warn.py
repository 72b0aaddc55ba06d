"""The warnings an export gives without stopping: training mode, and each int8 op that runs in fp32.

Each is one McuExportWarning (a UserWarning): API users see Python warnings, and the CLI records them and
prints each once as `mcu-export: warning: ...` (never both). With fallback=False (`--no-fallback`) the
fallbacks are an error instead, every one listed at once.
"""

from __future__ import annotations

import warnings
from typing import Dict, List

from torch import nn

from mcu_export.errors import McuExportWarning, UnsupportedOpError


def training_mode(model: nn.Module) -> None:
    """torch.export of a module in training mode captures dropout and batch-norm batch statistics; an
    embedded model wants inference, so it is exported in eval mode, and the user is told."""
    if model.training:
        name = type(model).__name__
        warnings.warn(
            f"{name} is in training mode: exported in eval mode (model.eval() was called: dropout off, "
            "batch norm with its running statistics)",
            McuExportWarning,
            stacklevel=3,
        )
        model.eval()


def fallback_lines(fallbacks: List[Dict]) -> List[str]:
    """One line per int8 operator that runs in fp32: op, count, first source line, why."""
    by_op: Dict[str, List] = {}
    for fb in fallbacks:
        by_op.setdefault(fb["op"], [0, fb])[0] += 1
    lines = []
    for op, (count, fb) in by_op.items():
        where = f" at {fb['location']}" if fb.get("location") else f" (node {fb['node']})"
        uses = f" ({count} uses)" if count > 1 else ""
        lines.append(f"int8 {op}{uses}{where} runs in fp32: {fb['reason']}")
    return lines


def report_fallbacks(fallbacks: List[Dict], allowed: bool) -> None:
    lines = fallback_lines(fallbacks)
    if not lines:
        return
    if not allowed:
        head = "int8 without fallback refused"
        raise UnsupportedOpError(f"{head}: {lines[0]}" if len(lines) == 1 else f"{head}:\n  " + "\n  ".join(lines))
    for line in lines:
        warnings.warn(line, McuExportWarning, stacklevel=3)
