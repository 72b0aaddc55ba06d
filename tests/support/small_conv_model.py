"""The small int8 conv the Ethos-U85 tests export through the CLI (test_runtime_ethosu85.py on the host,
test_firmware_ethosu85.py for corstone-320): a model file, as a user writes one, and its input's shape."""

from __future__ import annotations

from pathlib import Path

INPUT_SHAPE = (1, 3, 8, 8)

MODEL = """
import torch


class SmallConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


def factory():
    torch.manual_seed(0)
    return SmallConv().eval(), (torch.randn(1, 3, 8, 8),)
"""


def model_spec(folder: Path) -> str:
    """Writes the model file into `folder`: the MODEL_SPEC to give `mcu-export export`."""
    path = folder / "small_conv.py"
    path.write_text(MODEL)
    return f"{path}:factory"
