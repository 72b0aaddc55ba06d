"""Each graph pass on a real small model: the graph changes as intended and still computes the same."""

import inspect
import os

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import front_models as fm
from mcu_export.capture import capture
from mcu_export.errors import UnsupportedOpError
from mcu_export.passes import PASSES, POST_QUANT_PASSES, PRE_QUANT_PASSES, check_supported, run_passes
from mcu_export.passes.decompose_hard_activations import decompose_hard_activations
from mcu_export.passes.fold_batch_norm import fold_batch_norm, fold_linear_batch_norm
from mcu_export.passes.fold_constants import fold_constants, fold_float_constants
from mcu_export.passes.fold_finite_guards import fold_finite_guards
from mcu_export.passes.remove_noops import remove_noops, remove_noops_keeping_layout
from mcu_export.passes.scalars_to_tensors import scalars_to_tensors


def _calls(ep):
    return [n for n in ep.graph_module.graph.nodes if n.op == "call_function"]


def _targets(ep):
    return [str(n.target) for n in _calls(ep)]


def _same_outputs(ep, model, inputs, atol=1e-6):
    with torch.no_grad():
        got, want = ep.module()(*inputs), model(*inputs)
    got = got if isinstance(got, (tuple, list)) else [got]
    want = want if isinstance(want, (tuple, list)) else [want]
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=0, atol=atol)


class NoOps(nn.Module):
    def forward(self, x):
        a = x.clone().detach()
        b = F.dropout(a, 0.3, training=False)
        c = b.expand(2, 3) + torch.ops.aten.alias(b)
        d = c.to(torch.float32).contiguous()
        return d.transpose(0, 1).contiguous()


def test_remove_noops():
    model, x = NoOps(), (torch.randn(2, 3),)
    ep = capture(model, x)
    before = _targets(ep)
    assert any(t in before for t in ("aten.clone.default", "aten.alias.default", "aten.expand.default"))
    remove_noops(ep)
    after = _targets(ep)
    assert after == ["aten.add.Tensor", "aten.permute.default"]
    _same_outputs(ep, model, x, atol=0)


class ViewAfterTranspose(nn.Module):
    def forward(self, x):
        return x.transpose(1, 2).reshape(2, 12) + x.clone().reshape(2, 12)  # a layout clone, and one of no use


@pytest.mark.slow
def test_remove_noops_keeping_layout_keeps_the_clone_a_view_needs():
    """The int8 path calibrates on the graph in torch: a view of a transposed value needs its clone."""
    model, x = ViewAfterTranspose(), (torch.randn(2, 3, 4),)
    ep = capture(model, x)
    remove_noops_keeping_layout(ep)
    assert _targets(ep).count("aten.clone.default") == 1
    _same_outputs(ep, model, x, atol=0)
    ep = capture(model, x)
    remove_noops(ep)
    assert "aten.clone.default" not in _targets(ep)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        ep.module()(*x)  # what calibration ran into


class SharedConv(nn.Module):
    """The conv output feeds the BN and something else: folding would lose the unnormalised value."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        fm.randomise_bn(self.bn)

    def forward(self, x):
        y = self.conv(x)
        return self.bn(y) + y


def test_fold_batch_norm_only_when_conv_has_no_other_user():
    torch.manual_seed(0)
    model, x = SharedConv().eval(), (torch.randn(1, 2, 6, 6),)
    ep = capture(model, x)
    fold_batch_norm(ep)
    assert "aten._native_batch_norm_legit_no_training.default" in _targets(ep)
    _same_outputs(ep, model, x)


def test_fold_batch_norm_without_conv_bias():
    model, x = fm.make(fm.SmallCnn)  # conv2 has bias=False
    ep = capture(model, x)
    fold_batch_norm(ep)
    assert not any("batch_norm" in t for t in _targets(ep))
    convs = [n for n in _calls(ep) if n.target == torch.ops.aten.convolution.default]
    assert all(c.args[2] is not None for c in convs)
    # The original BN parameters and buffers are gone from the program.
    assert not any(k.startswith("bn") for k in ep.state_dict)
    _same_outputs(ep, model, x, atol=1e-5)


class Scalars(nn.Module):
    def forward(self, x):
        return (x + 3) * 0.5 - 1, 2 - x, x / 4, torch.add(x, 2, alpha=3)


@pytest.mark.slow
def test_scalars_to_tensors():
    model, x = Scalars(), (torch.randn(3, 2),)
    ep = capture(model, x)
    scalars_to_tensors(ep)
    for node in _calls(ep):
        assert all(isinstance(a, torch.fx.Node) for a in node.args[:2]), node.format_node()
        assert node.target in (
            torch.ops.aten.add.Tensor,
            torch.ops.aten.sub.Tensor,
            torch.ops.aten.mul.Tensor,
            torch.ops.aten.div.Tensor,
        )
    consts = [v for v in ep.constants.values() if v.dim() == 0]
    assert consts and all(c.dtype == torch.float32 for c in consts)
    _same_outputs(ep, model, x, atol=0)


def test_fold_constants_folds_the_linear_weight_transpose():
    model, x = fm.make(fm.Mlp)
    ep = capture(model, x)
    assert _targets(ep).count("aten.permute.default") == 3
    fold_constants(ep)
    assert "aten.permute.default" not in _targets(ep)
    assert not any(k.endswith("weight") for k in ep.state_dict)  # replaced by the folded constants
    # A contiguous transposed weight changes the matmul's summation order, not its value.
    _same_outputs(ep, model, x, atol=1e-6)


def test_decompose_hard_activations_writes_portable_ops_with_torchs_values():
    model, x = fm.make(fm.Activations)
    x = (torch.linspace(-5, 5, 10001).reshape(1, -1),)  # both kinks, and the exact points -3 and 3
    ep = capture(model, x)
    decompose_hard_activations(ep)
    targets = _targets(ep)
    assert not any("hardswish" in t or "hardsigmoid" in t for t in targets)
    assert targets.count("aten.clamp.default") == 2 and targets.count("aten.div.Tensor") == 2
    _same_outputs(ep, model, x, atol=0)


def test_pass_lists_are_ordered_and_complete():
    assert PASSES == [remove_noops, fold_batch_norm, decompose_hard_activations, scalars_to_tensors, fold_constants]
    assert PRE_QUANT_PASSES == [
        remove_noops_keeping_layout,
        fold_batch_norm,
        fold_linear_batch_norm,
        scalars_to_tensors,
        fold_constants,
    ]
    assert POST_QUANT_PASSES == [remove_noops, fold_finite_guards, scalars_to_tensors, fold_float_constants]


class FftNet(nn.Module):
    def forward(self, x):
        spectrum = torch.fft.rfft(x)  # the unsupported line
        return spectrum.abs()


def test_unsupported_op_names_op_file_line_and_method():
    lines, start = inspect.getsourcelines(FftNet.forward)
    line = start + next(i for i, text in enumerate(lines) if "torch.fft.rfft" in text)
    ep = run_passes(capture(FftNet(), (torch.randn(8),)))
    with pytest.raises(UnsupportedOpError) as err:
        check_supported(ep)
    # spectrum.abs() is unsupported too: both named at once, each with its line (issue 11)
    assert str(err.value).splitlines()[:2] == [
        "2 operators are not supported:",
        f"  operator aten._fft_r2c is not supported ({os.path.basename(__file__)}:{line} in FftNet.forward)",
    ]
    where = f"({os.path.basename(__file__)}:{line + 1} in"
    assert f"operator aten.abs on a tensor other than float32 is not supported {where}" in str(err.value)


@pytest.mark.parametrize("cls", fm.ALL_MODELS, ids=lambda c: c.__name__)
@pytest.mark.slow
def test_all_passes_keep_every_model_equal(cls):
    model, x = fm.make(cls)
    ep = run_passes(capture(model, x))
    check_supported(ep)
    _same_outputs(ep, model, x, atol=1e-5)


class MadeInForward(nn.Module):
    def forward(self, x):
        return x + torch.arange(4, dtype=torch.float32) * 2, torch.rand(4) + x


def test_fold_constants_folds_created_tensors_but_not_random_ones():
    model, x = MadeInForward(), (torch.randn(4),)
    ep = capture(model, x)
    fold_constants(ep)
    targets = _targets(ep)
    assert "aten.arange.start_step" not in targets and "aten.arange.default" not in targets
    assert any("rand" in t for t in targets)
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(*x)[0], model(*x)[0], rtol=0, atol=0)


class LinearBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)
        self.bn = nn.BatchNorm1d(5)
        fm.randomise_bn(self.bn)
        self.fc3 = nn.Linear(6, 5)  # [N, T, F] output: BatchNorm1d would normalise dim 1, so no fold
        self.bn3 = nn.BatchNorm1d(4)
        fm.randomise_bn(self.bn3)

    def forward(self, x, y):
        return self.bn(self.fc(x)), self.bn3(self.fc3(y))


@pytest.mark.slow
def test_fold_linear_batch_norm_folds_only_2d_linear_outputs():
    from mcu_export.int8.prepare import capture_keeping_linear

    torch.manual_seed(0)
    model = LinearBn().eval()
    inputs = (torch.randn(3, 6), torch.randn(2, 4, 6))
    ep = capture_keeping_linear(model, inputs)
    bn = "aten._native_batch_norm_legit_no_training.default"
    assert _targets(ep).count(bn) == 2
    fold_linear_batch_norm(ep)
    assert _targets(ep).count(bn) == 1
    _same_outputs(ep, model, inputs, atol=1e-5)


class DequantizedWeight(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer(
            "wq", torch.randint(-128, 127, (4, 3), dtype=torch.int8, generator=torch.Generator().manual_seed(0))
        )
        self.register_buffer("var", torch.rand(4, generator=torch.Generator().manual_seed(1)) + 0.5)

    def forward(self, x):
        w = torch.ops.quantized_decomposed.dequantize_per_tensor(self.wq, 0.05, 0, -128, 127, torch.int8)
        return (x @ w.t()) * torch.rsqrt(self.var + 1e-5)


def test_fold_float_constants_keeps_the_dequantize_of_a_weight():
    import mcu_export.int8.prepare  # noqa: F401  (torchao registers the quantized_decomposed ops)

    model, inputs = DequantizedWeight(), (torch.randn(2, 3),)
    ep = capture(model, inputs)
    fold_float_constants(ep)
    targets = _targets(ep)
    assert "quantized_decomposed.dequantize_per_tensor.default" in targets
    assert "aten.rsqrt.default" not in targets and "aten.add.Tensor" not in targets
    _same_outputs(ep, model, inputs, atol=0)


class _MaskedRowGuard(nn.Module):
    """Attention's guard for fully masked rows, as F.scaled_dot_product_attention decomposes it."""

    def forward(self, x):
        s = x * 2.0
        p = torch.softmax(s, dim=-1)
        dead = torch.logical_not(torch.logical_not(s == float("-inf")).any(dim=-1, keepdim=True))
        return torch.where(dead, torch.zeros_like(p), p) + torch.where(s != float("nan"), p, s)


def _call_names(ep):
    return {str(n.target).split(".")[1] for n in ep.graph.nodes if n.op == "call_function"}


@pytest.mark.slow
def test_fold_finite_guards_drops_the_guard_on_dequantized_values_only():
    from mcu_export.int8.prepare import quantize

    x = torch.randn(2, 5, 6)
    fp32 = capture(_MaskedRowGuard(), (x,))
    assert {"eq", "ne", "any", "logical_not", "where"} <= _call_names(fp32)  # fp32 keeps it: a score may be -inf
    quantized = quantize(_MaskedRowGuard(), (x,))  # runs POST_QUANT_PASSES, fold_finite_guards among them
    assert not {"eq", "ne", "any", "logical_not", "where", "full_like"} & _call_names(quantized.ep)
    want = _MaskedRowGuard()(x)
    got = quantized.ep.module()(x)
    assert torch.allclose(got, want, atol=0.05)  # the folded graph still computes the model (within int8 steps)
