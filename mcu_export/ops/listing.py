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


def format_op_args() -> str:
    """Each op's KernelCall arguments, position by position: the calling convention the C kernels use
    (MX_ARG_* in runtime_c/include/mx/op_args.h) and the loader checks."""
    blocks = []
    for op in ALL_OPS:
        schema = op.schema()
        args = [f"{_schema_type(str(a.type))} {a.name}" for a in schema.arguments]
        ret = "ret: the out tensor again" if len(schema.returns) == 1 else "ret: a TensorList of the outs"
        lines = [op.qualified] + [f"  {i:>2}  {a}" for i, a in enumerate(args + [ret])]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _schema_type(t: str) -> str:
    """torch's Python-style type text as the schema writes it: Optional[List[int]] -> int[]?, number -> Scalar."""
    if t.startswith("Optional["):
        return _schema_type(t[len("Optional[") : -1]) + "?"
    if t.startswith("List["):
        return _schema_type(t[len("List[") : -1]) + "[]"
    return {"number": "Scalar"}.get(t, t)
