"""`make bench` table `flash_int8`: each int8 firmware's flash in parts, against issue 14's aims.

code = runtime + kernels + startup+libc (+ other, usually 0); model data = the embedded .pte, split into its
weights and the rest (flatbuffer metadata, quantization parameters held as scalars, the header), plus the
generated arrays (the kernel table). The aims: code <= 16 KiB, the .pte <= 1.10x its weights, and the runtime
core alone (bench_firmware's table `runtime_core`) <= 6 KiB."""

from __future__ import annotations

from typing import List, Tuple

from mcu_export.bench_figures import Column, FigureStore
from mcu_export.pte.parts import pte_parts

CODE_AIM_BYTES = 16 * 1024
PTE_OVER_WEIGHTS_AIM = 1.10

Row = Tuple[str, str, dict, bytes]  # model, board, report.json's firmware.<board>, the embedded .pte


def flash_figures(sizes: dict, pte: bytes) -> dict:
    """Parts that sum to the firmware's flash total: code's four categories, the .pte's weights, its metadata
    (delegate blobs included), and the model's generated arrays."""
    cats = sizes["flash"]["categories"]
    parts = pte_parts(pte)
    code = cats["runtime"] + cats["kernels"] + cats["startup_libc"] + cats["other"]
    return {
        "flash B": sizes["flash"]["total"],
        "code B": code,
        "runtime B": cats["runtime"],
        "kernels B": cats["kernels"],
        "libc+other B": cats["startup_libc"] + cats["other"],
        "weights B": parts["weights"],
        "pte meta B": parts["metadata"] + parts["delegates"],
        "tables B": cats["model_data"] - len(pte),
        "code/aim": code / CODE_AIM_BYTES,
        "pte/weights": len(pte) / parts["weights"] if parts["weights"] else None,
    }


def flash_table(store: FigureStore, rows: List[Row]) -> None:
    print(
        f"(aims: code <= {CODE_AIM_BYTES} B, .pte <= {PTE_OVER_WEIGHTS_AIM:.2f}x its weights; "
        "code/aim and pte/weights over 1.00 / 1.10 miss them)"
    )
    table = store.table(
        "flash_int8",
        [Column("model", width=14), Column("board", width=13)],
        [
            Column("flash B", width=15),
            Column("code B", width=15),
            Column("runtime B", width=15),
            Column("kernels B", width=15),
            Column("libc+other B", width=13),
            Column("weights B", width=15),
            Column("pte meta B", width=13),
            Column("tables B", width=11),
            Column("code/aim", ".2f", width=12),
            Column("pte/weights", ".3f", width=14),
        ],
    )
    for model, board, sizes, pte in rows:
        table.row([model, board], flash_figures(sizes, pte))
