"""Issue 13 item 3: int8 model inputs and outputs (`export(..., quantize="int8", io="int8")`, `--io int8`).

The io="int8" program is the io="float" program without its leading cortex_m::quantize_per_tensor and its
trailing cortex_m::dequantize_per_tensor. The assertions that make that exact:
- dequantize is injective on int8 for a positive scale ((q - zp) * scale in float32: two values of q - zp in
  [-255, 255] are at least one scale apart, far above float32's rounding), so "the io=int8 output, dequantized
  on the host with report.json's quantization, equals the io=float output bit for bit" is the same statement
  as "the io=int8 output is the int8 tensor the io=float program dequantizes"; both are asserted;
- the host's quantize of a float32 input (mcu_export.runners.tensors.quantize) is held to the C kernel's
  through a program whose int8 path is the identity (a 1x1 max pool shares its input's quantization): every
  int8 value, halfway cases, values outside the range, +-inf, -0.0 and NaN.
"""

from __future__ import annotations

import copy
import json
import shutil

import numpy as np
import pytest
import torch
from torch import nn

from cli_runner import assert_one_line_error, cli
from mcu_export import cli as mcu_cli
from mcu_export import examples
from mcu_export.api import export
from mcu_export.errors import UsageError
from mcu_export.int8.interpreter import run_reference
from mcu_export.model_spec import load_model
from mcu_export.planner import plan_memory
from mcu_export.runners.tensors import dequantize, quantize

QUANTIZE = "cortex_m::quantize_per_tensor.out"
DEQUANTIZE = "cortex_m::dequantize_per_tensor.out"
NEEDS_FIRMWARE = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs arm-none-eabi-gcc, qemu-system-arm, cmake and ninja",
)


def _batches(shape, n, seed):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.rand(shape, generator=gen),) for _ in range(n)]


def _inputs(shape, seed=5):
    """Float32 inputs for the MLP: in range, out of range (clamped by the quantize) and a few specials."""
    rng = np.random.default_rng(seed)
    plain = rng.random(shape, dtype=np.float32)
    wide = (rng.standard_normal(shape) * 2).astype(np.float32)
    odd = plain.copy().ravel()
    odd[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return [plain, wide, odd.reshape(shape)]


def _nbytes(entry) -> int:
    return int(np.prod(entry["shape"])) * np.dtype(entry["dtype"]).itemsize


def _requantize(y: np.ndarray, q) -> np.ndarray:
    """The int8 tensor the io=float program dequantized into y: (q - zp) * scale is exact to well under half
    a step, so round(y / scale) + zp recovers q."""
    return (np.rint(y.astype(np.float64) / q["scale"]) + q["zero_point"]).astype(np.int8)


@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    model, inputs = load_model(examples.spec("mnist_mlp"))
    calib = _batches(inputs[0].shape, 16, 11)
    out = {}
    for io in ("float", "int8"):
        artifact = export(model, inputs, quantize="int8", calibrate=lambda: iter(calib), io=io)
        out[io] = (artifact, artifact.save(tmp_path_factory.mktemp(f"io-{io}") / "mnist"))
    return out, tuple(inputs[0].shape)


def test_report_and_arena(mnist):
    (af, _), (ai, _) = mnist[0]["float"], mnist[0]["int8"]
    assert af.report["int8"]["io"] == "float" and ai.report["int8"]["io"] == "int8"
    assert af.report["ops"][QUANTIZE] == 1 and af.report["ops"][DEQUANTIZE] == 1
    assert QUANTIZE not in ai.report["ops"] and DEQUANTIZE not in ai.report["ops"]
    assert af.report["kernel_calls"] - ai.report["kernel_calls"] == 2
    fin, fout = af.report["inputs"][0], af.report["outputs"][0]
    iin, iout = ai.report["inputs"][0], ai.report["outputs"][0]
    assert (fin["dtype"], fout["dtype"], iin["dtype"], iout["dtype"]) == ("float32", "float32", "int8", "int8")
    assert "quantization" not in fin and "quantization" not in fout
    assert fin["shape"] == iin["shape"] == [1, 1, 28, 28] and fout["shape"] == iout["shape"] == [1, 10]
    for q in (iin["quantization"], iout["quantization"]):
        assert q["scale"] > 0 and -128 <= q["zero_point"] <= 127 and (q["quant_min"], q["quant_max"]) == (-128, 127)
    # inputs are uniform in [0, 1): the input's range maps [0, 1] onto [-128, 127]
    assert iin["quantization"]["zero_point"] == -128
    assert iin["quantization"]["scale"] == pytest.approx(1 / 255, rel=0.01)
    assert _nbytes(fin) - _nbytes(iin) == 3136 - 784
    # Every tensor apart (overlap=False): the fp32 input and its int8 copy were live together, so the arena
    # shrinks by at least the fp32 input's bytes minus the int8 input's. Measured: 3920 -> 1568.
    apart = [plan_memory(copy.deepcopy(a.program), overlap=False).arena_bytes for a in (af, ai)]
    assert apart[0] - apart[1] >= _nbytes(fin) - _nbytes(iin)
    assert apart == [3920, 1568]
    # With overlaps (the default) the float program's quantize already writes its int8 copy inside the fp32
    # input, so the float arena is the fp32 input alone; io=int8 takes the whole fp32 input out. 3136 -> 1568.
    arenas = [a.report["memory"]["arena_bytes"] for a in (af, ai)]
    assert arenas[0] >= _nbytes(fin) > arenas[1]
    assert arenas == [3136, 1568]
    assert ai.report["memory"]["arena_bytes"] == ai.report["memory"]["lower_bound_bytes"]


def test_host_int8_output_is_the_float_programs_int8(mnist):
    (af, _), (ai, _) = mnist[0]["float"], mnist[0]["int8"]
    qin, qout = ai.report["inputs"][0]["quantization"], ai.report["outputs"][0]["quantization"]
    for x in _inputs(mnist[1]):
        (yf,) = af.run(x)  # C runtime: quantize, kernels, dequantize
        (yi,) = ai.run(x)  # C runtime on the int8 input the host quantized (Artifact.run reads report.json)
        assert yf.dtype == np.float32 and yi.dtype == np.int8
        assert np.array_equal(yi, _requantize(yf, qout))
        assert np.array_equal(dequantize(yi, qout).view(np.uint32), yf.view(np.uint32))
        xq = quantize(x, qin)
        (given,) = ai.run(xq)  # an int8 input passes through
        assert np.array_equal(given, yi)
        assert np.array_equal(run_reference(ai.program, [xq])[0], yi)  # the Python int8 reference agrees


@pytest.mark.slow
def test_host_quantize_equals_the_c_kernel():
    """Through a program whose int8 path is the identity, every input byte shows: host quantize == C quantize."""
    model = nn.MaxPool2d(1).eval()
    calib = [(torch.rand(1, 4, 16, 16) * 2 - 1,) for _ in range(4)]
    af = export(model, calib[0], quantize="int8", calibrate=calib)
    ai = export(model, calib[0], quantize="int8", calibrate=calib, io="int8")
    assert QUANTIZE not in ai.report["ops"] and DEQUANTIZE not in ai.report["ops"]
    q = ai.report["inputs"][0]["quantization"]
    assert ai.report["outputs"][0]["quantization"] == q
    rng = np.random.default_rng(3)
    steps = np.arange(-150, 150, dtype=np.float32)
    values = np.concatenate(
        [
            steps * np.float32(q["scale"]),  # every level and beyond the ends
            (steps + np.float32(0.5)) * np.float32(q["scale"]),  # halfway, as near as float32 gets
            rng.standard_normal(400).astype(np.float32),
            np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e30], np.float32),
        ]
    )[:1024]
    values = np.pad(values, (0, 1024 - values.size)).reshape(1, 4, 16, 16)
    (yf,) = af.run(values)
    (yi,) = ai.run(values)
    assert np.array_equal(yi, quantize(values, q))
    assert np.array_equal(dequantize(yi, q).view(np.uint32), yf.view(np.uint32))
    assert len(np.unique(yi)) == 256  # every int8 value was made


@pytest.mark.slow
def test_run_command_quantizes_float_npy(mnist, tmp_path, capsys):
    (_, float_out), (_, int8_out) = mnist[0]["float"], mnist[0]["int8"]
    x = _inputs(mnist[1], seed=8)[1]
    np.save(tmp_path / "x.npy", x)
    yf, yi = tmp_path / "yf.npz", tmp_path / "yi.npz"
    assert mcu_cli.main(["run", str(float_out), "--input", str(tmp_path / "x.npy"), "--output", str(yf)]) == 0
    argv = [
        "run",
        str(int8_out),
        "--input",
        str(tmp_path / "x.npy"),
        "--output",
        str(yi),
        "--json",
        str(tmp_path / "r.json"),
    ]
    capsys.readouterr()
    assert mcu_cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "input_0: float32 quantized to int8 here" in text
    assert "output_0: int8[1, 10]" in text and "output_0 dequantized, (q - zero_point) * scale" in text
    with np.load(yf) as f, np.load(yi) as i:
        assert sorted(i.files) == ["output_0", "output_0_dequantized"] and f.files == ["output_0"]
        assert i["output_0"].dtype == np.int8 and i["output_0_dequantized"].dtype == np.float32
        assert np.array_equal(i["output_0_dequantized"].view(np.uint32), f["output_0"].view(np.uint32))
        int8_out_0 = i["output_0"]
    run = json.loads((tmp_path / "r.json").read_text())
    report = json.loads((int8_out / "report.json").read_text())
    assert run["outputs"][0]["dtype"] == "int8"
    assert run["outputs"][0]["quantization"] == report["outputs"][0]["quantization"]
    # the same input given in int8 passes through unchanged
    np.save(tmp_path / "xq.npy", quantize(x, report["inputs"][0]["quantization"]))
    assert mcu_cli.main(["run", str(int8_out), "--input", str(tmp_path / "xq.npy"), "--output", str(yi)]) == 0
    assert "quantized to int8 here" not in capsys.readouterr().out
    with np.load(yi) as i:
        assert np.array_equal(i["output_0"], int8_out_0)
    # float64 is neither: one line naming both accepted forms
    np.save(tmp_path / "x64.npy", x.astype(np.float64))
    assert mcu_cli.main(["run", str(int8_out), "--input", str(tmp_path / "x64.npy")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "expects int8[1, 1, 28, 28] (or float32[1, 1, 28, 28], quantized" in err[0]


def test_api_errors():
    model, inputs = nn.Linear(4, 2).eval(), (torch.rand(1, 4),)
    with pytest.raises(UsageError, match="needs an int8 program"):
        export(model, inputs, io="int8")
    with pytest.raises(UsageError, match="io must be 'float' or 'int8', got 'int16'"):
        export(model, inputs, quantize="int8", io="int16")


class FallbackAtTheEnd(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return nn.functional.adaptive_max_pool2d(self.conv(x), 2)  # no int8 kernel: fp32, not dequantized


class InputReadInFloat(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return self.conv(x), nn.functional.adaptive_max_pool2d(x, 2)


@pytest.mark.slow
def test_refusals_name_the_edge_and_the_call():
    x = torch.rand(1, 3, 8, 8)
    with pytest.raises(UsageError) as end:
        export(FallbackAtTheEnd().eval(), (x,), quantize="int8", calibrate=[(x,)], io="int8")
    message = str(end.value)
    assert "\n" not in message and "model output 0" in message
    assert "aten::adaptive_max_pool2d.out" in message and "not dequantized from an int8 value" in message
    with pytest.raises(UsageError) as start:
        export(InputReadInFloat().eval(), (x,), quantize="int8", calibrate=[(x,)], io="int8")
    message = str(start.value)
    assert "\n" not in message and "model input 0 (x)" in message
    assert "read as float32 by aten::adaptive_max_pool2d.out" in message


def test_cli_errors_in_process(tmp_path, capsys):
    for argv, fragment in (
        (["--io", "int8"], "--io int8 goes with --quantize int8"),
        (["--quantize", "int8", "--io", "int16"], "invalid choice: 'int16'"),
    ):
        out = tmp_path / "out"
        assert mcu_cli.main(["export", "examples/mnist_mlp.py:factory", "-o", str(out), *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("mcu-export: error:") and fragment in err[0]
        assert not out.exists()


@pytest.mark.slow
def test_cli_errors_subprocess(tmp_path):
    for argv, fragment in (
        (["--io", "int8"], "--io int8 goes with --quantize int8"),
        (["--quantize", "int8", "--io", "float16"], "argument --io: invalid choice: 'float16'"),
    ):
        result = cli("export", "examples/mnist_mlp.py:factory", "-o", tmp_path / "out", *argv)
        assert_one_line_error(result, fragment)
        assert not (tmp_path / "out").exists()


@pytest.mark.slow
@NEEDS_FIRMWARE
@pytest.mark.parametrize("backend", ["cortex-m", "ethos-u55-128"])
def test_firmware_corstone300(mnist, backend, tmp_path):
    """On QEMU (corstone-300, Cortex-M55; the U55's jobs over the NPU seam): the int8 input in, the int8 output
    out, equal to the host's and to the int8 tensor the float-io program dequantizes, bit for bit."""
    from mcu_export.firmware.flow import build_for_board
    from mcu_export.runners import run_model_firmware

    (af, _), (ai, int8_out) = mnist[0]["float"], mnist[0]["int8"]
    out = int8_out
    if backend != "cortex-m":
        model, inputs = load_model(examples.spec("mnist_mlp"))
        calib = _batches(inputs[0].shape, 16, 11)
        npu = export(model, inputs, quantize="int8", calibrate=lambda: iter(calib), io="int8", backend=backend)
        assert npu.report["ops"] == {} and npu.report["instructions"] == 1  # one delegate call, nothing else
        assert npu.report["inputs"] == ai.report["inputs"] and npu.report["outputs"] == ai.report["outputs"]
        out = npu.save(tmp_path / "npu")
    qin, qout = ai.report["inputs"][0]["quantization"], ai.report["outputs"][0]["quantization"]
    build = build_for_board(out, "corstone-300")
    for x in _inputs(mnist[1])[:2]:
        xq = quantize(x, qin)
        run = run_model_firmware(build, "corstone-300", [xq])
        (device,) = run.outputs
        (host,) = ai.run(xq)
        (yf,) = af.run(x)
        assert device.dtype == np.int8 and np.array_equal(device, host)
        assert np.array_equal(device, _requantize(yf, qout))
        assert run.instructions_per_inference > 0
    ops = {op.op for op in run.per_op}
    assert QUANTIZE not in ops and DEQUANTIZE not in ops
    ram = json.loads((out / "report.json").read_text())["firmware"]["corstone-300"]["ram"]
    assert ram["arenas"] == json.loads((out / "report.json").read_text())["memory"]["arena_bytes"]
