"""Each operator through the whole path: export → our .pte → the host C runtime, against torch.

The kernels' own tests (test_kernels_fp32.py) call them one by one; these go through capture, passes,
lowering, planning, the writer, the C loader and the executor, so an argument laid out wrongly anywhere fails.
"""

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import front_models as fm
import mcu_export.api
from front_models import Fn


def _check(model: nn.Module, *inputs: torch.Tensor):
    model = model.eval()
    artifact = mcu_export.api.export(model, inputs)
    got = artifact.run(*inputs)
    with torch.no_grad():
        want = model(*inputs)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)
    return artifact


@pytest.mark.parametrize("cls", fm.ALL_MODELS, ids=lambda c: c.__name__)
@pytest.mark.slow
def test_front_models_on_host_runtime(cls):
    model, inputs = fm.make(cls)
    _check(model, *inputs)


def _r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


CONV_CASES = [  # (in_ch, out_ch, kernel, stride, padding, dilation, groups, H, W)
    (3, 8, 3, 1, 1, 1, 1, 9, 9),
    (4, 6, (3, 1), 2, (1, 0), 1, 2, 10, 7),
    (8, 8, 3, 1, 2, 2, 8, 11, 11),  # depthwise, dilated
    (6, 12, (1, 5), (1, 2), (0, 2), 1, 3, 5, 13),
    (2, 4, 1, 1, 0, 1, 1, 4, 4),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=str)
@pytest.mark.slow
def test_conv2d(case):
    cin, cout, k, s, p, d, g, h, w = case
    torch.manual_seed(0)
    _check(nn.Conv2d(cin, cout, k, s, p, d, g), _r(1, cin, h, w))


def test_conv1d():
    torch.manual_seed(0)
    _check(nn.Conv1d(4, 6, 5, stride=2, padding=2), _r(2, 4, 17))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.max_pool2d(x, 3, 2, 1),
        lambda x: F.max_pool2d(x, 2, ceil_mode=True),
        lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        lambda x: F.avg_pool2d(x, 2, ceil_mode=True),
        lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
        lambda x: x.mean(dim=(1, 3), keepdim=True),
        lambda x: x.mean(dim=-1),
        lambda x: F.pad(x, (1, 2, 0, 1)),
        lambda x: F.pad(x, (1, 1, 1, 1), value=0.5),
        lambda x: x.permute(0, 3, 1, 2),
        lambda x: torch.cat([x, x * 2], dim=1),
        lambda x: torch.softmax(x, dim=1),
        lambda x: F.hardswish(x) + F.hardsigmoid(x),
        lambda x: torch.sigmoid(x) * torch.tanh(x),
        lambda x: F.relu6(x) - F.hardtanh(x, -0.5, 0.5) + x.clamp(min=-0.2),
        lambda x: x.flatten(1),
    ],
    ids=lambda f: f.__code__.co_firstlineno,
)
@pytest.mark.slow
def test_single_ops(fn):
    _check(Fn(fn), _r(2, 3, 7, 9))


@pytest.mark.parametrize("a, b", [((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1,), (2, 3)), ((5, 1, 1), (1, 6, 7))])
def test_broadcasting_binary_ops(a, b):
    _check(Fn(lambda x, y: (x + y) * (x - y) / (y * y + 1)), _r(*a, seed=1), _r(*b, seed=2))


@pytest.mark.slow
def test_matmuls():
    _check(Fn(lambda x, y: torch.bmm(x, y)), _r(2, 3, 4), _r(2, 4, 5, seed=1))
    _check(Fn(lambda x, y: x @ y), _r(3, 4), _r(4, 5, seed=1))
    torch.manual_seed(0)
    _check(nn.Linear(7, 3), _r(5, 7))


def test_float64_arithmetic_is_refused_at_export():
    from mcu_export.errors import UnsupportedOpError

    class Float64(nn.Module):
        def forward(self, x):
            return x.to(torch.float64) * 2

    model, inputs = Float64(), (_r(2, 3),)
    with pytest.raises(
        UnsupportedOpError, match=r"aten\.mul\.Tensor is not supported for float64 \(supported: float32\)"
    ):
        mcu_export.api.export(model, inputs)
