"""int8 against fp32 per example model and board: instructions per inference, arena, code, RAM (bench_ram), int8
flash in parts (bench_flash), per-op tables.

Calibration uses 16 random batches shaped like each example's input (the examples ship no dataset), so
the figures measure cost, not accuracy; accuracy is asserted in tests/test_int8_models.py."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch

from mcu_export.api import export
from mcu_export.bench_figures import Column, FigureStore
from mcu_export.bench_firmware import measure
from mcu_export.bench_flash import flash_table
from mcu_export.bench_ram import ram_table
from mcu_export.examples import EXAMPLES, spec
from mcu_export.firmware.sizes import code_bytes
from mcu_export.model_spec import load_model
from mcu_export.runners.report import format_per_op_table

BOARDS = ("mps2-an505", "mps2-an386", "corstone-300")  # DSP (M33), DSP (M4), MVE (M55)
# Their flash rows again with per-tensor fully connected weights ("<name> pt"): ExecuTorch's schema writes the
# per-channel requantization as int[] lists, most of these .pte's metadata.
PER_TENSOR_LINEAR = ("mnist_mlp", "autoencoder")


def _calibration(name: str, like: torch.Tensor):
    gen = torch.Generator().manual_seed(0)
    draw = torch.rand if name == "mnist_mlp" else torch.randn
    return [(draw(like.shape, generator=gen),) for _ in range(16)]


def _run(artifact, out: Path, board: str, x, ram_rows: list, key: tuple):
    run, sizes = measure(artifact, out, board, [x])
    ram_rows.append((*key, sizes, run))
    return run, code_bytes(sizes)


def main(store=None) -> int:
    own = store is None
    store = store or FigureStore()
    table = store.table(
        "int8_vs_fp32",
        [Column("model", width=12), Column("board", width=13)],
        [
            Column("int8 instr", width=23),
            Column("fp32 instr", width=23),
            Column("fp32/int8", ".2f", width=13),
            Column("load8 instr", width=19),
            Column("load/inf %", ".2f", width=14),
            Column("arena8 B", width=17),
            Column("arena32 B", width=17),
            Column("code8 B", width=15),
            Column("code32 B", width=15),
        ],
    )
    tables: list = []
    ram_rows: list = []
    flash_rows: list = []
    with tempfile.TemporaryDirectory(prefix="mcu-export-bench-int8-") as tmp:
        for name in EXAMPLES:
            model, inputs = load_model(spec(name))
            calib = _calibration(name, inputs[0])
            fp32 = export(model, inputs)
            x = inputs[0].numpy()
            for board in BOARDS:
                int8 = export(  # the CPU path, as the table compares CPU kernels
                    model,
                    inputs,
                    quantize="int8",
                    calibrate=lambda: iter(calib),  # noqa: B023 (called here)
                    board=board,
                    backend="cortex-m",
                )
                run8, code8 = _run(int8, Path(tmp) / name / board / "int8", board, x, ram_rows, (name, board, "int8"))
                flash_rows.append((name, board, ram_rows[-1][3], int8.pte))
                run32, code32 = _run(fp32, Path(tmp) / name / board / "fp32", board, x, ram_rows, (name, board, "fp32"))
                i8, i32 = run8.instructions_per_inference, run32.instructions_per_inference
                table.row(
                    [name, board],
                    {
                        "int8 instr": i8,
                        "fp32 instr": i32,
                        "fp32/int8": i32 / i8,
                        # the whole mx_method_load: parsing, kernel checks, the plan check, the cost bound
                        "load8 instr": run8.instructions_per_load,
                        "load/inf %": 100.0 * run8.instructions_per_load / i8 if run8.instructions_per_load else None,
                        "arena8 B": int8.report["memory"]["arena_bytes"],
                        "arena32 B": fp32.report["memory"]["arena_bytes"],
                        "code8 B": code8,
                        "code32 B": code32,
                    },
                )
                if board == "corstone-300":
                    tables.append((name, board, format_per_op_table(run8)))
            if name in PER_TENSOR_LINEAR:  # as `--linear-weights per-tensor` exports it: the .pte's aim for MLPs
                pt = export(
                    model,
                    inputs,
                    quantize="int8",
                    calibrate=lambda: iter(calib),  # noqa: B023 (called here)
                    board="corstone-300",
                    backend="cortex-m",
                    linear_weights="per-tensor",
                )
                _, sizes = measure(pt, Path(tmp) / name / "per-tensor", "corstone-300", [x])
                flash_rows.append((f"{name} pt", "corstone-300", sizes, pt.pte))
    print()
    ram_table(store, ram_rows)  # the builds above, as RAM: total, parts, RAM per arena byte
    print()
    flash_table(store, flash_rows)  # the int8 builds above, as flash: code's and the .pte's parts
    for name, board, text in tables:
        print()
        print(f"{name}, int8, {board}:")
        print(text)
    if own:
        store.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
