"""`make bench`'s Ethos-U table: per example model and NPU configuration, our export against ExecuTorch's Arm
backend (its EthosU quantizer and partitioner, the same Vela) lowering the same model.

Figures: operators on the NPU (share), NPU subgraphs, Vela's NPU cycles per inference, Vela's SRAM, the
arena (every planned tensor including the NPU scratch; for ExecuTorch its planned bytes plus the largest
scratch, which its runtime takes from a temp pool) and export seconds. "ET/ours" > 1 means we use fewer.
Calibration: 16 random batches shaped like each example's input, as the int8 table does.
"""

from __future__ import annotations

import time

from mcu_export.api import export
from mcu_export.bench_figures import Column, FigureStore
from mcu_export.bench_int8 import _calibration
from mcu_export.examples import EXAMPLES, spec
from mcu_export.model_spec import load_model

CONFIGS = ("ethos-u55-128", "ethos-u65-256", "ethos-u85-256")


def _ours(model, inputs, calib, accelerator: str):
    started = time.perf_counter()
    artifact = export(model, inputs, quantize="int8", calibrate=calib, backend=accelerator)
    seconds = time.perf_counter() - started
    parts, npu = artifact.report["partitions"], artifact.report["npu"]
    return {
        "share": parts["operators_on_npu"] / max(parts["operators"], 1),
        "subgraphs": len(parts["subgraphs"]),
        "cycles": npu["total"]["cycles_npu"],
        "sram": max((s["sram_bytes"] for s in npu["subgraphs"]), default=0),
        "arena": artifact.report["memory"]["arena_bytes"],
        "seconds": seconds,
    }


def _executorch(model, inputs, accelerator: str):
    try:
        from mcu_export.bench_et_ethosu import executorch_ethosu
    except ImportError:
        return None
    try:
        et = executorch_ethosu(model, inputs, accelerator)
    except ImportError:  # executorch (the interop extra) not installed
        return None
    return {"share": et["npu_share"], "subgraphs": et["subgraphs"], "cycles": et["cycles_npu"],
            "sram": et["sram_bytes"], "arena": et["arena_bytes"]}  # fmt: skip


def main(store=None) -> int:
    own = store is None
    store = store or FigureStore()
    table = store.table(
        "ethos_u",
        [Column("model", width=12), Column("npu", width=14)],
        [
            Column("NPU share", ".2f", width=13),
            Column("subgraphs", width=9),
            Column("NPU cycles", width=19),
            Column("SRAM B", width=17),
            Column("arena B", width=17),
            Column("ET share", ".2f", width=13),
            Column("ET subgr", width=9),
            Column("ET cycles", width=19),
            Column("cycles/ET", ".3f", width=13),
            Column("ET arena B", width=17),
            Column("arena/ET", ".3f", width=13),
            Column("export s", ".2f", compare=False, width=8),
        ],
    )
    for name in EXAMPLES:
        model, inputs = load_model(spec(name))
        calib = _calibration(name, inputs[0])
        for accelerator in CONFIGS:
            ours = _ours(model, inputs, calib, accelerator)
            et = _executorch(model, inputs, accelerator) or {}
            table.row(
                [name, accelerator],
                {
                    "NPU share": ours["share"],
                    "subgraphs": ours["subgraphs"],
                    "NPU cycles": ours["cycles"],
                    "SRAM B": ours["sram"],
                    "arena B": ours["arena"],
                    "ET share": et.get("share"),
                    "ET subgr": et.get("subgraphs"),
                    "ET cycles": et.get("cycles"),
                    "cycles/ET": ours["cycles"] / et["cycles"] if et.get("cycles") else None,
                    "ET arena B": et.get("arena"),
                    "arena/ET": ours["arena"] / et["arena"] if et.get("arena") else None,
                    "export s": ours["seconds"],
                },
            )
    if own:
        store.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
