"""Every fp32 operator of the op table, exported alone: ExecuTorch 1.5.1's runtime and ours run the .pte
and both match torch.

The cases are keyed by the op table's qualified names and the test is parametrized over the table, so
an op added to the table without a case here fails (test_every_op_has_a_case names it).
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mcu_export.api
from front_models import Fn
from mcu_export.ops.table import OPS
from mcu_export.runners.host import run_pte

executorch_runtime = pytest.importorskip(
    "executorch.runtime", reason="needs executorch==1.5.1 (pip install -e .[interop])"
)
pytestmark = [pytest.mark.interop, pytest.mark.slow]


def _r(*shape, seed=0, scale=1.0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * scale


def _lone_batch_norm():
    bn = nn.BatchNorm2d(3)
    with torch.no_grad():
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.normal_()
        bn.bias.normal_()
    return bn


def _seeded(factory):
    torch.manual_seed(0)
    return factory()


# qualified op -> (model, inputs). Inputs of the activations span both kinks (-3 and 3 for the hard ones).
CASES = {
    "aten::convolution.out": (lambda: _seeded(lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1)), (_r(1, 3, 7, 7),)),
    "aten::addmm.out": (lambda: _seeded(lambda: nn.Linear(5, 4)), (_r(2, 5),)),
    "aten::mm.out": (lambda: Fn(torch.mm), (_r(3, 4), _r(4, 5, seed=1))),
    "aten::bmm.out": (lambda: Fn(torch.bmm), (_r(2, 3, 4), _r(2, 4, 5, seed=1))),
    "aten::relu.out": (lambda: Fn(torch.relu), (_r(2, 7),)),
    "aten::hardtanh.out": (lambda: Fn(lambda x: F.hardtanh(x, -0.5, 0.75)), (_r(2, 7),)),
    "aten::clamp.out": (lambda: Fn(lambda x: x.clamp(-0.25, 0.5)), (_r(2, 7),)),
    "aten::sigmoid.out": (lambda: Fn(torch.sigmoid), (_r(2, 7, scale=4),)),
    "aten::tanh.out": (lambda: Fn(torch.tanh), (_r(2, 7, scale=4),)),
    "aten::hardswish.out": (lambda: Fn(F.hardswish), (_r(3, 11, scale=4),)),
    "aten::hardsigmoid.out": (lambda: Fn(F.hardsigmoid), (_r(3, 11, scale=4),)),
    "aten::add.out": (lambda: Fn(torch.add), (_r(2, 3, 4), _r(3, 1, seed=1))),
    "aten::sub.out": (lambda: Fn(torch.sub), (_r(2, 3, 4), _r(4, seed=1))),
    "aten::mul.out": (lambda: Fn(torch.mul), (_r(2, 1, 4), _r(3, 1, seed=1))),
    "aten::div.out": (lambda: Fn(lambda x, y: x / (y * y + 1)), (_r(2, 3, 4), _r(2, 3, 1, seed=1))),
    "aten::max_pool2d_with_indices.out": (lambda: Fn(lambda x: F.max_pool2d(x, 3, 2, 1)), (_r(1, 2, 7, 9),)),
    "aten::avg_pool2d.out": (
        lambda: Fn(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
        (_r(1, 2, 7, 9),),
    ),
    "aten::_adaptive_avg_pool2d.out": (lambda: Fn(lambda x: F.adaptive_avg_pool2d(x, (2, 3))), (_r(1, 2, 7, 9),)),
    "aten::mean.out": (lambda: Fn(lambda x: x.mean(dim=(1, 3), keepdim=True)), (_r(2, 3, 4, 5),)),
    "aten::view_copy.out": (lambda: Fn(lambda x: x.reshape(3, -1)), (_r(2, 3, 4),)),
    "aten::permute_copy.out": (lambda: Fn(lambda x: x.permute(0, 3, 1, 2)), (_r(2, 3, 4, 5),)),
    "aten::cat.out": (lambda: Fn(lambda x, y: torch.cat([x, y], dim=1)), (_r(2, 3, 4), _r(2, 5, 4, seed=1))),
    "aten::_softmax.out": (lambda: Fn(lambda x: torch.softmax(x, dim=1)), (_r(2, 5, 3, scale=3),)),
    "aten::constant_pad_nd.out": (lambda: Fn(lambda x: F.pad(x, (1, 2, 0, 1), value=0.5)), (_r(1, 2, 3, 4),)),
    "aten::_native_batch_norm_legit_no_training.out": (lambda: _seeded(_lone_batch_norm), (_r(1, 3, 4, 5),)),
    "dim_order_ops::_to_dim_order_copy.out": (lambda: Fn(lambda x: (x * 4).to(torch.int32)), (_r(2, 7),)),
    "aten::slice_copy.Tensor_out": (lambda: Fn(lambda x: x[:, 1:-1:2, -3:99]), (_r(2, 7, 5),)),
    "aten::select_copy.int_out": (lambda: Fn(lambda x: x[:, -1] * 2), (_r(2, 7, 5),)),
    "aten::split_with_sizes_copy.out": (lambda: Fn(lambda x: torch.split(x, [2, 5], dim=1)), (_r(2, 7, 3),)),
    "aten::expand_copy.out": (lambda: Fn(lambda x: x.expand(2, 3, 4) * 2), (_r(3, 1),)),
    "aten::clone.out": (lambda: Fn(lambda x: x.clone()), (_r(2, 3),)),
    "dim_order_ops::_clone_dim_order.out": (lambda: Fn(lambda x: x.clone()), (_r(2, 3),)),
    "aten::full.out": (lambda: Fn(lambda x: torch.full((2, 3), 1.5) + x), (_r(2, 3),)),
    "aten::full_like.out": (lambda: Fn(lambda x: torch.full_like(x, 2.5)), (_r(2, 3),)),
    "aten::embedding.out": (
        lambda: _seeded(lambda: nn.Embedding(6, 4)),
        (torch.tensor([[0, 5, 2], [1, 1, 3]]),),
    ),
    "aten::where.self_out": (lambda: Fn(lambda c, x, y: torch.where(c > 0, x, y)), (_r(3, 1), _r(4), _r(3, 4, seed=1))),
    "aten::abs.out": (lambda: Fn(torch.abs), (_r(2, 7),)),
    "aten::neg.out": (lambda: Fn(torch.neg), (_r(2, 7),)),
    "aten::minimum.out": (lambda: Fn(torch.minimum), (_r(2, 3, 4), _r(3, 1, seed=1))),
    "aten::maximum.out": (lambda: Fn(torch.maximum), (_r(2, 3, 4), _r(4, seed=1))),
    **{
        f"aten::{cmp}.{form}_out": (
            (lambda cmp=cmp: Fn(lambda x: getattr(torch, cmp)(x, 0.0)))
            if form == "Scalar"
            else (lambda cmp=cmp: Fn(lambda x, y: getattr(torch, cmp)(x, y))),
            # rounded, so that equal values occur
            (_r(3, 4, scale=2).round(),)
            if form == "Scalar"
            else (_r(3, 4, scale=2).round(), _r(4, seed=1, scale=2).round()),
        )
        for cmp in ("eq", "ne", "gt", "ge", "lt", "le")
        for form in ("Scalar", "Tensor")
    },
    "aten::logical_not.out": (lambda: Fn(lambda x: torch.logical_not(x > 0)), (_r(2, 7),)),
    "aten::any.out": (lambda: Fn(lambda x: (x > 1).any(dim=1, keepdim=True)), (_r(3, 5),)),
    "aten::sum.IntList_out": (lambda: Fn(lambda x: x.sum(dim=(0, 2))), (_r(2, 3, 4),)),
    "aten::leaky_relu.out": (lambda: Fn(lambda x: F.leaky_relu(x, 0.1)), (_r(2, 7, scale=3),)),
    "aten::elu.out": (lambda: Fn(F.selu), (_r(2, 7, scale=3),)),
    "aten::gelu.out": (lambda: Fn(lambda x: F.gelu(x) + F.gelu(x, approximate="tanh")), (_r(2, 7, scale=3),)),
    "aten::_log_softmax.out": (lambda: Fn(lambda x: F.log_softmax(x, dim=1)), (_r(2, 5, 3, scale=3),)),
    "aten::native_layer_norm.out": (lambda: _seeded(lambda: nn.LayerNorm([3, 4])), (_r(2, 5, 3, 4),)),
    "aten::adaptive_max_pool2d.out": (lambda: Fn(lambda x: F.adaptive_max_pool2d(x, (2, 3))), (_r(1, 2, 7, 9),)),
    "aten::upsample_nearest2d.vec_out": (lambda: Fn(lambda x: F.interpolate(x, scale_factor=1.5)), (_r(1, 2, 3, 4),)),
    "aten::upsample_bilinear2d.vec_out": (
        lambda: Fn(lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True)),
        (_r(1, 2, 3, 4),),
    ),
    "aten::clamp.Tensor_out": (lambda: Fn(lambda x, lo: torch.clamp(x, lo, lo + 1)), (_r(2, 3, 4), _r(3, 1, seed=1))),
}
# Ops our exporter never writes (remove_noops drops clones, fold_constants folds full): the kernels are for
# programs ExecuTorch writes, and its .pte of the case must use them (aten::clone.out: its older programs).
NOT_WRITTEN_BY_US = {"aten::clone.out", "aten::full.out", "dim_order_ops::_clone_dim_order.out"}
WRITTEN_BY_EXECUTORCH = {"aten::full.out", "dim_order_ops::_clone_dim_order.out"}
# ExecuTorch has no kernel for these (adaptive_max_pool2d is not even core ATen to its verifier): only our
# exporter writes them and only our runtime runs them.
NOT_IN_EXECUTORCH = {"aten::adaptive_max_pool2d.out"}

_EXPORTED = {}


def _exported(qualified, overlap=True):
    """overlap=False: apart, for ExecuTorch's runtime."""
    if (qualified, overlap) not in _EXPORTED:
        factory, inputs = CASES[qualified]
        model = factory().eval()
        with torch.no_grad():
            want = model(*inputs)
        want = [w.numpy() for w in (want if isinstance(want, (tuple, list)) else (want,))]
        _EXPORTED[(qualified, overlap)] = (mcu_export.api.export(model, inputs, overlap=overlap), inputs, want)
    return _EXPORTED[(qualified, overlap)]


def _assert_matches(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_every_op_has_a_case():
    assert sorted(op.qualified for op in OPS if op.qualified not in CASES) == []


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.qualified)
def test_op_program_uses_the_op(op):
    artifact, _, _ = _exported(op.qualified)
    written = {o.qualified for o in artifact.program.method().operators}
    if op.qualified in NOT_WRITTEN_BY_US:
        assert op.qualified not in written
        if op.qualified in WRITTEN_BY_EXECUTORCH:
            assert op.qualified in _executorch_ops(op.qualified)
        return
    assert set(op.written_as or (op.qualified,)) <= written
    if op.written_as:  # never written whole: ExecuTorch has no kernel of that name
        assert op.qualified not in written


def _executorch_ops(qualified):
    from executorch.exir import to_edge

    factory, inputs = CASES[qualified]
    program = to_edge(torch.export.export(factory().eval(), inputs, strict=False)).to_executorch().executorch_program
    return {f"{o.name}.{o.overload}" for o in program.execution_plan[0].operators}


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.qualified)
def test_executorch_runtime_runs_op(op):
    if op.qualified in NOT_IN_EXECUTORCH:
        pytest.skip(f"ExecuTorch's portable library has no {op.qualified}")
    artifact, inputs, want = _exported(op.qualified, overlap=False)
    method = executorch_runtime.Runtime.get().load_program(artifact.pte).load_method("forward")
    _assert_matches([g.numpy() for g in method.execute(list(inputs))], want)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.qualified)
def test_host_runtime_runs_op(op, tmp_path):
    artifact, inputs, want = _exported(op.qualified)
    path = tmp_path / "model.pte"
    path.write_bytes(artifact.pte)
    _assert_matches(run_pte(path, [x.numpy() for x in inputs]), want)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.qualified)
def test_host_runtime_runs_executorchs_own_pte_of_op(op, tmp_path):
    from executorch.exir import to_edge

    if op.qualified in NOT_IN_EXECUTORCH:
        pytest.skip(f"ExecuTorch does not export {op.qualified}")
    factory, inputs = CASES[op.qualified]
    _, _, want = _exported(op.qualified)
    path = tmp_path / "model.pte"
    path.write_bytes(to_edge(torch.export.export(factory().eval(), inputs, strict=False)).to_executorch().buffer)
    _assert_matches(run_pte(path, [x.numpy() for x in inputs]), want)
