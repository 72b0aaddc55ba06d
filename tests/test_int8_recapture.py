"""The int8 re-capture (mcu_export/int8/prepare.py: recapture) skips torch's decompositions when the converted
graph calls only operators of the graph it was prepared from, plus quantize/dequantize: the program must be the one
the decompositions give, byte for byte, and a graph they would change must still go through them."""

import pytest
import torch
from torch import nn

import mcu_export.api
from mcu_export.int8 import prepare


class PoolNet(nn.Module):
    """A max pool: its capture has an indices output nobody reads, which the decompositions' retrace drops and a
    user-visible check refuses to keep (`its indices are used`)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.fc = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))


def _export(monkeypatch, skip_allowed: bool):
    torch.manual_seed(0)
    model, x = PoolNet().eval(), torch.randn(1, 3, 8, 8)
    retraces = []
    original = torch.export.ExportedProgram.run_decompositions
    monkeypatch.setattr(
        torch.export.ExportedProgram,
        "run_decompositions",
        lambda self, *a, **k: retraces.append(1) or original(self, *a, **k),
    )
    if not skip_allowed:
        monkeypatch.setattr(prepare, "_only_decomposed_ops", lambda *_a: False)
    calibration = [(torch.randn(1, 3, 8, 8),) for _ in range(4)]
    artifact = mcu_export.api.export(model, (x,), quantize="int8", calibrate=calibration, fallback=False)
    monkeypatch.undo()
    return artifact.pte, len(retraces)


def test_skipping_the_decompositions_gives_the_same_program(monkeypatch):
    skipped, retraces_skipped = _export(monkeypatch, skip_allowed=True)
    full, retraces_full = _export(monkeypatch, skip_allowed=False)
    assert retraces_full == retraces_skipped + 1  # the re-capture's decompositions were the one left out
    assert skipped == full


def test_an_operator_the_prepared_graph_lacks_goes_through_the_decompositions():
    class Plain(nn.Module):
        def forward(self, x):
            return torch.relu(x) + 1

    x = (torch.randn(2, 4),)
    decomposed = prepare.capture_keeping_linear(Plain(), x)

    class Other(nn.Module):
        def forward(self, x):
            return torch.sigmoid(x)

    ep = torch.export.export(Other(), x, strict=False)
    assert not prepare._only_decomposed_ops(ep, decomposed)
    assert prepare._only_decomposed_ops(torch.export.export(Plain(), x, strict=False), decomposed)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
