"""The neural-net ops through the whole path (export → our .pte → the host C runtime) against torch: activations
(leaky_relu, ELU/SELU, GELU both ways), log_softmax, LayerNorm, adaptive max pooling, upsampling, 1-D pools and
transposed convolutions; the int8 path runs the ops it has no int8 kernel for in fp32."""

import warnings

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import mcu_export
from mcu_export.errors import UnsupportedOpError

# Whole-model exports and runs; the kernels themselves are checked in the fast tier (test_kernels_fp32_nn.py).
pytestmark = pytest.mark.slow


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _check(model: nn.Module, *inputs: torch.Tensor, atol=1e-5):
    model = model.eval()
    got = mcu_export.export(model, inputs).run(*inputs)
    with torch.no_grad():
        want = model(*inputs)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=atol)


MODULES_4D = [
    nn.LeakyReLU(0.1),
    nn.ELU(0.5),
    nn.SELU(),
    nn.GELU(),
    nn.GELU("tanh"),
    nn.LogSoftmax(dim=1),
    nn.LayerNorm([6, 7]),
    nn.LayerNorm(7, elementwise_affine=False),
    nn.AdaptiveMaxPool2d((2, 3)),
    nn.AdaptiveMaxPool2d(1),
    nn.Upsample(scale_factor=2),
    nn.Upsample(scale_factor=1.5, mode="bilinear"),
    nn.Upsample(size=(9, 11), mode="bilinear", align_corners=True),
    nn.Upsample(size=(4, 5)),
    nn.UpsamplingNearest2d(scale_factor=3),
    nn.UpsamplingBilinear2d(scale_factor=2),  # align_corners=True
    Fn(lambda x: F.interpolate(x, scale_factor=(0.5, 1.7), mode="bilinear")),
    Fn(lambda x: F.adaptive_max_pool2d(x, 3, return_indices=True)[1].float()),  # the indices as an output
]


@pytest.mark.parametrize("module", MODULES_4D, ids=repr)
def test_module_on_4d_input(module):
    _check(module, _r(2, 4, 6, 7) * 3)


MODULES_3D = [
    nn.MaxPool1d(2),
    nn.MaxPool1d(3, 2, padding=1),
    nn.AvgPool1d(3, 2),
    nn.AvgPool1d(2, padding=1, count_include_pad=False),
    nn.AdaptiveAvgPool1d(4),
    nn.AdaptiveMaxPool1d(4),
    nn.LayerNorm(9),
    nn.GELU(),
]


@pytest.mark.parametrize("module", MODULES_3D, ids=repr)
def test_module_on_3d_input(module):
    _check(module, _r(2, 4, 9))


TRANSPOSED = [
    nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
    nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), dilation=(1, 2), groups=2),
    nn.ConvTranspose2d(4, 4, 4, stride=2, padding=1, groups=4, bias=False),
    nn.ConvTranspose1d(4, 3, 5, stride=3, padding=2, output_padding=2),
    nn.ConvTranspose1d(4, 2, 1),
]


@pytest.mark.parametrize("module", TRANSPOSED, ids=repr)
def test_transposed_convolution(module):
    torch.manual_seed(0)
    x = _r(2, 4, 5, 6) if isinstance(module, nn.ConvTranspose2d) else _r(2, 4, 7)
    module.reset_parameters()  # seeded weights, whatever ran before
    _check(module, x, atol=1e-4)


class ClampByTensors(nn.Module):
    """torch.clamp with tensor bounds (aten.clamp.Tensor): per-channel limits from buffers."""

    def __init__(self):
        super().__init__()
        self.register_buffer("lo", torch.linspace(-1.0, 0.0, 4).reshape(4, 1, 1))
        self.register_buffer("hi", torch.linspace(0.2, 1.5, 4).reshape(4, 1, 1))

    def forward(self, x):
        return torch.clamp(x, self.lo, self.hi) + torch.clamp(x, max=self.hi)


def test_clamp_by_tensors():
    _check(ClampByTensors(), _r(2, 4, 6, 7))


class TinyUNet(nn.Module):
    """Down by a strided conv and a pool, up by a transposed conv and by bilinear upsampling, with a skip."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.norm = nn.LayerNorm([4, 4])
        self.pool = nn.AdaptiveMaxPool2d(2)
        self.up1 = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.up2 = nn.ConvTranspose2d(16, 4, 3, stride=2, padding=1, output_padding=1)
        self.head = nn.Conv2d(4 + 3, 2, 1)

    def forward(self, x):
        d = F.gelu(self.norm(self.down(x)))  # 4x4
        u = F.leaky_relu(self.up1(self.pool(d)), 0.1)  # 2x2 -> 4x4
        u = F.elu(self.up2(torch.cat([u, d], dim=1)))  # 8x8
        u = F.interpolate(u, scale_factor=1.0, mode="nearest")
        return F.log_softmax(self.head(torch.cat([u, x], dim=1)), dim=1)


def test_a_small_segmentation_model():
    torch.manual_seed(0)
    _check(TinyUNet(), _r(1, 3, 8, 8), atol=1e-4)


def test_int8_runs_what_has_no_int8_kernel_in_fp32():
    """No int8 kernel takes an adaptive max pool: it is one fallback warning and runs in fp32 on dequantized
    values between int8 convolutions, close to torch within the quantization error."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveMaxPool2d((3, 2)),
        nn.Conv2d(8, 4, 1),
    ).eval()
    x = _r(1, 3, 6, 6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        artifact = mcu_export.export(model, (x,), quantize="int8")
    fallbacks = [str(w.message) for w in caught if "runs in fp32" in str(w.message)]
    assert len(fallbacks) == 1 and "adaptive_max_pool2d" in fallbacks[0]
    got = artifact.run(x)[0]
    with torch.no_grad():
        want = model(x).numpy()
    assert np.abs(got - want).max() < 0.05 * np.abs(want).max()


def test_a_3d_convolution_is_refused_at_export():
    with pytest.raises(UnsupportedOpError, match=r"^operator aten\.convolution in 3-D"):
        mcu_export.export(nn.ConvTranspose3d(2, 2, 2).eval(), (_r(1, 2, 3, 3, 3),))
