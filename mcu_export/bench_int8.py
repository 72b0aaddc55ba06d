"""int8 against fp32 per example model and board: instructions per inference, arena, code, per-op tables.

Calibration uses 16 random batches shaped like each example's input (the examples ship no dataset), so
the figures measure cost, not accuracy; accuracy is asserted in tests/test_int8_models.py."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import torch

from mcu_export.api import export
from mcu_export.examples import EXAMPLES, spec
from mcu_export.firmware.flow import build_for_board
from mcu_export.firmware.model_run import format_per_op_table, run_model_firmware
from mcu_export.model_spec import load_model

BOARDS = {"mps2-an505": "cortex-m33", "mps2-an386": "cortex-m4", "corstone-300": "cortex-m55"}


def _calibration(name: str, like: torch.Tensor):
    gen = torch.Generator().manual_seed(0)
    draw = torch.rand if name == "mnist_mlp" else torch.randn
    return [(draw(like.shape, generator=gen),) for _ in range(16)]


def _run(artifact, out: Path, board: str, x):
    artifact.save(out)
    run = run_model_firmware(build_for_board(out, board), board, [x])
    sizes = json.loads((out / "report.json").read_text())["firmware"][board]
    code = sizes["flash"]["total"] - sizes["flash"]["categories"]["model_data"]
    return run, code


def main() -> int:
    header = (f"{'model':<12} {'board':<13} {'cpu':<11} {'int8 instr':>12} {'fp32 instr':>12} {'fp32/int8':>9} "
              f"{'arena8 B':>9} {'arena32 B':>9} {'code8 B':>8} {'code32 B':>8}")
    print(header)
    print("-" * len(header))
    tables = []
    with tempfile.TemporaryDirectory(prefix="mcu-export-bench-int8-") as tmp:
        for name in EXAMPLES:
            model, inputs = load_model(spec(name))
            calib = _calibration(name, inputs[0])
            fp32 = export(model, inputs)
            x = inputs[0].numpy()
            for board, cpu in BOARDS.items():
                int8 = export(model, inputs, quantize="int8", calibrate=lambda: iter(calib), cpu=cpu)  # noqa: B023 (called here)
                run8, code8 = _run(int8, Path(tmp) / name / board / "int8", board, x)
                run32, code32 = _run(fp32, Path(tmp) / name / board / "fp32", board, x)
                i8, i32 = run8.instructions_per_inference, run32.instructions_per_inference
                print(f"{name:<12} {board:<13} {cpu:<11} {i8:>12,} {i32:>12,} {i32 / i8:>9.2f} "
                      f"{int8.report['memory']['arena_bytes']:>9} {fp32.report['memory']['arena_bytes']:>9} "
                      f"{code8:>8} {code32:>8}")
                if board == "corstone-300":
                    tables.append((name, board, format_per_op_table(run8)))
    for name, board, table in tables:
        print()
        print(f"{name}, int8, {board}:")
        print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
