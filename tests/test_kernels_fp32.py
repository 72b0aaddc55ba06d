"""The fp32 portable kernels against torch: each C kernel is called through ctypes with the emitter's
argument layout (kernel_harness) and its output compared with torch's own operator."""

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import kernel_harness as kh
from mcu_export.ops.table import BY_QUALIFIED, OPS

ERR = kh.error_codes()
OK = ERR["MX_OK"]
aten = torch.ops.aten
DIM_ORDER_COPY = "dim_order_ops::_to_dim_order_copy.out"
SETTINGS = settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


def run(lib, op, **kwargs):
    err = lib.call(BY_QUALIFIED[op] if isinstance(op, str) else op, **kwargs)
    assert err == OK, f"{op}: {[k for k, v in ERR.items() if v == err]}"


def close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5, equal_nan=True)


def blank(like):
    """An out tensor pre-filled with a sentinel, so elements the kernel skips show up."""
    return torch.full_like(like, float("nan") if like.is_floating_point() else -7)


def rand(seed, *shape, scale=1.0):
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed)) * scale


seeds = st.integers(0, 2**31 - 1)


def test_every_op_in_the_table_has_a_kernel_file_and_symbol(lib):
    for op in OPS:
        assert (kh.KERNEL_DIR / f"{op.kernel}.c").is_file(), op.kernel
        assert hasattr(lib.cdll, op.kernel), op.kernel


# --- convolution and matrix products --------------------------------------------------------------


@SETTINGS
@given(st.data(), seeds)
def test_convolution_2d(lib, data, seed):
    d = data.draw
    depthwise = d(st.booleans())
    groups = d(st.integers(1, 3))
    cin_g, cout_g = (1 if depthwise else d(st.integers(1, 3))), d(st.integers(1, 3))
    k = [d(st.integers(1, 3)), d(st.integers(1, 3))]
    stride, pad, dil = ([d(st.integers(lo, hi)) for _ in range(2)] for lo, hi in ((1, 3), (0, 2), (1, 2)))
    hw = [d(st.integers(max(1, dil[i] * (k[i] - 1) + 1 - 2 * pad[i]), 9)) for i in range(2)]
    x = rand(seed, d(st.integers(1, 2)), cin_g * groups, *hw)
    w = rand(seed + 1, cout_g * groups, cin_g, *k)
    b = rand(seed + 2, cout_g * groups) if d(st.booleans()) else None
    ref = aten.convolution.default(x, w, b, stride, pad, dil, False, [0, 0], groups)
    out = blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=x,
        weight=w,
        bias=b,
        stride=stride,
        padding=pad,
        dilation=dil,
        transposed=False,
        output_padding=[0, 0],
        groups=groups,
        out=out,
    )
    close(out, ref)


@SETTINGS
@given(st.data(), seeds)
def test_convolution_1d(lib, data, seed):
    d = data.draw
    groups, k, s, p, dl = (
        d(st.integers(1, 2)),
        d(st.integers(1, 4)),
        d(st.integers(1, 3)),
        d(st.integers(0, 2)),
        d(st.integers(1, 2)),
    )
    x = rand(seed, d(st.integers(1, 2)), 2 * groups, d(st.integers(max(1, dl * (k - 1) + 1 - 2 * p), 12)))
    w = rand(seed + 1, 3 * groups, 2, k)
    ref = aten.convolution.default(x, w, None, [s], [p], [dl], False, [0], groups)
    out = blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=x,
        weight=w,
        bias=None,
        stride=[s],
        padding=[p],
        dilation=[dl],
        transposed=False,
        output_padding=[0],
        groups=groups,
        out=out,
    )
    close(out, ref)


# Shapes that reach each path of the tiled convolution (util/mx_conv2d_f32.c), which the small random
# shapes above rarely do: 1x1 as a matrix product; 4-channel x 4-pixel tiles along rows (unit stride,
# other strides) and along columns (narrow maps); 4-group tiles (depthwise); edge channels and pixels;
# rows with no valid tap.
# (batch, c_in, c_out, (h, w), kernel, stride, pad, dilation, groups, bias)
CONV_PATHS = {
    "pointwise": (2, 9, 13, (5, 7), (1, 1), (1, 1), (0, 0), (1, 1), 1, True),
    "pointwise_grouped": (1, 6, 10, (3, 5), (1, 1), (1, 1), (0, 0), (1, 1), 2, False),
    "pointwise_strided": (1, 5, 6, (7, 9), (1, 1), (2, 2), (0, 0), (1, 1), 1, True),
    "pointwise_padded": (1, 3, 5, (4, 6), (1, 1), (1, 1), (1, 2), (1, 1), 1, True),
    "dense_3x3_unit_stride": (2, 5, 9, (10, 13), (3, 3), (1, 1), (1, 1), (1, 1), 1, True),
    "dense_3x3_stride_2": (1, 4, 8, (11, 17), (3, 3), (2, 2), (1, 1), (1, 1), 1, False),
    "dense_dilated": (1, 3, 6, (12, 14), (3, 2), (1, 2), (2, 1), (2, 3), 1, True),
    "kws_first_conv_narrow_map": (1, 1, 6, (49, 10), (10, 4), (2, 2), (5, 1), (1, 1), 1, True),
    "depthwise_narrow_map": (1, 10, 10, (25, 5), (3, 3), (1, 1), (1, 1), (1, 1), 10, True),
    "depthwise_wide_map": (2, 7, 7, (9, 16), (3, 3), (1, 1), (1, 1), (1, 1), 7, False),
    "depthwise_stride_2": (1, 8, 8, (12, 12), (5, 3), (2, 2), (2, 1), (1, 1), 8, True),
    "depthwise_multiplier_2": (1, 5, 10, (8, 9), (3, 3), (1, 1), (1, 1), (1, 1), 5, True),
    "grouped": (1, 6, 15, (9, 10), (3, 3), (1, 1), (1, 1), (1, 1), 3, True),
    "padding_wider_than_window": (1, 2, 5, (3, 4), (2, 2), (1, 1), (3, 3), (1, 1), 1, True),
}


@pytest.mark.parametrize("case", sorted(CONV_PATHS))
def test_convolution_paths(lib, case):
    n, cin, cout, hw, k, stride, pad, dil, groups, has_bias = CONV_PATHS[case]
    x, w = rand(1, n, cin, *hw), rand(2, cout, cin // groups, *k)
    b = rand(3, cout) if has_bias else None
    ref = aten.convolution.default(x, w, b, list(stride), list(pad), list(dil), False, [0, 0], groups)
    out = blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=x,
        weight=w,
        bias=b,
        stride=list(stride),
        padding=list(pad),
        dilation=list(dil),
        transposed=False,
        output_padding=[0, 0],
        groups=groups,
        out=out,
    )
    close(out, ref)


def test_convolution_1d_long_rows(lib):
    x, w, b = rand(1, 2, 6, 40), rand(2, 8, 3, 5), rand(3, 8)
    ref = aten.convolution.default(x, w, b, [1], [2], [1], False, [0], 2)
    out = blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=x,
        weight=w,
        bias=b,
        stride=[1],
        padding=[2],
        dilation=[1],
        transposed=False,
        output_padding=[0],
        groups=2,
        out=out,
    )
    close(out, ref)


@pytest.mark.parametrize("m,k,n", [(1, 64, 12), (4, 3, 4), (9, 17, 11), (6, 1, 5), (13, 40, 3)])
def test_matmul_tiles(lib, m, k, n):
    """Row and column counts around the 4x4 register tile of util/mx_matmul_f32.c, and K = 1."""
    a, b, s = rand(1, m, k), rand(2, k, n), rand(3, n)
    out = blank(a @ b)
    run(lib, "aten::mm.out", self=a, mat2=b, out=out)
    close(out, aten.mm.default(a, b))
    out = blank(a @ b)
    run(lib, "aten::addmm.out", self=s, mat1=a, mat2=b, beta=1, alpha=1, out=out)
    close(out, aten.addmm.default(s, a, b))


@SETTINGS
@given(
    st.integers(1, 6),
    st.integers(0, 6),
    st.integers(1, 6),
    st.sampled_from(["mn", "n", "1n", "m1", "0d"]),
    st.sampled_from([1, 0, 2, 0.5, -1.5]),
    st.sampled_from([1, 0, 3, 0.25]),
    seeds,
)
def test_addmm(lib, m, k, n, self_shape, beta, alpha, seed):
    shape = {"mn": (m, n), "n": (n,), "1n": (1, n), "m1": (m, 1), "0d": ()}[self_shape]
    s, a, b = rand(seed, *shape), rand(seed + 1, m, k), rand(seed + 2, k, n)
    ref = aten.addmm.default(s, a, b, beta=beta, alpha=alpha)
    out = blank(ref)
    run(lib, "aten::addmm.out", self=s, mat1=a, mat2=b, beta=beta, alpha=alpha, out=out)
    close(out, ref)


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 7), st.integers(1, 7), st.integers(1, 7), seeds)
def test_mm_and_bmm(lib, batch, m, k, n, seed):
    a, b = rand(seed, batch, m, k), rand(seed + 1, batch, k, n)
    out = blank(aten.bmm.default(a, b))
    run(lib, "aten::bmm.out", self=a, mat2=b, out=out)
    close(out, aten.bmm.default(a, b))
    out2 = blank(a[0] @ b[0])
    run(lib, "aten::mm.out", self=a[0].contiguous(), mat2=b[0].contiguous(), out=out2)
    close(out2, aten.mm.default(a[0], b[0]))


# --- element-wise ---------------------------------------------------------------------------------

shapes = st.lists(st.integers(1, 5), min_size=0, max_size=4)
UNARY = {
    "relu": aten.relu.default,
    "sigmoid": aten.sigmoid.default,
    "tanh": aten.tanh.default,
    "hardswish": aten.hardswish.default,
    "hardsigmoid": aten.hardsigmoid.default,
}


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(SETTINGS, max_examples=15)
@given(shape=shapes, seed=seeds)
def test_unary(lib, name, shape, seed):
    x = rand(seed, *shape, scale=5.0)
    out = blank(x)
    run(lib, f"aten::{name}.out", self=x, out=out)
    close(out, UNARY[name](x))


scalars = st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 3)))


@SETTINGS
@given(shapes, scalars, scalars, seeds)
def test_hardtanh(lib, shape, lo, hi, seed):
    x = rand(seed, *shape, scale=4.0)
    out = blank(x)
    run(lib, "aten::hardtanh.out", self=x, min_val=lo, max_val=hi, out=out)
    close(out, aten.hardtanh.default(x, lo, hi))


@SETTINGS
@given(shapes, st.one_of(st.none(), scalars), st.one_of(st.none(), scalars), seeds)
def test_clamp(lib, shape, lo, hi, seed):
    assume(lo is not None or hi is not None)
    x = rand(seed, *shape, scale=4.0)
    out = blank(x)
    run(lib, "aten::clamp.out", self=x, min=lo, max=hi, out=out)
    close(out, aten.clamp.default(x, lo, hi))


@st.composite
def broadcast_pairs(draw):
    rank = draw(st.integers(0, 4))
    base = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))

    def operand():
        kept = base[rank - draw(st.integers(0, rank)) :]
        return [1 if draw(st.booleans()) else s for s in kept]

    return operand(), operand()


BINARY = {"add": aten.add.Tensor, "sub": aten.sub.Tensor, "mul": aten.mul.Tensor, "div": aten.div.Tensor}


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(SETTINGS, max_examples=25)
@given(pair=broadcast_pairs(), alpha=st.sampled_from([1, 2, -0.5]), seed=seeds)
def test_binary_broadcasting(lib, name, pair, alpha, seed):
    a = rand(seed, *pair[0])
    b = rand(seed + 1, *pair[1])
    b = b + torch.sign(b) * 0.5 if name == "div" else b  # keep divisors away from 0
    extra = {"alpha": alpha} if name in ("add", "sub") else {}
    ref = BINARY[name](a, b, **extra)
    out = blank(ref)
    run(lib, f"aten::{name}.out", self=a, other=b, out=out, **extra)
    close(out, ref)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("scalar", [torch.tensor(3), torch.tensor(2, dtype=torch.int32), torch.tensor(True)])
def test_binary_with_a_one_element_integer_tensor(lib, name, scalar):
    a = rand(0, 2, 3)
    if name == "sub" and scalar.dtype == torch.bool:  # torch refuses, and so do we
        assert lib.call(BY_QUALIFIED["aten::sub.out"], self=a, other=scalar, out=a.clone()) == ERR["MX_ERR_BAD_DTYPE"]
        return
    ref = BINARY[name](a, scalar)
    out = blank(ref)
    run(lib, f"aten::{name}.out", self=a, other=scalar, out=out)
    close(out, ref)


# --- pooling --------------------------------------------------------------------------------------


@st.composite
def pool_geometry(draw, dilation=True):
    k = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    stride = draw(st.one_of(st.just([]), st.lists(st.integers(1, 3), min_size=2, max_size=2)))
    pad = [draw(st.integers(0, k[0] // 2)), draw(st.integers(0, k[1] // 2))]
    dil = [draw(st.integers(1, 2)), draw(st.integers(1, 2))] if dilation else [1, 1]
    hw = [draw(st.integers(max(1, dil[i] * (k[i] - 1) + 1 - 2 * pad[i]), 9)) for i in range(2)]
    lead = draw(st.sampled_from([(2,), (1, 3), (2, 2)]))
    return k, stride, pad, dil, (*lead, *hw), draw(st.booleans())


@SETTINGS
@given(pool_geometry(), st.booleans(), seeds)
def test_max_pool2d_with_indices(lib, geometry, ties, seed):
    k, stride, pad, dil, shape, ceil = geometry
    x = rand(seed, *shape)
    x = torch.round(x) if ties else x  # ties check that the first maximum wins, as in torch
    out, idx = aten.max_pool2d_with_indices.default(x, k, stride, pad, dil, ceil)
    got, got_idx = blank(out), blank(idx)
    run(
        lib,
        "aten::max_pool2d_with_indices.out",
        self=x,
        kernel_size=k,
        stride=stride,
        padding=pad,
        dilation=dil,
        ceil_mode=ceil,
        out=got,
        indices=got_idx,
    )
    close(got, out)
    assert torch.equal(got_idx, idx)


@SETTINGS
@given(pool_geometry(dilation=False), st.booleans(), st.one_of(st.none(), st.integers(1, 5)), seeds)
def test_avg_pool2d(lib, geometry, count_include_pad, divisor, seed):
    k, stride, pad, _, shape, ceil = geometry
    x = rand(seed, *shape)
    ref = aten.avg_pool2d.default(x, k, stride, pad, ceil, count_include_pad, divisor)
    out = blank(ref)
    run(
        lib,
        "aten::avg_pool2d.out",
        self=x,
        kernel_size=k,
        stride=stride,
        padding=pad,
        ceil_mode=ceil,
        count_include_pad=count_include_pad,
        divisor_override=divisor,
        out=out,
    )
    close(out, ref)


@SETTINGS
@given(
    st.sampled_from([(2,), (1, 3)]), st.integers(1, 10), st.integers(1, 10), st.integers(1, 6), st.integers(1, 6), seeds
)
def test_adaptive_avg_pool2d(lib, lead, h, w, oh, ow, seed):
    x = rand(seed, *lead, h, w)
    ref = aten._adaptive_avg_pool2d.default(x, [oh, ow])
    out = blank(ref)
    run(lib, "aten::_adaptive_avg_pool2d.out", self=x, output_size=[oh, ow], out=out)
    close(out, ref)


# --- reductions and normalisation -----------------------------------------------------------------


@SETTINGS
@given(st.data(), seeds)
def test_mean(lib, data, seed):
    shape = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    r = len(shape)
    dims = data.draw(st.one_of(st.none(), st.lists(st.integers(0, r - 1), unique=True, max_size=r)))
    dims = None if dims is None else [d - r if data.draw(st.booleans()) else d for d in dims]
    keepdim, dtype = data.draw(st.booleans()), data.draw(st.sampled_from([None, torch.float32]))
    x = rand(seed, *shape)
    ref = aten.mean.dim(x, dims, keepdim)
    out = blank(ref)
    run(
        lib,
        "aten::mean.out",
        self=x,
        dim=dims,
        keepdim=keepdim,
        dtype=None if dtype is None else kh.DTYPE[dtype],
        out=out,
    )
    close(out, ref)


@SETTINGS
@given(st.lists(st.integers(1, 5), min_size=0, max_size=4), st.data(), seeds)
def test_softmax(lib, shape, data, seed):
    dim = data.draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    x = rand(seed, *shape, scale=50.0)  # large logits: only a max-subtracted softmax stays finite
    ref = aten._softmax.default(x, dim, False)
    out = blank(ref)
    run(lib, "aten::_softmax.out", self=x, dim=dim, half_to_float=False, out=out)
    close(out, ref)


@SETTINGS
@given(st.integers(2, 4), st.integers(1, 4), st.booleans(), st.booleans(), st.sampled_from([1e-5, 1e-3, 0.1]), seeds)
def test_batch_norm_no_training(lib, rank, c, has_w, has_b, eps, seed):
    x = rand(seed, 2, c, *([3] * (rank - 2)))
    w, b = (rand(seed + 1, c) if has_w else None), (rand(seed + 2, c) if has_b else None)
    mean, var = rand(seed + 3, c), rand(seed + 4, c).abs() + 0.1
    ref, r1, r2 = aten._native_batch_norm_legit_no_training.default(x, w, b, mean, var, 0.1, eps)
    out, out1, out2 = blank(ref), torch.empty(0), torch.empty(0)
    run(
        lib,
        "aten::_native_batch_norm_legit_no_training.out",
        input=x,
        weight=w,
        bias=b,
        running_mean=mean,
        running_var=var,
        momentum=0.1,
        eps=eps,
        out0=out,
        out1=out1,
        out2=out2,
    )
    close(out, ref)


# --- layout ---------------------------------------------------------------------------------------

dtypes = st.sampled_from([torch.float32, torch.int64, torch.uint8])


def values(seed, shape, dtype):
    return (rand(seed, *shape) * 50).to(dtype)


@SETTINGS
@given(st.lists(st.integers(1, 4), max_size=5), st.data(), dtypes, seeds)
def test_view_copy(lib, shape, data, dtype, seed):
    sizes = list(shape)
    for _ in range(data.draw(st.integers(0, 3))):  # merge neighbours or insert 1s: the element count stays
        if len(sizes) >= 2 and data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(sizes) - 2))
            sizes[i : i + 2] = [sizes[i] * sizes[i + 1]]
        else:
            sizes.insert(data.draw(st.integers(0, len(sizes))), 1)
    target = data.draw(st.permutations(sizes))
    x = values(seed, shape, dtype)
    out = blank(x.reshape(target))
    run(lib, "aten::view_copy.out", self=x, size=target, out=out)
    assert torch.equal(out, x.reshape(target))
    # ExecuTorch's emitter keeps reshape's -1: any one size may be given as -1.
    if target:
        at = data.draw(st.integers(0, len(target) - 1))
        out = blank(x.reshape(target))
        run(lib, "aten::view_copy.out", self=x, size=[-1 if i == at else s for i, s in enumerate(target)], out=out)
        assert torch.equal(out, x.reshape(target))


@SETTINGS
@given(st.lists(st.integers(1, 4), max_size=6), st.data(), dtypes, seeds)
def test_permute_copy(lib, shape, data, dtype, seed):
    r = len(shape)
    dims = [d - r if data.draw(st.booleans()) else d for d in data.draw(st.permutations(range(r)))]
    x = values(seed, shape, dtype)
    ref = x.permute(dims).contiguous()
    out = blank(ref)
    run(lib, "aten::permute_copy.out", self=x, dims=dims, out=out)
    assert torch.equal(out, ref)


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data(), dtypes, seeds)
def test_cat(lib, shape, data, dtype, seed):
    r = len(shape)
    dim = data.draw(st.integers(-r, r - 1))
    parts = []
    for i in range(data.draw(st.integers(1, 4))):
        s = list(shape)
        s[dim] = data.draw(st.integers(0, 3))
        parts.append(values(seed + i, s, dtype))
    if data.draw(st.booleans()):  # torch skips empty 1-D tensors whatever the rank
        parts.insert(data.draw(st.integers(0, len(parts))), torch.empty(0, dtype=dtype))
    ref = aten.cat.default(parts, dim)
    out = blank(ref)
    run(lib, "aten::cat.out", tensors=parts, dim=dim, out=out)
    assert torch.equal(out, ref)


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data(), scalars, seeds)
def test_constant_pad_nd(lib, shape, data, value, seed):
    pad = []
    for i in range(data.draw(st.integers(1, len(shape)))):
        size = shape[len(shape) - 1 - i]
        lo = data.draw(st.integers(-min(size, 2), 3))
        pad += [lo, data.draw(st.integers(-min(size + min(lo, 0), 2), 3))]  # torch: crops within the size
    x = rand(seed, *shape)
    ref = aten.constant_pad_nd.default(x, pad, value)
    out = blank(ref)
    run(lib, "aten::constant_pad_nd.out", self=x, pad=pad, value=value, out=out)
    close(out, ref)


ORDERS = [(0, 1, 2, 3), (0, 2, 3, 1), (3, 2, 1, 0)]


@SETTINGS
@given(
    st.lists(st.integers(1, 4), min_size=4, max_size=4),
    st.sampled_from(ORDERS),
    st.sampled_from(ORDERS),
    st.booleans(),
    dtypes,
    dtypes,
    seeds,
)
def test_to_dim_order_copy(lib, shape, in_order, out_order, pass_order, src_dtype, dst_dtype, seed):
    x = (rand(seed, *shape) * 50).to(src_dtype)
    ref = x.to(dst_dtype)  # torch's cast: truncation toward zero, low bits kept when narrowing
    src, dst = kh.Strided(x, in_order), kh.Strided(torch.zeros_like(ref), out_order)
    # Null dim_order is torch.preserve_format: allowed only when out keeps self's order
    order = list(out_order) if pass_order or out_order != in_order else None
    run(lib, DIM_ORDER_COPY, self=src, dim_order=order, out=dst)
    assert torch.equal(dst.mem, ref.permute(out_order).contiguous())


@pytest.mark.parametrize("dst_dtype", [torch.float64, torch.int32, torch.int8, torch.bool])
def test_to_dim_order_copy_converts_special_floats(lib, dst_dtype):
    x = torch.tensor([0.0, -0.0, 0.5, -1.7, 2.9, -128.0, 127.9, 300.0, 1e9, -1e9])
    if dst_dtype == torch.bool:
        x = torch.cat([x, torch.tensor([float("nan"), float("inf")])])
    out = torch.zeros_like(x, dtype=dst_dtype)
    run(lib, DIM_ORDER_COPY, self=x, out=out)
    if dst_dtype in (torch.int8,):  # torch narrows through int64 on this host
        assert torch.equal(out, x.to(torch.int64).to(dst_dtype))
    else:
        assert torch.equal(out, x.to(dst_dtype))
