"""CmsisNNQuantizer: what the converted graph holds (per-channel weights, shared and fixed parameters,
folded activations), calibration inputs and their errors, degenerate ranges."""

import warnings

import pytest
import torch
from torch import nn

from mcu_export.errors import UsageError
from mcu_export.int8 import qspecs
from mcu_export.int8.lower import match
from mcu_export.int8.prepare import quantize
from mcu_export.passes.graph_utils import constant_value

qd = torch.ops.quantized_decomposed
aten = torch.ops.aten


def _calib(shape, n=4, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randn(shape, generator=gen),) for _ in range(n)]


def _nodes(ep, target):
    return [n for n in ep.graph_module.graph.nodes if n.op == "call_function" and n.target == target]


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.fc = nn.Linear(6 * 4 * 4, 5)

    def forward(self, x):
        y = nn.functional.relu6(self.conv(x))
        y = nn.functional.max_pool2d(y, 2).flatten(1)
        return torch.softmax(self.fc(y), dim=-1)


@pytest.fixture(scope="module")
def convnet():
    model = ConvNet().eval()
    return quantize(model, (torch.randn(1, 3, 8, 8),), _calib((1, 3, 8, 8)))


def test_conv_weights_per_channel_symmetric(convnet):
    conv = _nodes(convnet.ep, aten.convolution.default)[0]
    w = conv.args[1]
    assert w.target == qd.dequantize_per_channel.default
    assert (w.args[3], w.args[4], w.args[5], w.args[6]) == (0, -127, 127, torch.int8)
    scales = constant_value(convnet.ep, w.args[1])
    assert scales.numel() == 6 and len(set(scales.tolist())) > 1
    bias = conv.args[2]
    assert bias.target == qd.dequantize_per_channel.default and bias.args[6] == torch.int32


def test_linear_weights_per_channel_symmetric(convnet):
    linear = _nodes(convnet.ep, aten.linear.default)[0]
    w = linear.args[1]
    # CMSIS-NN's scheme: per-channel symmetric weights for linear as for conv (one scale per output row).
    assert w.target == qd.dequantize_per_channel.default and w.args[3] == 0
    scales = constant_value(convnet.ep, w.args[1])
    assert scales.numel() == linear.meta["val"].shape[-1] and len(set(scales.tolist())) > 1
    assert w.args[-3:] == (-127, 127, torch.int8)


def test_linear_weights_per_tensor_option():
    from mcu_export.int8.quantizer import CmsisNNQuantizer

    assert CmsisNNQuantizer(per_channel_linear=False).per_channel_linear is False


def test_activation_folded_into_conv_output(convnet):
    conv = _nodes(convnet.ep, aten.convolution.default)[0]
    (act,) = conv.users  # no quantize between conv and relu6 ...
    assert act.target == aten.hardtanh.default
    (q,) = act.users  # ... the output is observed after it
    assert match.is_q(q) and q.args[3:] == (-128, 127, torch.int8)


def test_pool_and_view_share_input_qparams(convnet):
    pool = _nodes(convnet.ep, aten.max_pool2d_with_indices.default)[0]
    before = match.qparams(pool.args[0])
    getitem = next(iter(pool.users))
    after = match.qparams(next(iter(getitem.users)))
    assert before == after
    view = _nodes(convnet.ep, aten.view.default)[0]
    assert match.qparams(view.args[0]) == match.qparams(next(iter(view.users)))


def test_softmax_output_fixed(convnet):
    softmax = _nodes(convnet.ep, aten._softmax.default)[0]
    (q,) = softmax.users
    assert match.qparams(q) == match.QParams(1.0 / 256, -128)


@pytest.mark.slow
def test_without_calibration_warns_not_representative():
    model = ConvNet().eval()
    messages = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quantize(model, (torch.randn(1, 3, 8, 8),), None, progress=messages.append)
    assert any("not representative" in str(w.message) for w in caught)
    assert any("not representative" in m for m in messages)


def test_calibration_batches_of_wrong_shape_name_function_index_and_shapes():
    def my_calibration():
        yield (torch.randn(1, 3, 8, 8),)
        yield (torch.randn(1, 3, 9, 8),)

    with pytest.raises(UsageError) as err:
        quantize(ConvNet().eval(), (torch.randn(1, 3, 8, 8),), my_calibration)
    text = str(err.value)
    assert "\n" not in text
    assert "my_calibration" in text and "input 0" in text and "batch 1" in text
    assert "[1, 3, 9, 8]" in text and "[1, 3, 8, 8]" in text


@pytest.mark.slow
def test_calibration_iterable_and_count():
    q = quantize(ConvNet().eval(), (torch.randn(1, 3, 8, 8),), _calib((1, 3, 8, 8), n=5))
    assert q.calibration_batches == 5 and not q.warnings


class ZeroBranch(nn.Module):
    """An all-zero intermediate tensor: its observed range is [0, 0]."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 1)
        with torch.no_grad():
            self.conv.weight.zero_()
            self.conv.bias.zero_()

    def forward(self, x):
        return self.conv(x) + x.mean(dim=1, keepdim=True)


@pytest.mark.slow
def test_degenerate_range_gets_floored_scale_and_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        q = quantize(ZeroBranch().eval(), (torch.randn(1, 2, 4, 4),), _calib((1, 2, 4, 4)))
    assert any("single-valued range" in str(w.message) for w in caught)
    scales = [match.qparams(n).scale for n in q.ep.graph_module.graph.nodes if match.is_q(n)]
    assert all(s >= qspecs.ACT_MIN_SCALE * 0.999 for s in scales) and min(scales) > 0
    # The zero branch still computes zero.
    conv = _nodes(q.ep, aten.convolution.default)[0]
    out_q = next(iter(conv.users))
    assert match.qparams(out_q).scale == pytest.approx(qspecs.ACT_MIN_SCALE, rel=1e-6)
