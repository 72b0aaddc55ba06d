"""The op list for users and docs (`mcu-export ops`), generated from the op table so it cannot drift."""

from __future__ import annotations

from typing import Dict, List

from mcu_export.board_types import Board
from mcu_export.ops.isa import kernel_isas
from mcu_export.ops.signatures import signature
from mcu_export.ops.table import ALL_OPS


def _paths(op) -> str:
    """Where the kernel runs: portable C on every board; an int8 kernel's scalar/DSP/MVE paths."""
    if op.library != "cortex_m":
        return "portable:all"
    return "cortex-m:" + "+".join(kernel_isas(op.kernel))


def boards_by_isa() -> Dict[str, List[str]]:
    """Firmware boards by the int8 path their build compiles (the board's cpu.mve / cpu.dsp)."""
    from mcu_export.boards import list_boards, load_board

    found: Dict[str, List[str]] = {"scalar": [], "dsp": [], "mve": []}
    for name in list_boards():
        board = load_board(name)
        if isinstance(board, Board):
            found[board.cpu.isa].append(name)
    return found


def format_ops() -> str:
    rows = [("operator (.pte name)", "kernels", "dtypes", "paths", "C kernel", "lowered from")]
    for op in ALL_OPS:
        sources = ", ".join(op.aten) if op.aten else "int8 lowering"
        if op.written_as:
            sources += f" (in the .pte as {' + '.join(op.written_as)}; fused when loaded)"
        rows.append((op.qualified, op.library, ",".join(op.dtypes), _paths(op), op.kernel, sources))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths)) + "  " + row[5] for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    # The paths column in board names: which boards build which int8 path (host: the scalar C).
    legend = ["", "paths: portable:all = plain C, on the host and every board; cortex-m:PATHS = the int8 kernel's"]
    legend.append("CMSIS-NN paths, the build picks one by the board's CPU (a kernel without it runs its scalar path):")
    for isa, names in boards_by_isa().items():
        legend.append(
            f"  {isa:<6} {', '.join(names) if names else '(no board)'}" + (", host" if isa == "scalar" else "")
        )
    return "\n".join(lines + legend) + "\n"


def format_op_args() -> str:
    """Each op's KernelCall arguments, position by position: the calling convention the C kernels use
    (MX_ARG_* in runtime_c/include/mx/op_args.h) and the loader checks."""
    blocks = []
    for op in ALL_OPS:
        sig = signature(op)
        args = [f"{_schema_type(a.type)} {a.name}" for a in sig.args]
        ret = "ret: the out tensor again" if sig.returns == 1 else "ret: a TensorList of the outs"
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
