"""Running a program on a target, one interface for all (base.Runner): `host` (the C runtime here),
`qemu` and `fvp` (model firmware on a simulator). Each target is a Runner subclass with a `name` in a
module of this package; `targets()` imports them all, so adding a target adds a module and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Type

from mcu_export.errors import UsageError
from mcu_export.runners.base import ModelRun, OpCount, Runner

if TYPE_CHECKING:
    import numpy as np


# The modules of this package that hold no target: targets() leaves them alone, so that listing the targets
# (`mcu-export boards`) costs no numpy or tensor code. tests/test_cli_imports.py keeps this list true.
HELPERS = frozenset({"base", "command", "npu_seam", "npu_wire", "report", "tensors"})


def targets() -> Dict[str, Type[Runner]]:
    """Every target by name, in the order a board picks its default."""
    for module in pkgutil.iter_modules(__path__):
        if module.name not in HELPERS:
            importlib.import_module(f"{__name__}.{module.name}")
    return dict(sorted(Runner.targets.items(), key=lambda item: item[1].rank))


def runner_for(board, target: Optional[str] = None, **options) -> Runner:
    """A runner for `board` (a name or a loaded board) on `target`, by default the first that serves it.
    options: Runner's (timeout, profile)."""
    from mcu_export.boards import load_board

    board = load_board(board)
    known = targets()
    serving = [name for name, cls in known.items() if cls.serves(board)]
    if target is None:
        defaults = [name for name in serving if known[name].by_default]
        if not defaults:
            also = " or a serial link: --sim serial --port PORT" if "serial" in serving else ""
            raise UsageError(
                f"board '{board.name}' has no target to run on here (no simulator in its board file){also}"
            )
        target = defaults[0]
    elif target not in known:
        raise UsageError(f"unknown target '{target}' (valid: {', '.join(known)})")
    elif target not in serving:
        raise UsageError(
            f"board '{board.name}' does not run on {target} (it runs on: {', '.join(serving) or 'no target here'})"
        )
    return known[target](board, **options)


def run_program_bytes(
    pte: bytes, arrays: Sequence[np.ndarray], board: str = "host", report: Optional[Dict] = None
) -> List[np.ndarray]:
    """Outputs of the program `pte` on `inputs`, run on `board`'s default target. With the export's `report`,
    float32 arrays given for int8 inputs (io="int8") are quantized first (Runner.use_quantization)."""
    runner = runner_for(board)
    with tempfile.TemporaryDirectory(prefix="mcu-export-run-") as tmp:
        (Path(tmp) / "model.pte").write_bytes(pte)
        runner.open(Path(tmp))
        if report is not None:
            runner.use_quantization(report)
        return runner.run(arrays).outputs


def run_model_firmware(
    build, board, inputs: Sequence[np.ndarray], *, sim: str = "qemu", timeout: float = 60.0, icount: bool = True
) -> ModelRun:
    """Run built model firmware once on simulator `sim` with `inputs` (the model's logical layout).
    Raises FirmwareTimeout, FirmwareFault (naming the running op), or RuntimeFailure (the UART's error line)."""
    from mcu_export.runners.firmware import FirmwareRunner

    runner = runner_for(board, sim, timeout=timeout, profile=icount)
    assert isinstance(runner, FirmwareRunner)  # every simulator target runs firmware
    return runner.use_build(build).run(inputs)


__all__ = ["ModelRun", "OpCount", "Runner", "run_model_firmware", "run_program_bytes", "runner_for", "targets"]
