"""int8 transposed convolution. A stride-1 one is the convolution with the flipped, channel-swapped kernel
(CMSIS-NN's own "reverse convolution"), lowered to quantized_conv2d: the identity is held to torch in float, the
program on the host C runtime is bit for bit the int8 interpreter's, and within a quantization step of PT2E's
fake-quantized model. Strided and output-padded ones run as quantized_transpose_conv2d
(tests/test_int8_transposed_conv_strided.py); grouped ones, and strided dilated ones, stay in fp32."""

import warnings

import numpy as np
import pytest
import torch
from torch import nn

from mcu_export.int8.interpreter import run_reference
from mcu_export.int8.lower import match
from mcu_export.int8.pipeline import to_int8_program
from mcu_export.int8.transposed_conv import as_convolution
from mcu_export.pte.writer import write_program
from mcu_export.runners import run_program_bytes
from tiers import fast_first

CONV = "cortex_m::quantized_conv2d.out"


@pytest.mark.parametrize(
    "c_in, c_out, kernel, padding, dilation",
    [(3, 4, 3, 0, 1), (3, 4, 3, 1, 1), (2, 5, (3, 2), (2, 0), (1, 2)), (4, 4, 1, 0, 1), (2, 3, 5, 2, 3)],
)
def test_stride_one_transposed_convolution_is_this_convolution(c_in, c_out, kernel, padding, dilation):
    torch.manual_seed(0)
    tconv = nn.ConvTranspose2d(c_in, c_out, kernel, padding=padding, dilation=dilation)
    x = torch.randn(2, c_in, 6, 7)
    w, pad = as_convolution(tconv.weight.detach(), tconv.padding, tconv.dilation)
    got = torch.nn.functional.conv2d(x, w, tconv.bias, padding=pad, dilation=tconv.dilation)
    torch.testing.assert_close(got, tconv(x).detach(), rtol=1e-5, atol=1e-5)


class Decoder(nn.Module):
    def __init__(self, up: nn.Module, relu: bool):
        super().__init__()
        self.conv, self.up, self.relu = nn.Conv2d(3, 6, 3, padding=1), up, relu

    def forward(self, x):
        y = self.up(torch.relu(self.conv(x)))
        return torch.relu(y) if self.relu else y


INT8_CASES = {
    "k3": (lambda: nn.ConvTranspose2d(6, 4, 3), False),
    "k3_pad1_relu": (lambda: nn.ConvTranspose2d(6, 4, 3, padding=1), True),
    "k3x2_dilated": (lambda: nn.ConvTranspose2d(6, 5, (3, 2), padding=(2, 1), dilation=(2, 3)), False),
    "k1_no_bias": (lambda: nn.ConvTranspose2d(6, 8, 1, bias=False), True),
}


def _calib(n, seed):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randn(1, 3, 6, 7, generator=gen),) for _ in range(n)]


@pytest.fixture(scope="module", params=fast_first(sorted(INT8_CASES), keep=2))
def lowered(request):
    factory, relu = INT8_CASES[request.param]
    torch.manual_seed(4)
    model = Decoder(factory(), relu).eval()
    calib = _calib(8, 1)
    program, info, _plan, quantized = to_int8_program(model, calib[0], calibrate=calib)
    return model, program, info, quantized


def _ops(program):
    plan = program.execution_plan[0]
    return [plan.operators[i.op_index].qualified for i in plan.chains[0].instructions]


def test_runs_as_an_int8_convolution(lowered):
    _model, program, info, _q = lowered
    assert info.fallbacks == []
    assert _ops(program).count(CONV) == 2 and "aten::convolution.out" not in _ops(program)


def test_host_c_equals_reference_and_fake_quant(lowered):
    model, program, _info, quantized = lowered
    out = next(n for n in quantized.ep.graph_module.graph.nodes if n.op == "output").args[0][0]
    scale = match.qparams(out).scale
    pte_bytes = write_program(program)
    for (x,) in _calib(3, 9):
        ours = run_reference(program, [x])[0]
        c_out = np.asarray(run_program_bytes(pte_bytes, [x.numpy()], board="host")[0])
        assert np.array_equal(c_out.view(np.uint32), ours.view(np.uint32))
        fake = quantized.converted(x).detach().numpy()
        assert np.mean(np.abs(ours - fake) <= scale * 1.001) > 0.99, np.abs(ours - fake).max() / scale
        with torch.no_grad():
            want = model(x).numpy()
        assert np.abs(ours - want).max() < 0.05 * np.abs(want).max() + 4 * scale


@pytest.mark.parametrize(
    "up",
    [
        lambda: nn.ConvTranspose2d(6, 4, 3, groups=2),
        lambda: nn.ConvTranspose2d(6, 4, 3, stride=2, dilation=2),
    ],
    ids=["grouped", "strided_dilated"],
)
@pytest.mark.slow
def test_other_transposed_convolutions_fall_back_to_fp32(up):
    torch.manual_seed(4)
    model = Decoder(up(), False).eval()
    calib = _calib(8, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program, info, _plan, _q = to_int8_program(model, calib[0], calibrate=calib)
    assert len(info.fallbacks) == 1 and "convolution" in info.fallbacks[0]["op"]
    assert "no int8 kernel" in info.fallbacks[0]["reason"]
    assert "aten::convolution.out" in _ops(program)
    (x,) = calib[-1]
    ours = np.asarray(run_program_bytes(write_program(program), [x.numpy()], board="host")[0])
    with torch.no_grad():
        want = model(x).numpy()
    assert np.abs(ours - want).max() < 0.05 * np.abs(want).max()
