"""`make bench`: per example model, the planned arena against its lower bound and against ExecuTorch's planner;
firmware flash, RAM and instructions per inference per board; the runtime core's own flash size."""
from __future__ import annotations

import time
from typing import Optional

import torch

from mcu_export.api import export
from mcu_export.examples import EXAMPLES, spec
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


def firmware_table(artifacts) -> None:
    """Per example per board: flash and RAM from the linker map, instructions per inference from QEMU."""
    import json
    import tempfile
    from pathlib import Path

    from mcu_export.firmware.flow import build_for_board
    from mcu_export.runners import run_model_firmware

    header = f"{'model':<12} {'board':<13} {'flash B':>9} {'code B':>8} {'RAM B':>8} {'instr/inference':>16} {'qemu s':>7}"
    print()
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="mcu-export-bench-") as tmp:
        for name, (artifact, inputs) in artifacts.items():
            out = artifact.save(Path(tmp) / name)
            for board in FIRMWARE_BOARDS:
                build = build_for_board(out, board)
                run = run_model_firmware(build, board, [x.numpy() for x in inputs])
                sizes = json.loads((out / "report.json").read_text())["firmware"][board]
                flash = sizes["flash"]
                code = flash["total"] - flash["categories"]["model_data"]
                print(f"{name:<12} {board:<13} {flash['total']:>9} {code:>8} {sizes['ram']['total']:>8} "
                      f"{run.instructions_per_inference:>16,} {run.seconds:>7.2f}")


def main() -> int:
    from mcu_export.bench_firmware import main as runtime_core_main

    artifacts = {}
    header = f"{'model':<12} {'arena B':>9} {'bound B':>9} {'arena/bound':>11} {'ET B':>9} {'ET/arena':>8} " \
             f"{'export s':>8} {'weights B':>10} {'pte B':>9}"
    print(header)
    print("-" * len(header))
    for name in EXAMPLES:
        model, inputs = load_model(spec(name))
        t0 = time.perf_counter()
        artifact = export(model, inputs)
        artifacts[name] = (artifact, inputs)
        seconds = time.perf_counter() - t0
        mem = artifact.report["memory"]
        et = executorch_planned_bytes(model, inputs)
        et_s = f"{et:>9}" if et is not None else f"{'n/a':>9}"
        ratio = f"{et / mem['arena_bytes']:>8.2f}" if et else f"{'n/a':>8}"
        print(f"{name:<12} {mem['arena_bytes']:>9} {mem['lower_bound_bytes']:>9} "
              f"{mem['arena_over_lower_bound']:>11.3f} {et_s} {ratio} {seconds:>8.2f} "
              f"{mem['constant_bytes']:>10} {artifact.report['pte_bytes']:>9}")
    firmware_table(artifacts)
    print()
    runtime_core_main([])
    print()
    from mcu_export.bench_int8 import main as int8_main

    int8_main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
