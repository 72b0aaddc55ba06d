"""The fp32 portable kernels against torch: each C kernel is called through ctypes with the emitter's
argument layout (kernel_harness) and its output compared with torch's own operator. Convolution and the
matrix products are in test_kernels_fp32_conv.py."""

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kernel_harness as kh
from fp32_checks import ERR, SETTINGS, blank, close, rand, run, seeds
from mcu_export.ops.table import BY_QUALIFIED, OPS

aten = torch.ops.aten
DIM_ORDER_COPY = "dim_order_ops::_to_dim_order_copy.out"


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


def test_every_op_in_the_table_has_a_kernel_file_and_symbol(lib):
    for op in OPS:
        assert (kh.KERNEL_DIR / f"{op.kernel}.c").is_file(), op.kernel
        assert hasattr(lib.cdll, op.kernel), op.kernel


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
