"""The fp32 neural-net kernels against torch's own operators: leaky_relu, elu, gelu (erf and tanh), log_softmax,
native_layer_norm (all three outputs), adaptive_max_pool2d (values and indices), upsample nearest and bilinear
(output sizes and scale factors, align_corners both ways). Each C kernel is called through ctypes with the
emitter's argument layout (kernel_harness)."""

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kernel_harness as kh
from fp32_checks import SETTINGS, blank, close, rand, run, seeds

aten = torch.ops.aten
shapes = st.lists(st.integers(1, 5), min_size=0, max_size=4)
planes = st.tuples(st.integers(1, 2), st.integers(1, 3), st.integers(1, 7), st.integers(1, 7))


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


@SETTINGS
@given(shapes, st.sampled_from([0.01, 0.2, -0.5, 2, 0]), seeds)
def test_leaky_relu(lib, shape, slope, seed):
    x = rand(seed, *shape, scale=4.0)
    out = blank(x)
    run(lib, "aten::leaky_relu.out", self=x, negative_slope=slope, out=out)
    close(out, aten.leaky_relu.default(x, slope))


@SETTINGS
@given(shapes, st.sampled_from([1.0, 0.5, 1.6732632423543772]), st.sampled_from([1, 1.0507009873554805, 2.0]), seeds)
def test_elu(lib, shape, alpha, scale, seed):
    x = rand(seed, *shape, scale=4.0)
    x.view(-1)[:1] = 1e-7  # expm1 near 0, where exp(x) - 1 would lose every digit
    for input_scale in (1, 0.5):
        out = blank(x)
        run(lib, "aten::elu.out", self=x, alpha=alpha, scale=scale, input_scale=input_scale, out=out)
        close(out, aten.elu.default(x, alpha, scale, input_scale))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@settings(SETTINGS, max_examples=15)
@given(shape=shapes, seed=seeds)
def test_gelu(lib, approximate, shape, seed):
    x = rand(seed, *shape, scale=4.0)
    out = blank(x)
    run(lib, "aten::gelu.out", self=x, approximate=approximate, out=out)
    close(out, aten.gelu.default(x, approximate=approximate))


def test_gelu_tails_and_the_two_approximations_differ(lib):
    x = torch.tensor([-12.0, -5.0, -1.0, -1e-6, 0.0, 1e-6, 0.7, 3.0, 12.0])
    outs = {}
    for approximate in ("none", "tanh"):
        outs[approximate] = blank(x)
        run(lib, "aten::gelu.out", self=x, approximate=approximate, out=outs[approximate])
        close(outs[approximate], aten.gelu.default(x, approximate=approximate))
    assert not torch.equal(outs["none"], outs["tanh"])


@SETTINGS
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data(), seeds)
def test_log_softmax(lib, shape, data, seed):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = rand(seed, *shape, scale=30.0)  # exp(30 * randn) overflows without the maximum taken out
    out = blank(x)
    run(lib, "aten::_log_softmax.out", self=x, dim=dim, half_to_float=False, out=out)
    close(out, aten._log_softmax.default(x, dim, False))


@SETTINGS
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.data(), seeds)
def test_native_layer_norm(lib, shape, data, seed):
    normalized = shape[len(shape) - data.draw(st.integers(1, len(shape))) :]
    x = rand(seed, *shape, scale=3.0) + data.draw(st.sampled_from([0.0, 50.0]))  # a mean far from 0
    w = rand(seed + 1, *normalized) if data.draw(st.booleans()) else None
    b = rand(seed + 2, *normalized) if data.draw(st.booleans()) else None
    eps = data.draw(st.sampled_from([1e-5, 1e-3, 0.5]))
    ref = aten.native_layer_norm.default(x, normalized, w, b, eps)
    outs = [blank(r) for r in ref]
    kw = dict(input=x, normalized_shape=normalized, weight=w, bias=b, eps=eps)
    run(lib, "aten::native_layer_norm.out", **kw, out0=outs[0], out1=outs[1], out2=outs[2])
    # Deviations from a mean m are known to float32's step at m (2^-23 |m|, a few of them): scaled by rstd, that is
    # the relative error left in rstd and in the normalised values when the row's spread is near that step.
    cond = float((4 * 2.0**-23 * ref[1].abs() * ref[2]).max())
    torch.testing.assert_close(outs[0], ref[0], rtol=1e-4 + cond, atol=1e-4 + cond * float(ref[0].abs().max()))
    torch.testing.assert_close(outs[1], ref[1], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(outs[2], ref[2], rtol=1e-4 + cond, atol=1e-5)


@SETTINGS
@given(planes, st.integers(1, 8), st.integers(1, 8), st.booleans(), seeds)
def test_adaptive_max_pool2d(lib, shape, oh, ow, batched, seed):
    x = rand(seed, *shape) if batched else rand(seed, *shape[1:])
    x.view(-1)[::5] = x.view(-1)[0]  # ties: the first maximum's index wins
    ref, ref_idx = aten.adaptive_max_pool2d.default(x, [oh, ow])
    out, idx = blank(ref), blank(ref_idx)
    run(lib, "aten::adaptive_max_pool2d.out", self=x, output_size=[oh, ow], out=out, indices=idx)
    close(out, ref)
    assert torch.equal(idx, ref_idx)


def test_adaptive_max_pool2d_nan_and_minus_inf(lib):
    x = torch.full((1, 1, 4, 4), float("-inf"))
    x[0, 0, 1, 3] = float("nan")
    ref, ref_idx = aten.adaptive_max_pool2d.default(x, [2, 2])
    out, idx = blank(ref), blank(ref_idx)
    run(lib, "aten::adaptive_max_pool2d.out", self=x, output_size=[2, 2], out=out, indices=idx)
    close(out, ref)
    assert torch.equal(idx, ref_idx)


@st.composite
def upsample_sizes(draw):
    """(output_size, scale_factors): exactly one given; sizes up, down and equal, scales with fractions."""
    if draw(st.booleans()):
        return [draw(st.integers(1, 15)), draw(st.integers(1, 15))], None
    scale = st.sampled_from([1.0, 2.0, 3.0, 0.5, 1.5, 1.7, 2.3, 0.8])
    return None, [draw(scale), draw(scale)]


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bilinear_align_corners"])
@settings(SETTINGS, max_examples=40)
@given(shape=planes, sizes=upsample_sizes(), seed=seeds)
def test_upsample(lib, mode, shape, sizes, seed):
    output_size, scale_factors = sizes
    x = rand(seed, *shape)
    if scale_factors is not None:
        assume(all(int(n * s) >= 1 for n, s in zip(x.shape[-2:], scale_factors)))
    if mode == "nearest":
        ref = aten.upsample_nearest2d.vec(x, output_size, scale_factors)
        out = blank(ref)
        run(
            lib,
            "aten::upsample_nearest2d.vec_out",
            input=x,
            output_size=output_size,
            scale_factors=scale_factors,
            out=out,
        )
        assert torch.equal(out, ref)  # a copy: bit for bit
        return
    align = mode == "bilinear_align_corners"
    ref = aten.upsample_bilinear2d.vec(x, output_size, align, scale_factors)
    out = blank(ref)
    kw = dict(input=x, output_size=output_size, align_corners=align, scale_factors=scale_factors, out=out)
    run(lib, "aten::upsample_bilinear2d.vec_out", **kw)
    close(out, ref)


def test_upsample_scale_factor_is_used_not_the_size_ratio(lib):
    """With a scale factor torch steps the source by 1 / scale, not in / out: 5 * 1.7 = 8 outputs whose
    source step is 1 / 1.7, not 5 / 8. A kernel that used the ratio would differ here."""
    x = rand(0, 1, 1, 5, 5)
    for name, extra in (("nearest", {}), ("bilinear", {"align_corners": False})):
        ref = getattr(aten, f"upsample_{name}2d").vec(x, None, *extra.values(), [1.7, 1.7])
        by_ratio = getattr(aten, f"upsample_{name}2d").vec(x, [8, 8], *extra.values(), None)
        assert not torch.equal(ref, by_ratio)
        out = blank(ref)
        run(
            lib,
            f"aten::upsample_{name}2d.vec_out",
            input=x,
            output_size=None,
            scale_factors=[1.7, 1.7],
            out=out,
            **extra,
        )
        close(out, ref)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int64, torch.bool])
def test_upsample_nearest_moves_any_dtype(lib, dtype):
    """The int8 path runs it on quantized bytes: the same gather as on floats, for every element size."""
    from mcu_export.int8.reference.resize import upsample_nearest2d

    x = torch.randint(0, 100, (2, 3, 4, 5)).to(dtype)
    for output_size, scale_factors in (([7, 9], None), (None, [1.5, 2.0])):
        want = upsample_nearest2d(x.numpy(), output_size, scale_factors)
        out = torch.zeros(want.shape, dtype=dtype)
        run(
            lib,
            "aten::upsample_nearest2d.vec_out",
            input=x,
            output_size=output_size,
            scale_factors=scale_factors,
            out=out,
        )
        assert np.array_equal(out.numpy(), want)


@st.composite
def clamp_tensor_shapes(draw):
    """self, min and max shapes that broadcast together (any of them may be the widest)."""
    rank = draw(st.integers(0, 4))
    base = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))

    def operand():
        kept = base[rank - draw(st.integers(0, rank)) :]
        return [1 if draw(st.booleans()) else s for s in kept]

    return operand(), operand(), operand()


@SETTINGS
@given(clamp_tensor_shapes(), st.sampled_from(["both", "min", "max"]), seeds)
def test_clamp_tensor(lib, shapes, which, seed):
    x = rand(seed, *shapes[0], scale=3.0)
    lo = rand(seed + 1, *shapes[1]) - 0.5 if which != "max" else None
    hi = rand(seed + 2, *shapes[2]) + 0.5 if which != "min" else None
    ref = aten.clamp.Tensor(x, lo, hi)
    out = blank(ref)
    run(lib, "aten::clamp.Tensor_out", self=x, min=lo, max=hi, out=out)
    assert torch.equal(out, ref)
