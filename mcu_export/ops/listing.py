"""The op list for users and docs (`mcu-export ops`), generated from the op table so it cannot drift."""
from __future__ import annotations

from mcu_export.ops.table import ALL_OPS


def format_ops() -> str:
    rows = [("operator (.pte name)", "kernels", "dtypes", "C kernel", "lowered from")]
    for op in ALL_OPS:
        sources = ", ".join(op.aten) if op.aten else "int8 lowering"
        if op.written_as:
            sources += f" (in the .pte as {' + '.join(op.written_as)}; fused when loaded)"
        rows.append((op.qualified, op.library, ",".join(op.dtypes), op.kernel, sources))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4] for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines) + "\n"
