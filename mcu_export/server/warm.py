"""The server's warm-up: import what `export` and `run` import, then export one small model in int8 for the
embedded default board, so that torch's first-call set-up (dispatch tables, fake tensors, decompositions), PT2E,
Vela and the report's matplotlib are ready before the first command forks."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

BOARD = "corstone-300"


def _small_model():
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.Conv2d(4, 4, 3, padding=1, groups=4),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(4, 3),
        nn.Softmax(dim=-1),
    ).eval()
    return model, (torch.randn(1, 1, 8, 8),)


def warm_up(say=print) -> int:
    """Import and exercise the export path with one intra-op thread: a fork after OpenMP has started its threads
    hangs in the child's first parallel op. Returns the thread count a worker should restore."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    started = time.monotonic()
    import mcu_export.cli  # noqa: F401  (what every command imports first)
    from mcu_export.api import export
    from mcu_export.report import report_after
    from mcu_export.runners.command import run_command  # noqa: F401

    model, inputs = _small_model()
    with tempfile.TemporaryDirectory(prefix="mcu-export-warm-") as tmp:
        export(model, inputs, quantize="int8", board=BOARD).save(Path(tmp))
        report_after(Path(tmp), say=lambda text: None, warn=lambda text: say(f"warm-up: {text}"))
    say(f"warm in {time.monotonic() - started:.1f} s ({len(sys.modules)} modules)")
    return threads
