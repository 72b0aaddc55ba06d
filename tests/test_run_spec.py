"""`mcu-export run MODEL_SPEC`: export, build and run in one command (issue 16), re-exporting only when the
model's code or weights, or the export options, changed (OUT/export.sha256)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cli_runner import assert_one_line_error, cli

MODEL = """
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 3)

    def forward(self, x):
        return torch.relu(self.fc(x)) * SCALE


def factory():
    torch.manual_seed(0)
    return Net().eval(), (torch.randn(1, 6),)
"""


def _write_model(path, scale: float) -> None:
    path.write_text(f"SCALE = {scale}\n" + MODEL)


def _expected(scale: float, x: np.ndarray) -> np.ndarray:
    torch.manual_seed(0)
    fc = torch.nn.Linear(6, 3)
    return (torch.relu(fc(torch.from_numpy(x))) * scale).detach().numpy()


@pytest.mark.slow
def test_run_spec_exports_once_and_again_when_the_model_changes(tmp_path):
    spec = tmp_path / "net.py"
    out = tmp_path / "out"
    x = np.random.default_rng(1).standard_normal((1, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)

    def run(*extra):
        got = tmp_path / "y.npz"
        r = cli("run", f"{spec}:factory", "--out", out, "--input", tmp_path / "x.npy", "--output", got, *extra)
        assert r.code == 0, r.err
        return r, np.load(got)["output_0"]

    _write_model(spec, 2.0)
    first, y = run()
    assert "reusing" not in first.err and (out / "export.sha256").is_file()
    np.testing.assert_allclose(y, _expected(2.0, x), rtol=1e-6, atol=1e-6)
    pte = (out / "model.pte").stat().st_mtime_ns

    again, y = run()
    assert "unchanged since the export" in again.err
    assert (out / "model.pte").stat().st_mtime_ns == pte  # not rewritten
    np.testing.assert_allclose(y, _expected(2.0, x), rtol=1e-6, atol=1e-6)

    _write_model(spec, 3.0)  # the model's code changed: a new export, new outputs
    edited, y = run()
    assert "reusing" not in edited.err
    np.testing.assert_allclose(y, _expected(3.0, x), rtol=1e-6, atol=1e-6)

    options, _ = run("--no-overlap")  # other export options: a new export
    assert "reusing" not in options.err


@pytest.mark.slow
def test_export_options_need_a_model_spec(tmp_path):
    (tmp_path / "model.pte").write_bytes(b"")
    r = cli("run", tmp_path, "--quantize", "int8")
    assert_one_line_error(r, "go with a MODEL_SPEC")
    r = cli("run", "examples/mnist_mlp.py:factory", "--calibrate", "x.py:f")
    assert_one_line_error(r, "--calibrate goes with --quantize int8")
