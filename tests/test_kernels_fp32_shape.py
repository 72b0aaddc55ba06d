"""The data-movement and simple portable kernels against torch (issue 11): slice/select/split/expand/clone/
full/full_like/embedding/where for every dtype, abs/neg/minimum/maximum/sum in float32, the comparisons,
logical_not and any with bool outputs. Each C kernel is called through ctypes with the emitter's argument
layout (kernel_harness) and its output compared with torch's own operator; refusals by the load-time check
are checked too."""

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

import kernel_harness as kh
from fp32_checks import ERR, SETTINGS, blank, close, rand, run, seeds
from mcu_export.ops.table import BY_QUALIFIED

aten = torch.ops.aten
dtypes = st.sampled_from([torch.float32, torch.int64, torch.int8, torch.uint8, torch.bool])
shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels_shape")))


def values(seed, shape, dtype):
    x = rand(seed, *shape) * 50
    return x > 0 if dtype == torch.bool else x.to(dtype)


def refused(lib, op, **kwargs):
    return lib.call(BY_QUALIFIED[op], **kwargs)


# --- data movement -------------------------------------------------------------------------------


@SETTINGS
@given(shapes, st.data(), dtypes, seeds)
def test_slice_copy(lib, shape, data, dtype, seed):
    r = len(shape)
    dim = data.draw(st.integers(-r, r - 1))
    size = shape[dim]
    # None, negative, and beyond the size (clamped as torch does)
    bound = st.one_of(st.none(), st.integers(-size - 3, size + 3))
    start, end, step = data.draw(bound), data.draw(bound), data.draw(st.integers(1, 3))
    x = values(seed, shape, dtype)
    ref = aten.slice_copy.Tensor(x, dim, start, end, step)
    out = torch.zeros_like(ref)
    run(lib, "aten::slice_copy.Tensor_out", self=x, dim=dim, start=start, end=end, step=step, out=out)
    assert torch.equal(out, ref)


def test_slice_copy_refuses_step_0_and_a_wrong_out(lib):
    x = rand(0, 4, 6)
    out = torch.zeros(4, 3)
    assert (
        refused(lib, "aten::slice_copy.Tensor_out", self=x, dim=1, start=0, end=6, step=0, out=out)
        == ERR["MX_ERR_BAD_ARG_VALUE"]
    )
    assert (
        refused(lib, "aten::slice_copy.Tensor_out", self=x, dim=1, start=0, end=4, step=1, out=out)
        == ERR["MX_ERR_BAD_SHAPE"]
    )


@SETTINGS
@given(shapes, st.data(), dtypes, seeds)
def test_select_copy(lib, shape, data, dtype, seed):
    r = len(shape)
    dim = data.draw(st.integers(-r, r - 1))
    index = data.draw(st.integers(-shape[dim], shape[dim] - 1))
    x = values(seed, shape, dtype)
    ref = aten.select_copy.int(x, dim, index)
    out = torch.zeros_like(ref)
    run(lib, "aten::select_copy.int_out", self=x, dim=dim, index=index, out=out)
    assert torch.equal(out, ref)


def test_select_copy_refuses_an_index_out_of_range(lib):
    x = rand(0, 3, 2)
    err = refused(lib, "aten::select_copy.int_out", self=x, dim=0, index=3, out=torch.zeros(2))
    assert err == ERR["MX_ERR_BAD_ARG_VALUE"]


@SETTINGS
@given(shapes, st.data(), dtypes, seeds)
def test_split_with_sizes_copy(lib, shape, data, dtype, seed):
    r = len(shape)
    dim = data.draw(st.integers(-r, r - 1))
    shape = list(shape)
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    shape[dim] = sum(sizes)
    x = values(seed, shape, dtype)
    refs = aten.split_with_sizes_copy.default(x, sizes, dim)
    outs = [torch.zeros_like(t) for t in refs]
    run(lib, "aten::split_with_sizes_copy.out", self=x, split_sizes=sizes, dim=dim, out=outs)
    for out, ref in zip(outs, refs):
        assert torch.equal(out, ref)


def test_split_with_sizes_copy_refuses_sizes_that_do_not_add_up(lib):
    x = rand(0, 5)
    outs = [torch.zeros(2), torch.zeros(2)]
    err = refused(lib, "aten::split_with_sizes_copy.out", self=x, split_sizes=[2, 2], dim=0, out=outs)
    assert err == ERR["MX_ERR_BAD_ARG_VALUE"]


def test_split_return_must_list_the_outs_themselves(lib):
    """The loader holds the return TensorList to the out list, tensor for tensor (kernel_check.c)."""
    op = BY_QUALIFIED["aten::split_with_sizes_copy.out"]
    vals = kh.Values()
    x, outs = rand(0, 5), [torch.zeros(2), torch.zeros(3)]
    args = kh.schema_args(vals, op.schema(), dict(self=x, split_sizes=[2, 3], dim=0, out=outs))
    assert lib.raw(op.kernel, args) == ERR["MX_OK"]
    listed = args[-2].u.tensors  # the out list: the return must name these very tensors

    def returning(*picks):
        wrapped = []
        for i in picks:
            v = kh.MxValue(tag=kh.TAG["TENSOR"])
            v.u.t = listed.items[i]
            wrapped.append(v)
        return args[:-1] + [vals.tensor_list(wrapped)]

    assert lib.raw(op.kernel, returning(0, 1)) == ERR["MX_OK"]
    for picks in ((1, 0), (0,), (0, 1, 1)):
        assert lib.raw(op.kernel, returning(*picks)) == ERR["MX_ERR_BAD_ARG_VALUE"], picks
        assert lib.last_arg == len(args) - 1


@SETTINGS
@given(st.lists(st.integers(1, 3), min_size=0, max_size=4), st.data(), dtypes, seeds)
def test_expand_copy(lib, shape, data, dtype, seed):
    shape = [1 if data.draw(st.booleans()) else s for s in shape]
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    size = lead + [
        data.draw(st.sampled_from([-1, s, 3])) if s == 1 else data.draw(st.sampled_from([-1, s])) for s in shape
    ]
    x = values(seed, shape, dtype)
    ref = aten.expand_copy.default(x, size)
    out = torch.zeros_like(ref)
    run(lib, "aten::expand_copy.out", self=x, size=size, out=out)
    assert torch.equal(out, ref)


def test_expand_copy_refuses_growing_a_dim_that_is_not_1(lib):
    err = refused(lib, "aten::expand_copy.out", self=rand(0, 2, 3), size=[4, 3], out=torch.zeros(4, 3))
    assert err == ERR["MX_ERR_BAD_ARG_VALUE"]


@SETTINGS
@given(st.lists(st.integers(0, 4), max_size=4), dtypes, st.sampled_from([None, torch.contiguous_format]), seeds)
def test_clone(lib, shape, dtype, memory_format, seed):
    x = values(seed, shape, dtype)
    out = torch.zeros_like(x)
    fmt = None if memory_format is None else 0
    run(lib, "aten::clone.out", self=x, memory_format=fmt, out=out)
    assert torch.equal(out, x.clone())


ORDERS = [(0, 1, 2, 3), (0, 2, 3, 1), (3, 2, 1, 0)]


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=4, max_size=4), st.sampled_from(ORDERS), st.sampled_from(ORDERS), dtypes)
def test_clone_dim_order(lib, shape, in_order, out_order, dtype):
    """ExecuTorch's clone: a copy into out's memory order, the dtype kept."""
    x = values(0, shape, dtype)
    src, dst = kh.Strided(x, in_order), kh.Strided(torch.zeros_like(x), out_order)
    run(lib, "dim_order_ops::_clone_dim_order.out", self=src, dim_order=list(out_order), out=dst)
    assert torch.equal(dst.mem, x.permute(out_order).contiguous())


def test_clone_refuses_channels_last(lib):
    x = rand(0, 1, 2, 2, 2)
    assert (
        refused(lib, "aten::clone.out", self=x, memory_format=2, out=torch.zeros_like(x)) == ERR["MX_ERR_BAD_ARG_VALUE"]
    )


fills = st.one_of(st.integers(-200, 200), st.floats(-300, 300, allow_nan=False), st.booleans())
fill_dtypes = st.sampled_from([torch.float32, torch.float64, torch.int64, torch.int32, torch.int8, torch.bool])


@SETTINGS
@given(st.lists(st.integers(0, 4), max_size=4), fills, fill_dtypes)
def test_full(lib, shape, value, dtype):
    assume(dtype != torch.int8 or -128 <= value < 128)  # torch refuses a fill that overflows the dtype
    ref = aten.full.default(shape, value, dtype=dtype)
    out = torch.zeros_like(ref)
    run(lib, "aten::full.out", size=shape, fill_value=value, out=out)
    assert torch.equal(out, ref)


@SETTINGS
@given(st.lists(st.integers(0, 4), max_size=4), fills, fill_dtypes, seeds)
def test_full_like(lib, shape, value, dtype, seed):
    assume(dtype != torch.int8 or -128 <= value < 128)  # torch refuses a fill that overflows the dtype
    x = rand(seed, *shape)
    ref = aten.full_like.default(x, value, dtype=dtype)
    out = torch.zeros_like(ref)
    run(lib, "aten::full_like.out", self=x, fill_value=value, out=out)
    assert torch.equal(out, ref)


@SETTINGS
@given(st.integers(1, 6), st.integers(0, 4), st.lists(st.integers(0, 3), max_size=3), dtypes, st.data(), seeds)
def test_embedding(lib, rows, width, index_shape, dtype, data, seed):
    weight = values(seed, [rows, width], dtype)
    index_dtype = data.draw(st.sampled_from([torch.int64, torch.int32]))
    indices = torch.randint(0, rows, index_shape, generator=torch.Generator().manual_seed(seed), dtype=index_dtype)
    ref = aten.embedding.default(weight, indices)
    out = torch.zeros_like(ref)
    run(lib, "aten::embedding.out", weight=weight, indices=indices, out=out)
    assert torch.equal(out, ref)


def test_embedding_refuses_an_index_out_of_range_when_it_runs(lib):
    weight, indices = rand(0, 3, 2), torch.tensor([0, 3])
    err = refused(lib, "aten::embedding.out", weight=weight, indices=indices, out=torch.zeros(2, 2))
    assert err == ERR["MX_ERR_BAD_ARG_VALUE"]


@st.composite
def broadcast_shapes(draw, n):
    rank = draw(st.integers(0, 4))
    base = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))

    def operand():
        kept = base[rank - draw(st.integers(0, rank)) :]
        return [1 if draw(st.booleans()) else s for s in kept]

    return [operand() for _ in range(n)]


@SETTINGS
@given(broadcast_shapes(3), dtypes, seeds)
def test_where(lib, shapes3, dtype, seed):
    c_shape, a_shape, b_shape = shapes3
    cond = rand(seed, *c_shape) > 0
    a, b = values(seed + 1, a_shape, dtype), values(seed + 2, b_shape, dtype)
    ref = aten.where.self(cond, a, b)
    out = torch.zeros_like(ref)
    run(lib, "aten::where.self_out", condition=cond, self=a, other=b, out=out)
    assert torch.equal(out, ref)


def test_where_refuses_a_float_condition(lib):
    x = rand(0, 3)
    assert (
        refused(lib, "aten::where.self_out", condition=x, self=x, other=x, out=torch.zeros(3))
        == ERR["MX_ERR_BAD_DTYPE"]
    )


# --- element-wise and reductions -------------------------------------------------------------------

SPECIAL = torch.tensor([0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1.5, -2.5])


@pytest.mark.parametrize("name", ["abs", "neg"])
@SETTINGS
@given(st.lists(st.integers(1, 4), max_size=4), seeds)
def test_unary(lib, name, shape, seed):
    for x in (rand(seed, *shape, scale=5.0), SPECIAL):
        out = blank(x)
        run(lib, f"aten::{name}.out", self=x, out=out)
        ref = getattr(aten, name).default(x)
        assert (
            torch.equal(out.view(torch.int32), ref.view(torch.int32))
            or name == "abs"
            and torch.equal(out.isnan(), ref.isnan())
        )
        close(out, ref)


@pytest.mark.parametrize("name", ["minimum", "maximum"])
@SETTINGS
@given(broadcast_shapes(2), seeds)
def test_minimum_maximum(lib, name, shapes2, seed):
    a, b = rand(seed, *shapes2[0]), rand(seed + 1, *shapes2[1])
    if a.numel() > 1:
        a.view(-1)[0] = float("nan")  # a NaN operand gives NaN
    ref = getattr(aten, name).default(a, b)
    out = blank(ref)
    run(lib, f"aten::{name}.out", self=a, other=b, out=out)
    close(out, ref)


COMPARISONS = ["eq", "ne", "gt", "ge", "lt", "le"]


@pytest.mark.parametrize("name", COMPARISONS)
@SETTINGS
@given(broadcast_shapes(2), st.sampled_from([0, 0.5, -1, float("-inf")]), seeds)
def test_comparisons(lib, name, shapes2, scalar, seed):
    # rounded so that equal values occur; NaN and infinities among them
    a = (rand(seed, *shapes2[0]) * 2).round()
    b = (rand(seed + 1, *shapes2[1]) * 2).round()
    if a.numel() > 2:
        a.view(-1)[:3] = torch.tensor([float("nan"), float("-inf"), 0.5])
    ref = getattr(aten, name).Scalar(a, scalar)
    out = torch.zeros_like(ref)
    run(lib, f"aten::{name}.Scalar_out", self=a, other=scalar, out=out)
    assert torch.equal(out, ref)
    ref = getattr(aten, name).Tensor(a, b)
    out = torch.zeros_like(ref)
    run(lib, f"aten::{name}.Tensor_out", self=a, other=b, out=out)
    assert torch.equal(out, ref)


INT_DTYPES = st.sampled_from([torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool])


@pytest.mark.parametrize("name", COMPARISONS)
@SETTINGS
@given(broadcast_shapes(2), INT_DTYPES, INT_DTYPES, st.sampled_from([0, 1, -3, 2.5, True]), seeds)
def test_comparisons_of_integers(lib, name, shapes2, a_dtype, b_dtype, scalar, seed):
    """Integers compare as integers; a float operand makes both float32, as torch promotes (token masks)."""
    assume(not (a_dtype == torch.uint8 and isinstance(scalar, int) and scalar < 0))  # torch: overflow
    a, b = values(seed, shapes2[0], a_dtype), values(seed + 1, shapes2[1], b_dtype)
    if torch.bool not in (a_dtype, b_dtype) and a_dtype != b_dtype:  # refused: torch would wrap one of them
        assert (
            refused(lib, f"aten::{name}.Tensor_out", self=a, other=b, out=torch.zeros(0, dtype=torch.bool))
            == ERR["MX_ERR_BAD_DTYPE"]
        )
        b = b.to(a_dtype)
    for other, form in ((scalar, "Scalar"), (b, "Tensor"), (rand(seed, *shapes2[1]).round(), "Tensor")):
        ref = getattr(getattr(aten, name), form)(a, other)
        out = torch.zeros_like(ref)
        run(lib, f"aten::{name}.{form}_out", self=a, other=other, out=out)
        assert torch.equal(out, ref), (form, other)


def test_comparison_refuses_a_float_out(lib):
    x = rand(0, 3)
    assert refused(lib, "aten::gt.Scalar_out", self=x, other=0, out=torch.zeros(3)) == ERR["MX_ERR_BAD_DTYPE"]


@SETTINGS
@given(st.lists(st.integers(0, 4), max_size=4), dtypes, seeds)
def test_logical_not(lib, shape, dtype, seed):
    x = values(seed, shape, dtype)
    if x.numel() and dtype == torch.float32:
        x.view(-1)[0] = -0.0  # false, though its bytes are not all zero
    ref = aten.logical_not.default(x)
    out = torch.zeros_like(ref)
    run(lib, "aten::logical_not.out", self=x, out=out)
    assert torch.equal(out, ref)


@SETTINGS
@given(st.lists(st.integers(0, 4), max_size=4), st.data(), dtypes, st.booleans(), seeds)
def test_any(lib, shape, data, dtype, keepdim, seed):
    r = len(shape)
    dim = data.draw(st.integers(-max(r, 1), max(r, 1) - 1))
    x = values(seed, shape, dtype)
    if dtype != torch.bool:
        x = x * (rand(seed + 1, *shape) > 0.8).to(x.dtype)  # mostly zeros, so that some rows have none
    ref = aten.any.dim(x, dim, keepdim)
    out = torch.zeros_like(ref)
    run(lib, "aten::any.out", self=x, dim=dim, keepdim=keepdim, out=out)
    assert torch.equal(out, ref)


@SETTINGS
@given(st.lists(st.integers(0, 4), max_size=4), st.data(), st.booleans(), seeds)
def test_sum(lib, shape, data, keepdim, seed):
    r = len(shape)
    dims = data.draw(
        st.one_of(st.none(), st.lists(st.integers(0, r - 1), unique=True, max_size=r) if r else st.just([]))
    )
    dims = None if dims is None else [d - r if data.draw(st.booleans()) else d for d in dims]
    x = rand(seed, *shape)
    ref = aten.sum.dim_IntList(x, dims, keepdim)
    out = blank(ref)
    run(lib, "aten::sum.IntList_out", self=x, dim=dims, keepdim=keepdim, out=out)
    close(out, ref)


def test_sum_refuses_a_repeated_dim(lib):
    x = rand(0, 2, 3)
    assert refused(lib, "aten::sum.IntList_out", self=x, dim=[1, -1], out=torch.zeros(2)) == ERR["MX_ERR_BAD_ARG_VALUE"]
