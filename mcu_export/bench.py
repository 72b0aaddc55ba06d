"""`make bench`: per example model, the planned arena against its lower bound and against ExecuTorch's planner
(fp32, and int8 with and without overlapping tensors);
firmware flash, RAM and instructions per inference per board; the runtime core's own flash size; int8 firmware flash in
parts against issue 14's aims (bench_flash, printed with bench_int8's tables); the edit-run loop's phases
(bench_loop.py)."""

from __future__ import annotations

import time
from typing import Optional

import torch

from mcu_export.api import export
from mcu_export.bench_figures import Column, FigureStore
from mcu_export.examples import EXAMPLES, EXAMPLES_DIR, spec
from mcu_export.model_spec import load_model


def executorch_planned_bytes(model: torch.nn.Module, inputs: tuple) -> Optional[int]:
    """Bytes ExecuTorch 1.5.1's default memory planning asks for (sum of its non-constant buffers)."""
    try:
        from executorch.exir import to_edge
        from executorch.exir._serialize._program import deserialize_pte_binary
    except ImportError:
        return None
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*LeafSpec.*", category=FutureWarning)  # torch-internal
        ep = torch.export.export(model, inputs, strict=False)
    buffer = to_edge(ep).to_executorch().buffer
    program = deserialize_pte_binary(buffer)
    program = getattr(program, "program", program)
    return int(sum(program.execution_plan[0].non_const_buffer_sizes))


FIRMWARE_BOARDS = ("corstone-300", "mps2-an505", "mps2-an386")
KEY = Column("model", width=12)


def firmware_table(store: FigureStore, artifacts) -> None:
    """Per example per board: flash and RAM from the linker map, instructions per inference from QEMU."""
    import tempfile
    from pathlib import Path

    from mcu_export.bench_firmware import measure
    from mcu_export.firmware.sizes import code_bytes

    print()
    table = store.table(
        "firmware_fp32",
        [KEY, Column("board", width=13)],
        [
            Column("flash B", width=17),
            Column("code B", width=15),
            Column("RAM B", width=17),
            Column("instr/inference", width=23),
            Column("qemu s", ".2f", compare=False, width=6),
        ],
    )
    with tempfile.TemporaryDirectory(prefix="mcu-export-bench-") as tmp:
        for name, (artifact, inputs) in artifacts.items():
            for board in FIRMWARE_BOARDS:
                run, sizes = measure(artifact, Path(tmp) / name, board, [x.numpy() for x in inputs])
                table.row(
                    [name, board],
                    {
                        "flash B": sizes["flash"]["total"],
                        "code B": code_bytes(sizes),
                        "RAM B": sizes["ram"]["total"],
                        "instr/inference": run.instructions_per_inference,
                        "qemu s": run.seconds,
                    },
                )


SE_NET = str(EXAMPLES_DIR / "families" / "se_net.py:factory")


def memory_table(store: FigureStore):
    """Per example (and the squeeze-and-excite family model, not run on firmware): arena vs its lower bound and vs
    ExecuTorch's planner, export time, weights, .pte size."""
    artifacts = {}
    table = store.table(
        "memory",
        [KEY],
        [
            Column("arena B", width=17),
            Column("bound B", width=17),
            Column("arena/bound", ".3f", width=13),
            Column("ET B", width=19),
            Column("ET/arena", ".2f", width=15),
            Column("export s", ".2f", compare=False, width=8),
            Column("weights B", width=21),
            Column("pte B", width=21),
        ],
    )
    for name, where in [*((n, spec(n)) for n in EXAMPLES), ("se_net", SE_NET)]:
        model, inputs = load_model(where)
        t0 = time.perf_counter()
        artifact = export(model, inputs)
        if name in EXAMPLES:
            artifacts[name] = (artifact, inputs)
        seconds = time.perf_counter() - t0
        mem = artifact.report["memory"]
        et = executorch_planned_bytes(model, inputs)
        table.row(
            [name],
            {
                "arena B": mem["arena_bytes"],
                "bound B": mem["lower_bound_bytes"],
                "arena/bound": mem["arena_over_lower_bound"],
                "ET B": et,
                "ET/arena": et / mem["arena_bytes"] if et else None,
                "export s": seconds,
                "weights B": mem["constant_bytes"],
                "pte B": artifact.report["pte_bytes"],
            },
        )
    return artifacts


def memory_int8_table(store: FigureStore) -> None:
    """Per example (and the squeeze-and-excite family model), int8 on corstone-300: the arena with overlaps (an out over the input it replaces, where the
    kernel's rule allows), without them, the live-set bound, and ExecuTorch's Cortex-M flow's planned bytes."""
    from mcu_export.bench_et_cortex_m import et_int8_planned_bytes
    from mcu_export.planner import MemoryPlan, plan_memory

    table = store.table(
        "memory_int8",
        [KEY],
        [
            Column("arena8 B", width=17),
            Column("apart8 B", width=17),
            Column("live-set B", width=17),
            Column("overlaps", width=10),
            Column("ET8 B", width=17),
            Column("arena/ET", ".3f", width=13),
        ],
    )
    for name, where in [
        *((n, spec(n)) for n in EXAMPLES),
        ("se_net", SE_NET),
    ]:
        model, inputs = load_model(where)
        artifact = export(model, inputs, quantize="int8", calibrate=[inputs], board="corstone-300", backend="cortex-m")
        plan = artifact.memory_plan
        assert isinstance(plan, MemoryPlan)
        apart = plan_memory(artifact.program, overlap=False)
        et = et_int8_planned_bytes(model, inputs)
        table.row(
            [name],
            {
                "arena8 B": plan.arena_bytes,
                "apart8 B": apart.arena_bytes,
                "live-set B": plan.lower_bound_bytes,
                "overlaps": plan.overlaps,
                "ET8 B": et,
                "arena/ET": plan.arena_bytes / et if et else None,
            },
        )


def main() -> int:
    from mcu_export.bench_ethosu import main as ethosu_main
    from mcu_export.bench_firmware import main as runtime_core_main
    from mcu_export.bench_int8 import main as int8_main
    from mcu_export.bench_loop import loop_table

    store = FigureStore()
    print(f"(each figure beside its previous value from {store.path.name}: '(=)' unchanged)")
    artifacts = memory_table(store)
    print()
    memory_int8_table(store)
    firmware_table(store, artifacts)
    print()
    runtime_core_main([], store)
    print()
    int8_main(store)
    print()
    ethosu_main(store)
    print()
    loop_table(store)
    store.save()
    print(f"\nfigures saved to {store.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
