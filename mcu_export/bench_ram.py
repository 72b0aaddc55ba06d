"""`make bench` table `ram`: each firmware's total RAM as one figure with its parts, and RAM per byte of arena.

The stack is the call-graph analysis' reservation (mcu_export/firmware/stack.py), shown beside the high-water
mark the run measured; `RAM/arena` is what a byte of planned arena costs in the whole firmware's RAM."""

from __future__ import annotations

from typing import List, Tuple

from mcu_export.bench_figures import Column, FigureStore

Row = Tuple[str, str, str, dict, object]  # model, board, dtype, report.json's firmware.<board>, the ModelRun


def ram_figures(sizes: dict, run) -> dict:
    ram = sizes["ram"]
    parts = ram["parts"]
    return {
        "RAM B": ram["total"],
        "arena B": parts["arena"],
        "runtime B": parts["runtime_metadata"],
        "stack B": parts["stack"],
        "stack used B": run.stack_used,
        "libc+other B": parts["startup_libc"] + parts["other"],
        "RAM/arena": ram["total"] / parts["arena"] if parts["arena"] else None,
    }


def ram_table(store: FigureStore, rows: List[Row]) -> None:
    table = store.table(
        "ram",
        [Column("model", width=12), Column("board", width=13), Column("dtype", width=5)],
        [
            Column("RAM B", width=17),
            Column("arena B", width=17),
            Column("runtime B", width=15),
            Column("stack B", width=15),
            Column("stack used B", width=15),
            Column("libc+other B", width=12),
            Column("RAM/arena", ".2f", width=13),
        ],
    )
    for model, board, dtype, sizes, run in rows:
        table.row([model, board, dtype], ram_figures(sizes, run))
