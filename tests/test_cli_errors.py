"""Issue 11 item 3 on the command line: unsupported ops as one block, fallbacks as warning lines and
--no-fallback, --input X.npz, input errors exit 2, report.json's field descriptions, the ops table's paths."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from cli_runner import cli

# Each test runs the CLI in a subprocess (torch imported each time): slow-only, as the README's fast tier says.
pytestmark = pytest.mark.slow

FALLS_BACK = """
import torch
from torch import nn
from torch.nn import functional as F

class FB(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return F.adaptive_max_pool2d(y.view(2, 1, 2, 4), (1, 2)).flatten(1)

def factory():
    return FB(), (torch.randn(2, 8),)
"""

UNSUPPORTED = """
import torch
from torch.nn import functional as F

class Net(torch.nn.Module):
    def forward(self, x):
        y = torch.cumsum(x, 1)
        y = torch.erf(torch.atan(y))
        return torch.sin(y)

def factory():
    return Net(), (torch.randn(1, 8),)
"""

TWO_INPUTS = """
import torch

class Add(torch.nn.Module):
    def forward(self, a, b):
        return torch.relu(a) + b

def factory():
    return Add(), (torch.randn(2, 3), torch.randn(2, 3))
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_unsupported_ops_are_one_block_exit_2(tmp_path):
    path = _write(tmp_path, "net.py", UNSUPPORTED)
    result = cli("export", f"{path}:factory", "-o", tmp_path / "out")
    assert result.code == 2 and "Traceback" not in result.err, result.err
    block = result.err.split("mcu-export: error: ", 1)[1].splitlines()
    assert block[0] == "4 operators are not supported:"
    assert all("net.py:" in line for line in block[1:5])
    assert "aten.cumsum" in block[1] and "triangular weight of ones" in block[1]


@pytest.mark.slow  # quantizes a model twice through the CLI
def test_int8_fallback_is_one_warning_line_and_no_fallback_refuses(tmp_path):
    path = _write(tmp_path, "fb.py", FALLS_BACK)
    result = cli("export", f"{path}:factory", "-o", tmp_path / "out", "--quantize", "int8")
    assert result.code == 0, result.err
    warned = [line for line in result.err.splitlines() if "runs in fp32" in line]
    assert warned == [
        "mcu-export: warning: int8 aten.adaptive_max_pool2d.default at fb.py:13 in FB.forward runs in fp32: "
        "no int8 kernel for aten.adaptive_max_pool2d.default"
    ]
    assert "McuExportWarning" not in result.err
    assert result.err.count("not representative") == 1  # the calibration warning, once
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["kernel_calls"] == sum(report["ops"].values()) and "kernel_calls" in report["fields"]
    refused = cli("export", f"{path}:factory", "-o", tmp_path / "out2", "--quantize", "int8", "--no-fallback")
    assert refused.code == 2 and "Traceback" not in refused.err
    assert "int8 without fallback refused: int8 aten.adaptive_max_pool2d.default" in refused.err
    assert not (tmp_path / "out2").exists()


@pytest.fixture(scope="module")
def two_inputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("npz")
    path = _write(tmp, "add.py", TWO_INPUTS)
    result = cli("export", f"{path}:factory", "-o", tmp / "out")
    assert result.code == 0, result.err
    return tmp


def test_run_takes_one_npz_for_all_inputs(two_inputs):
    a, b = np.full((2, 3), -1.0, np.float32), np.full((2, 3), 2.0, np.float32)
    np.savez(two_inputs / "named.npz", input_1=b, input_0=a)  # numbered keys: by number, not file order
    np.savez(two_inputs / "plain.npz", a, b)
    for name in ("named.npz", "plain.npz"):
        y = two_inputs / f"y_{name}"
        result = cli("run", two_inputs / "out", "--input", two_inputs / name, "--output", y)
        assert result.code == 0, result.err
        np.testing.assert_allclose(np.load(y)["output_0"], np.full((2, 3), 2.0))


@pytest.mark.parametrize(
    "make, fragment",
    [
        (lambda d: [np.save(d / "w.npy", np.zeros((3, 3), np.float32)), d / "w.npy"][1], "expects float32[2, 3]"),
        (lambda d: [np.save(d / "x.npy", np.zeros((2, 3), np.float32)), d / "x.npy"][1], "takes 2 input(s), got 1"),
        (lambda d: [np.savez(d / "one.npz", np.zeros((2, 3), np.float32)), d / "one.npz"][1], "takes 2 input(s)"),
        (lambda d: [(d / "bad.npz").write_text("junk"), d / "bad.npz"][1], "not a readable .npz"),
        (lambda d: d / "missing.npz", "not found"),
        (lambda d: [np.savez(d / "i64.npz", np.zeros((2, 3), np.int64), np.zeros((2, 3))), d / "i64.npz"][1], "int64"),
    ],
)
def test_run_input_errors_are_one_line_exit_2(two_inputs, make, fragment):
    path = make(two_inputs)
    twice = ["--input", path] if path.suffix == ".npy" and path.name != "x.npy" else []  # right count, bad array
    result = cli("run", two_inputs / "out", "--input", path, *twice)
    assert result.code == 2, result.err
    errors = [line for line in result.err.splitlines() if line.startswith("mcu-export: error:")]
    assert len(errors) == 1 and fragment in errors[0], result.err


def test_ops_says_which_isa_paths_and_boards():
    result = cli("ops")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    add = next(line for line in lines if line.startswith("cortex_m::quantized_add.out "))
    assert "cortex-m:scalar+dsp+mve" in add
    assert "portable:all" in next(line for line in lines if line.startswith("aten::addmm.out "))
    mve = next(line for line in lines if line.strip().startswith("mve "))
    assert "corstone-300" in mve
