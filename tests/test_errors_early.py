"""Issue 11 item 3: errors that list everything at once, before the slow int8 steps; training-mode warning."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import mcu_export
from mcu_export.errors import UnsupportedOpError


class ThreeUnsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = torch.cumsum(self.conv(x), 1)  # line of cumsum
        y = torch.atan(y)
        y = torch.atan(y)
        return torch.erf(y)


def _inputs():
    return (torch.randn(1, 3, 8, 8),)


def test_fp32_names_every_unsupported_op_with_count_line_and_hint():
    with pytest.raises(UnsupportedOpError) as err:
        mcu_export.export(ThreeUnsupported(), _inputs())
    text = str(err.value)
    lines = text.splitlines()
    assert lines[0] == "3 operators are not supported:"
    assert "aten.cumsum" in lines[1] and "triangular weight of ones" in lines[1]
    assert "test_errors_early.py:" in lines[1] and "ThreeUnsupported.forward" in lines[1]
    assert "aten.atan" in lines[2] and "2 uses" in lines[2]
    assert "aten.erf" in lines[3]


def test_int8_fails_before_calibration():
    called = []

    def calibrate():
        called.append(True)
        yield _inputs()

    with pytest.raises(UnsupportedOpError) as err:
        mcu_export.export(ThreeUnsupported(), _inputs(), quantize="int8", calibrate=calibrate)
    assert not called
    for name in ("aten.cumsum", "aten.atan", "aten.erf"):
        assert name in str(err.value)


def test_training_mode_warns_once_and_exports_in_eval():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    model.train()
    x = torch.randn(1, 4)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        artifact = mcu_export.export(model, (x,))
    texts = [str(w.message) for w in seen if "training mode" in str(w.message)]
    assert len(texts) == 1 and "eval()" in texts[0]
    assert not model.training
    (out,) = artifact.run(x)
    assert torch.allclose(torch.from_numpy(out), model(x), atol=1e-5)


class Bmm(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return torch.bmm(y.unsqueeze(1), y.unsqueeze(2)).flatten(1)


def test_int8_fallback_warns_once_per_op_and_fallback_false_refuses():
    from mcu_export.errors import McuExportWarning

    x = torch.randn(2, 8)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        artifact = mcu_export.export(Bmm().eval(), (x,), quantize="int8")
    fell = [str(w.message) for w in seen if issubclass(w.category, McuExportWarning) and "fp32" in str(w.message)]
    assert len(fell) == 1 and "aten.bmm.default" in fell[0] and "Bmm.forward" in fell[0]
    assert [fb["op"] for fb in artifact.report["int8"]["fallbacks"]] == ["aten.bmm.default"]
    with pytest.raises(UnsupportedOpError, match="int8 without fallback refused: int8 aten.bmm.default"):
        mcu_export.export(Bmm().eval(), (x,), quantize="int8", fallback=False)


def test_firmware_report_names_the_reserved_stack_beside_the_used(tmp_path):
    import json

    from mcu_export.boards import load_board
    from mcu_export.firmware.flow import _record_sizes
    from mcu_export.report_fields import FIELDS

    _record_sizes(tmp_path, load_board("corstone-300"), {"ram": {"stack": 8192}, "flash_bytes": 1})
    entry = json.loads((tmp_path / "report.json").read_text())["firmware"]["corstone-300"]
    assert entry["stack_reserved_bytes"] == 8192 and entry["ram"]["stack"] == 8192  # the old key stays
    assert "reserves" in FIELDS["firmware.BOARD.stack_reserved_bytes"]
    assert "measured" in FIELDS["firmware.BOARD.stack_used_bytes"]
