"""The fp32 kernels a channels-last graph runs around its convolutions, on tensors in channels-last dim order
(ExecuTorch dim_order [0, 2, 3, 1]: memory N, H, W, C while sizes stay [N, C, H, W]), against torch on ordinary
tensors: the element-wise ones (any dim order shared by in and out), the broadcasting binary ones (each tensor
contiguous or channels-last), and the global average pools (mean over H and W, the 1x1 adaptive pool). What
they do not take is still refused as any non-contiguous tensor was."""

import pytest
import torch

import kernel_harness as kh
from fp32_checks import ERR, blank, close, rand, run
from mcu_export.ops.table import BY_QUALIFIED

aten = torch.ops.aten
CL = (0, 2, 3, 1)
NCHW = (0, 1, 2, 3)
# N, C, H, W: odd sizes, one channel, one pixel
SHAPES = [(2, 3, 5, 7), (1, 1, 4, 3), (2, 8, 1, 1), (1, 5, 3, 1), (3, 2, 2, 6)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


def laid_out(t, order):
    """t's memory in the dim order, as the kernel sees it."""
    return t.permute(order).contiguous()


def refused(lib, op, **kwargs):
    """The call's mx_error code (lib.last_arg: the argument a refusal names)."""
    return lib.call(BY_QUALIFIED[op], **kwargs)


def maybe_strided(t, order):
    return kh.Strided(t, order) if order is not None else t


# --- element-wise -----------------------------------------------------------------------------------

UNARY = {
    "relu": ({}, aten.relu.default),
    "sigmoid": ({}, aten.sigmoid.default),
    "tanh": ({}, aten.tanh.default),
    "hardtanh": (dict(min_val=-0.5, max_val=0.75), lambda x: aten.hardtanh.default(x, -0.5, 0.75)),
    "clamp": (dict(min=-0.25, max=0.5), lambda x: aten.clamp.default(x, -0.25, 0.5)),
    "hardswish": ({}, aten.hardswish.default),
    "hardsigmoid": ({}, aten.hardsigmoid.default),
    "leaky_relu": (dict(negative_slope=0.2), lambda x: aten.leaky_relu.default(x, 0.2)),
    "elu": ({}, aten.elu.default),
    "gelu": (dict(approximate="none"), aten.gelu.default),
    "neg": ({}, aten.neg.default),
    "abs": ({}, aten.abs.default),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_channels_last(lib, name, shape):
    kwargs, ref = UNARY[name]
    x = rand(1, *shape, scale=3.0)
    out = kh.Strided(blank(x), CL)
    run(lib, f"aten::{name}.out", self=kh.Strided(x, CL), out=out, **kwargs)
    close(out.mem, laid_out(ref(x), CL))


@pytest.mark.parametrize("order", [(3, 2, 1, 0), (1, 0, 2), (0, 2, 1, 3, 4)])
def test_unary_any_shared_dim_order(lib, order):
    """In and out in one dim order, whichever: element i of one memory is element i of the other."""
    x = rand(2, *(2, 3, 4, 5, 2)[: len(order)], scale=3.0)
    out = kh.Strided(blank(x), order)
    run(lib, "aten::hardswish.out", self=kh.Strided(x, order), out=out)
    close(out.mem, laid_out(aten.hardswish.default(x), order))


def test_unary_mismatched_orders_refused(lib):
    x = rand(3, 2, 3, 4, 5)
    # self channels-last, out contiguous: self is named, as when every non-contiguous self was refused
    assert refused(lib, "aten::relu.out", self=kh.Strided(x, CL), out=blank(x)) == ERR["MX_ERR_BAD_ARG_VALUE"]
    assert lib.last_arg == 0
    # self contiguous, out channels-last: out is named
    assert refused(lib, "aten::sigmoid.out", self=x, out=kh.Strided(blank(x), CL)) == ERR["MX_ERR_BAD_ARG_VALUE"]
    assert lib.last_arg == 1
    # two different non-contiguous orders
    code = refused(lib, "aten::tanh.out", self=kh.Strided(x, CL), out=kh.Strided(blank(x), (3, 2, 1, 0)))
    assert code == ERR["MX_ERR_BAD_ARG_VALUE"] and lib.last_arg == 0
    # one order, other shapes: a shape error, as for contiguous tensors
    code = refused(lib, "aten::relu.out", self=kh.Strided(x, CL), out=kh.Strided(blank(rand(0, 2, 3, 4, 6)), CL))
    assert code == ERR["MX_ERR_BAD_SHAPE"] and lib.last_arg == 1
    # one order, a wrong dtype
    code = refused(lib, "aten::relu.out", self=kh.Strided(x.double(), CL), out=kh.Strided(blank(x), CL))
    assert code == ERR["MX_ERR_BAD_DTYPE"] and lib.last_arg == 0


@pytest.mark.parametrize("shape", SHAPES)
def test_clamp_tensor_shared_order(lib, shape):
    """clamp.Tensor with self and out in one order: bounds of their shape and order, or of one element."""
    x, lo = rand(5, *shape, scale=3.0), rand(6, *shape) - 0.5
    for order in (CL, (3, 2, 1, 0)):
        for hi in (torch.tensor([0.75]), rand(7, *shape) + 0.5):
            expected = aten.clamp.Tensor(x, lo, hi)
            out = kh.Strided(blank(x), order)
            hi_arg = hi if hi.numel() == 1 else kh.Strided(hi, order)
            run(
                lib, "aten::clamp.Tensor_out", self=kh.Strided(x, order), min=kh.Strided(lo, order), max=hi_arg, out=out
            )
            close(out.mem, laid_out(expected, order))


def test_clamp_tensor_mixed_orders_refused(lib):
    x = rand(8, 2, 3, 4, 5)
    bad = ERR["MX_ERR_BAD_ARG_VALUE"]
    out = kh.Strided(blank(x), CL)
    # a bound that broadcasts, or lies in another order, under a channels-last self: self named, as before
    assert refused(lib, "aten::clamp.Tensor_out", self=kh.Strided(x, CL), min=rand(9, 3, 1, 1), out=out) == bad
    assert lib.last_arg == 0
    assert refused(lib, "aten::clamp.Tensor_out", self=kh.Strided(x, CL), max=rand(9, 2, 3, 4, 5), out=out) == bad
    assert lib.last_arg == 0
    # self channels-last, out contiguous
    assert refused(lib, "aten::clamp.Tensor_out", self=kh.Strided(x, CL), min=rand(9, 1), out=blank(x)) == bad
    assert lib.last_arg == 0


# --- binary, broadcasting ---------------------------------------------------------------------------

BINARY = {
    "add": (dict(alpha=2), lambda a, b: aten.add.Tensor(a, b, alpha=2)),
    "sub": (dict(alpha=0.5), lambda a, b: aten.sub.Tensor(a, b, alpha=0.5)),
    "mul": ({}, aten.mul.Tensor),
    "div": ({}, aten.div.Tensor),
    "maximum": ({}, aten.maximum.default),
    "minimum": ({}, aten.minimum.default),
}


def operands(shape, other_shape, seed=0):
    a = rand(seed, *shape)
    b = rand(seed + 1, *other_shape).abs() + 0.5  # away from 0: div
    return a, b


def call_binary(lib, name, a, a_order, b, b_order, out_order):
    """self and other in these dim orders (None: as they are), out in out_order, against torch."""
    kwargs, ref = BINARY[name]
    expected = ref(a, b)
    out = kh.Strided(blank(expected), out_order)
    a_arg, b_arg = maybe_strided(a, a_order), maybe_strided(b, b_order)
    run(lib, f"aten::{name}.out", self=a_arg, other=b_arg, out=out, **kwargs)
    close(out.mem, laid_out(expected, out_order))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shape", SHAPES)
def test_binary_same_shape_channels_last(lib, name, shape):
    a, b = operands(shape, shape)
    call_binary(lib, name, a, CL, b, CL, CL)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("orders", [(CL, NCHW, CL), (NCHW, CL, CL), (CL, CL, NCHW), (CL, NCHW, NCHW), (NCHW, CL, NCHW)])
def test_binary_mixed_orders(lib, name, orders):
    a, b = operands((2, 3, 5, 7), (2, 3, 5, 7), seed=4)
    call_binary(lib, name, a, orders[0], b, orders[1], orders[2])


# squeeze-and-excite: x * s, s one value per (n, c) or per c, contiguous or channels-last (same bytes)
SE_SCALES = [
    ((2, 3, 1, 1), NCHW),
    ((2, 3, 1, 1), CL),
    ((1, 3, 1, 1), NCHW),
    ((1, 3, 1, 1), CL),
    ((3, 1, 1), NCHW),
    ((1, 1, 1, 1), CL),
    ((7,), NCHW),  # along W
    ((5, 1), NCHW),  # along H
    ((2, 1, 5, 7), CL),  # one plane per image, channels broadcast
]


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("other_shape,other_order", SE_SCALES)
def test_binary_channels_last_broadcast(lib, name, other_shape, other_order):
    a, s = operands((2, 3, 5, 7), other_shape, seed=7)
    order = other_order if len(other_shape) == 4 else None
    call_binary(lib, name, a, CL, s, order, CL)
    # and the other way round: the small operand first
    call_binary(lib, name, s, order, a, CL, CL)


@pytest.mark.parametrize("shape", SHAPES)
def test_binary_se_shapes(lib, shape):
    n, c, _, _ = shape
    for s_shape in ((n, c, 1, 1), (1, c, 1, 1)):
        a, s = operands(shape, s_shape, seed=9)
        call_binary(lib, "mul", a, CL, s, None, CL)
        call_binary(lib, "mul", a, CL, s, CL, CL)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_one_element_operand(lib, name):
    a = rand(11, 2, 3, 5, 7)
    kwargs, ref = BINARY[name]
    for other in (torch.tensor([1.5]), torch.tensor(2.5), torch.tensor(3, dtype=torch.int64)):
        expected = ref(a, other.float())
        out = kh.Strided(blank(expected), CL)
        run(lib, f"aten::{name}.out", self=kh.Strided(a, CL), other=other, out=out, **kwargs)
        close(out.mem, laid_out(expected, CL))


def test_binary_same_bits_as_contiguous(lib):
    """Element-wise ops do not depend on the order they run in: the channels-last result has the same bits."""
    a, s = operands((2, 16, 5, 7), (2, 16, 1, 1), seed=13)
    plain = blank(a)
    run(lib, "aten::mul.out", self=a, other=s, out=plain)
    out = kh.Strided(blank(a), CL)
    run(lib, "aten::mul.out", self=kh.Strided(a, CL), other=s, out=out)
    assert torch.equal(out.mem, laid_out(plain, CL))


def test_binary_other_orders_refused(lib):
    a, b = operands((2, 3, 5, 7), (2, 3, 5, 7))
    bad = ERR["MX_ERR_BAD_ARG_VALUE"]
    # a 4-D order other than channels-last
    assert refused(lib, "aten::add.out", self=kh.Strided(a, (0, 3, 2, 1)), other=b, out=blank(a)) == bad
    assert lib.last_arg == 0
    assert refused(lib, "aten::mul.out", self=a, other=b, out=kh.Strided(blank(a), (3, 2, 1, 0))) == bad
    assert lib.last_arg == 2
    # 5-D and 3-D non-contiguous
    x5, y5 = operands((2, 3, 2, 4, 5), (2, 3, 2, 4, 5))
    assert refused(lib, "aten::add.out", self=x5, other=kh.Strided(y5, (0, 2, 3, 4, 1)), out=blank(x5)) == bad
    assert lib.last_arg == 1
    x3, y3 = operands((3, 4, 5), (3, 4, 5))
    assert refused(lib, "aten::sub.out", self=kh.Strided(x3, (0, 2, 1)), other=y3, out=blank(x3)) == bad
    assert lib.last_arg == 0
    assert refused(lib, "aten::maximum.out", self=x3, other=y3, out=kh.Strided(blank(x3), (1, 2, 0))) == bad
    assert lib.last_arg == 2


# --- global average pools -----------------------------------------------------------------------------


def pool_close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dims", [[2, 3], [-1, -2], [3, -2]])
@pytest.mark.parametrize("keepdim", [True, False])
def test_mean_hw_channels_last(lib, shape, dims, keepdim):
    x = rand(21, *shape, scale=2.0)
    expected = aten.mean.dim(x, dims, keepdim)
    out = blank(expected)
    run(lib, "aten::mean.out", self=kh.Strided(x, CL), dim=dims, keepdim=keepdim, out=out)
    pool_close(out, expected)
    # the same bits as the contiguous input gives (each sum adds in the same order)
    plain = blank(expected)
    run(lib, "aten::mean.out", self=x, dim=dims, keepdim=keepdim, out=plain)
    assert torch.equal(out, plain)
    if keepdim:  # an [N, C, 1, 1] out may be channels-last too: the same bytes
        cl_out = kh.Strided(blank(expected), CL)
        run(lib, "aten::mean.out", self=kh.Strided(x, CL), dim=dims, keepdim=True, out=cl_out)
        pool_close(cl_out.mem.reshape(expected.shape), expected)


@pytest.mark.parametrize("shape", SHAPES)
def test_adaptive_avg_pool_1x1_channels_last(lib, shape):
    x = rand(23, *shape, scale=2.0)
    expected = aten._adaptive_avg_pool2d.default(x, [1, 1])
    for out in (blank(expected), kh.Strided(blank(expected), CL)):
        run(lib, "aten::_adaptive_avg_pool2d.out", self=kh.Strided(x, CL), output_size=[1, 1], out=out)
        got = out.mem.reshape(expected.shape) if isinstance(out, kh.Strided) else out
        pool_close(got, expected)
        plain = blank(expected)
        run(lib, "aten::_adaptive_avg_pool2d.out", self=x, output_size=[1, 1], out=plain)
        assert torch.equal(got, plain)


def test_reductions_refused_on_channels_last(lib):
    x = kh.Strided(rand(25, 2, 3, 4, 5), CL)
    bad = ERR["MX_ERR_BAD_ARG_VALUE"]
    e = torch.empty
    for dims, out_shape in (([1], (2, 4, 5)), ([1, 2, 3], (2,)), ([0, 2, 3], (3,)), ([3], (2, 3, 4)), ([], ())):
        assert refused(lib, "aten::mean.out", self=x, dim=dims, keepdim=False, out=e(out_shape)) == bad, dims
        assert lib.last_arg == 0
    # a repeated or out-of-range dim on a channels-last self: the self refusal, as before
    assert refused(lib, "aten::mean.out", self=x, dim=[2, 2], keepdim=False, out=e(2, 3)) == bad
    assert lib.last_arg == 0
    # sum over H and W is not among them
    assert refused(lib, "aten::sum.IntList_out", self=x, dim=[2, 3], out=e(2, 3)) == bad
    assert lib.last_arg == 0
    # an adaptive pool to more than 1x1
    assert refused(lib, "aten::_adaptive_avg_pool2d.out", self=x, output_size=[2, 2], out=e(2, 3, 2, 2)) == bad
    assert lib.last_arg == 0
    # a channels-last out that is not the contiguous bytes ([N, C, H, W] with C > 1 and H * W > 1)
    plain = rand(25, 2, 3, 4, 5)
    out = kh.Strided(e(2, 3, 4, 5), CL)
    assert refused(lib, "aten::mean.out", self=plain, dim=[0], keepdim=True, out=kh.Strided(e(1, 3, 4, 5), CL)) == bad
    assert refused(lib, "aten::_adaptive_avg_pool2d.out", self=plain, output_size=[4, 5], out=out) == bad
    assert lib.last_arg == 2
    # sum's out stays contiguous-only, even when the bytes would agree
    code = refused(
        lib, "aten::sum.IntList_out", self=plain, dim=[2, 3], keepdim=True, out=kh.Strided(e(2, 3, 1, 1), CL)
    )
    assert code == bad
    # other ranks' non-contiguous orders
    x5 = kh.Strided(rand(26, 2, 3, 2, 4, 5), (0, 2, 3, 4, 1))
    assert refused(lib, "aten::mean.out", self=x5, dim=[2, 3, 4], keepdim=False, out=e(2, 3)) == bad
    x3 = kh.Strided(rand(27, 3, 4, 5), (0, 2, 1))
    assert refused(lib, "aten::mean.out", self=x3, dim=[1, 2], keepdim=False, out=e(3)) == bad
    assert refused(lib, "aten::_adaptive_avg_pool2d.out", self=x3, output_size=[1, 1], out=e(3, 1, 1)) == bad
