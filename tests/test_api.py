"""The Python API as the README shows it: mcu_export.export → Artifact.save / Artifact.run."""

import json

import numpy as np
import pytest
import torch

import mcu_export
from mcu_export.boards import load_board


def test_export_save_run(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.ReLU()).eval()
    x = torch.randn(2, 6)
    artifact = mcu_export.export(model, (x,))
    out = artifact.save(tmp_path / "m")
    assert sorted(p.name for p in out.iterdir()) == ["model.pte", "report.json"]  # no staging folder left
    assert (out / "model.pte").read_bytes() == artifact.pte
    assert json.loads((out / "report.json").read_text())["ops"] == {"aten::addmm.out": 1, "aten::relu.out": 1}
    np.testing.assert_allclose(artifact.run(x)[0], model(x).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_failed_export_leaves_no_folder(tmp_path):
    class Fft(torch.nn.Module):
        def forward(self, x):
            return torch.fft.rfft(x).abs()

    with pytest.raises(mcu_export.McuExportError, match="not supported"):
        mcu_export.export(Fft(), (torch.randn(8),)).save(tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError):
        mcu_export.no_such_thing  # noqa: B018 (the access is the test)


@pytest.mark.slow
def test_int8_scratch_is_sized_for_the_board():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
    x, calib = torch.randn(1, 3, 8, 8), [(torch.randn(1, 3, 8, 8),) for _ in range(2)]
    reports = {
        board: mcu_export.export(model, (x,), quantize="int8", calibrate=calib, board=board).report["int8"]
        for board in ("corstone-300", load_board("mps2-an386"), None)
    }
    assert [(r["board"], r["scratch_sized_for"]) for r in reports.values()] == [
        ("corstone-300", ["mve"]),
        ("mps2-an386", ["dsp"]),
        (None, ["scalar", "dsp", "mve"]),
    ]
    with pytest.raises(mcu_export.McuExportError, match="unknown board 'toaster'"):
        mcu_export.export(model, (x,), quantize="int8", board="toaster")
