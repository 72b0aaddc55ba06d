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


@pytest.mark.slow
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
    for name in ("aten.cumsum", "aten.atan"):
        assert name in str(err.value)
    assert "aten.erf" not in str(err.value)  # erf has an int8 kernel (a lookup table): the int8 check accepts it


def test_qat_fails_before_training():
    model = ThreeUnsupported().train()
    with pytest.raises(UnsupportedOpError) as err:
        mcu_export.prepare_qat(model, _inputs())
    lines = str(err.value).splitlines()  # the int8 check: erf has a lookup table
    assert lines[0] == "2 operators are not supported:" and "aten.cumsum" in lines[1] and "aten.atan" in lines[2]
    assert model.training  # the check ran on a copy: the user's module is left as it was


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


class AddAlpha(nn.Module):
    """add with alpha != 1: fp32 has the kernel, int8 has none (quantized_add takes alpha 1 only)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return torch.add(y, x, alpha=2.0)


@pytest.mark.slow
def test_int8_fallback_warns_once_per_op_and_fallback_false_refuses():
    from mcu_export.errors import McuExportWarning

    x = torch.randn(2, 8)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        artifact = mcu_export.export(AddAlpha().eval(), (x,), quantize="int8")
    fell = [str(w.message) for w in seen if issubclass(w.category, McuExportWarning) and "fp32" in str(w.message)]
    assert len(fell) == 1 and "aten.add.Tensor" in fell[0] and "AddAlpha.forward" in fell[0]
    assert [fb["op"] for fb in artifact.report["int8"]["fallbacks"]] == ["aten.add.Tensor"]
    with pytest.raises(UnsupportedOpError, match="int8 without fallback refused: int8 aten.add.Tensor"):
        mcu_export.export(AddAlpha().eval(), (x,), quantize="int8", fallback=False)


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
