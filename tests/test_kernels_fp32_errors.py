"""The error contract of the portable kernels: every kernel checks its argument count, every argument's
tag, dtypes, shapes and values, and answers with the mx_error code errors.def names. Also: the kernel
sources compile without warnings for the host compilers and for the Cortex-M target."""

import shutil
import subprocess

import pytest
import torch

import kernel_harness as kh
from mcu_export.firmware.compile_flags import flags_for
from mcu_export.ops.table import BY_QUALIFIED, OPS

ERR = kh.error_codes()
OK = ERR["MX_OK"]
DIM_ORDER_COPY = "dim_order_ops::_to_dim_order_copy.out"
UNARY = ("relu", "sigmoid", "tanh", "hardswish", "hardsigmoid")
BINARY = ("add", "sub", "mul", "div")


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


def rand(seed, *shape):
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed))


WARNINGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wdouble-promotion"]
COMPILERS = {
    "gcc": ["gcc", "-O2"],
    "clang-16": ["clang-16", "-O2"],
    # the target: Cortex-M55 with its single-precision FPU, with the firmware's flags for the runtime's kernels
    "arm-none-eabi-gcc": [
        "arm-none-eabi-gcc",
        "-mcpu=cortex-m55",
        "-mthumb",
        "-mfloat-abi=hard",
        *flags_for("runtime/kernels/portable/mx_k.c"),
    ],
}


@pytest.mark.parametrize("compiler", sorted(COMPILERS))
@pytest.mark.slow
def test_kernels_compile_without_warnings(compiler, tmp_path):
    cmd = COMPILERS[compiler]
    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} is not installed")
    sources = [str(p) for p in kh.kernel_sources()]
    r = subprocess.run(
        [*cmd, *WARNINGS, f"-I{kh.INCLUDE_DIR}", "-c", *sources], cwd=tmp_path, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert len(list(tmp_path.glob("*.o"))) == len(sources)


# --- the error contract ---------------------------------------------------------------------------


def samples():
    """One valid call per kernel: (op, kwargs). The first tensor argument has rank >= 2 and more than
    one element, so the checks below can break it in every way."""
    x, e = rand(0, 2, 3, 6, 6), torch.empty
    return {
        "aten::convolution.out": dict(
            input=x,
            weight=rand(1, 4, 3, 3, 3),
            bias=rand(2, 4),
            stride=[1, 1],
            padding=[1, 1],
            dilation=[1, 1],
            transposed=False,
            output_padding=[0, 0],
            groups=1,
            out=e(2, 4, 6, 6),
        ),
        "aten::addmm.out": dict(self=rand(0, 2, 4), mat1=rand(1, 2, 3), mat2=rand(2, 3, 4), out=e(2, 4)),
        "aten::mm.out": dict(self=rand(0, 2, 3), mat2=rand(1, 3, 4), out=e(2, 4)),
        "aten::bmm.out": dict(self=rand(0, 2, 2, 3), mat2=rand(1, 2, 3, 4), out=e(2, 2, 4)),
        **{f"aten::{n}.out": dict(self=x, out=e(x.shape)) for n in UNARY},
        "aten::hardtanh.out": dict(self=x, out=e(x.shape)),
        "aten::clamp.out": dict(self=x, min=-0.5, max=1, out=e(x.shape)),
        **{f"aten::{n}.out": dict(self=x, other=rand(1, 6), out=e(x.shape)) for n in BINARY},
        "aten::max_pool2d_with_indices.out": dict(
            self=x, kernel_size=[2, 2], out=e(2, 3, 3, 3), indices=e(2, 3, 3, 3, dtype=torch.int64)
        ),
        "aten::avg_pool2d.out": dict(self=x, kernel_size=[2, 2], out=e(2, 3, 3, 3)),
        "aten::_adaptive_avg_pool2d.out": dict(self=x, output_size=[1, 1], out=e(2, 3, 1, 1)),
        "aten::mean.out": dict(self=x, dim=[-1, -2], keepdim=True, out=e(2, 3, 1, 1)),
        "aten::view_copy.out": dict(self=x, size=[6, 36], out=e(6, 36)),
        "aten::permute_copy.out": dict(self=x, dims=[0, 2, 3, 1], out=e(2, 6, 6, 3)),
        "aten::cat.out": dict(tensors=[x, x], dim=1, out=e(2, 6, 6, 6)),
        "aten::_softmax.out": dict(self=x, dim=1, half_to_float=False, out=e(x.shape)),
        "aten::constant_pad_nd.out": dict(self=x, pad=[1, 1], out=e(2, 3, 6, 8)),
        "aten::_native_batch_norm_legit_no_training.out": dict(
            input=x,
            weight=None,
            bias=None,
            running_mean=rand(1, 3),
            running_var=rand(2, 3).abs(),
            momentum=0.1,
            eps=1e-5,
            out0=e(x.shape),
            out1=e(0),
            out2=e(0),
        ),
        DIM_ORDER_COPY: dict(self=x, out=e(x.shape)),
        "aten::slice_copy.Tensor_out": dict(self=x, dim=2, start=1, end=-1, step=2, out=e(2, 3, 2, 6)),
        "aten::select_copy.int_out": dict(self=x, dim=-1, index=-1, out=e(2, 3, 6)),
        "aten::split_with_sizes_copy.out": dict(self=x, split_sizes=[2, 4], dim=2, out=[e(2, 3, 2, 6), e(2, 3, 4, 6)]),
        "aten::expand_copy.out": dict(self=rand(0, 3, 1, 6), size=[2, 3, 4, -1], out=e(2, 3, 4, 6)),
        "aten::clone.out": dict(self=x, out=e(x.shape)),
        "dim_order_ops::_clone_dim_order.out": dict(self=x, out=e(x.shape)),
        "aten::full.out": dict(size=[2, 3], fill_value=1.5, out=e(2, 3)),
        "aten::full_like.out": dict(self=x, fill_value=0, out=e(x.shape)),
        "aten::embedding.out": dict(weight=rand(0, 5, 6), indices=torch.tensor([[0, 4], [2, 2]]), out=e(2, 2, 6)),
        "aten::where.self_out": dict(condition=x > 0, self=x, other=rand(1, 6), out=e(x.shape)),
        "aten::abs.out": dict(self=x, out=e(x.shape)),
        "aten::neg.out": dict(self=x, out=e(x.shape)),
        "aten::minimum.out": dict(self=x, other=rand(1, 6), out=e(x.shape)),
        "aten::maximum.out": dict(self=x, other=rand(1, 6), out=e(x.shape)),
        **{
            f"aten::{n}.Scalar_out": dict(self=x, other=0.5, out=e(x.shape, dtype=torch.bool))
            for n in ("eq", "ne", "gt", "ge", "lt", "le")
        },
        **{
            f"aten::{n}.Tensor_out": dict(self=x, other=rand(1, 6), out=e(x.shape, dtype=torch.bool))
            for n in ("eq", "ne", "gt", "ge", "lt", "le")
        },
        "aten::logical_not.out": dict(self=x, out=e(x.shape, dtype=torch.bool)),
        "aten::any.out": dict(self=x, dim=1, keepdim=False, out=e(2, 6, 6, dtype=torch.bool)),
        "aten::sum.IntList_out": dict(self=x, dim=[1, -1], out=e(2, 6)),
        "aten::clamp.Tensor_out": dict(self=x, min=rand(1, 6), max=None, out=e(x.shape)),
        "aten::leaky_relu.out": dict(self=x, negative_slope=0.1, out=e(x.shape)),
        "aten::elu.out": dict(self=x, out=e(x.shape)),
        "aten::gelu.out": dict(self=x, approximate="tanh", out=e(x.shape)),
        "aten::_log_softmax.out": dict(self=x, dim=1, half_to_float=False, out=e(x.shape)),
        "aten::native_layer_norm.out": dict(
            input=x,
            normalized_shape=[6, 6],
            weight=rand(1, 6, 6),
            bias=None,
            eps=1e-5,
            out0=e(x.shape),
            out1=e(2, 3, 1, 1),
            out2=e(2, 3, 1, 1),
        ),
        "aten::adaptive_max_pool2d.out": dict(
            self=x, output_size=[4, 3], out=e(2, 3, 4, 3), indices=e(2, 3, 4, 3, dtype=torch.int64)
        ),
        "aten::upsample_nearest2d.vec_out": dict(
            input=x, output_size=None, scale_factors=[2.0, 1.5], out=e(2, 3, 12, 9)
        ),
        "aten::upsample_bilinear2d.vec_out": dict(
            input=x, output_size=[4, 8], align_corners=True, scale_factors=None, out=e(2, 3, 4, 8)
        ),
    }


def build(name, **override):
    """Argument values of the sample call, with some kwargs replaced."""
    op = BY_QUALIFIED[name]
    vals = kh.Values()
    return op.kernel, op.schema(), vals, kh.schema_args(vals, op.schema(), {**samples()[name], **override})


def first_tensor_arg(schema):
    return next(a.name for a in schema.arguments if str(a.type) in ("Tensor", "List[Tensor]"))


def first_out_arg(schema):
    return next(a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write)


def test_samples_cover_every_kernel_and_succeed(lib):
    assert set(samples()) == {op.qualified for op in OPS}
    for name in samples():
        symbol, _, _, args = build(name)
        assert lib.raw(symbol, args) == OK, name


@pytest.mark.parametrize("name", sorted(samples()))
def test_error_codes(lib, name):
    symbol, schema, vals, args = build(name)
    # argument count, one too few and one too many
    assert lib.raw(symbol, args[:-1]) == ERR["MX_ERR_BAD_ARG_COUNT"]
    assert lib.raw(symbol, args + [vals.null()]) == ERR["MX_ERR_BAD_ARG_COUNT"]
    # every position checks its tag (a String where no str is taken, an Int where one is), and a NULL value
    # pointer is an error
    types = [str(a.type) for a in schema.arguments] + ["ret"]
    for i in range(len(args)):
        wrong = vals.int_(0) if types[i] == "str" else vals.string()
        assert lib.raw(symbol, args[:i] + [wrong] + args[i + 1 :]) == ERR["MX_ERR_BAD_ARG_TYPE"], i
        assert lib.last_arg == i  # the refusal names the argument
        assert lib.raw(symbol, args[:i] + [None] + args[i + 1 :]) == ERR["MX_ERR_BAD_ARG_TYPE"], i
        assert lib.last_arg == i
    # the return value must name the out tensor itself
    assert lib.raw(symbol, args[:-1] + [vals.tensor(torch.empty(1))]) in (
        ERR["MX_ERR_BAD_ARG_VALUE"],
        ERR["MX_ERR_BAD_ARG_TYPE"],
    )
    first = first_tensor_arg(schema)
    sample = samples()[name][first]
    # wrong dtype of the first input (float16: not even the converting copy takes it)
    wrong = [t.half() for t in sample] if isinstance(sample, list) else sample.half()
    assert lib.raw(symbol, build(name, **{first: wrong})[3]) == ERR["MX_ERR_BAD_DTYPE"]
    # an out tensor of another shape than the op computes
    out = first_out_arg(schema)
    outs = samples()[name][out]
    last = outs[-1] if isinstance(outs, list) else outs  # a list of outs: its last one grows
    bigger = torch.empty(*last.shape[:-1], last.shape[-1] + 1, dtype=last.dtype)
    bigger = outs[:-1] + [bigger] if isinstance(outs, list) else bigger
    assert lib.raw(symbol, build(name, **{out: bigger})[3]) == ERR["MX_ERR_BAD_SHAPE"]
    # a non-contiguous dim order: only the dim-order copy takes one
    t = sample[0] if isinstance(sample, list) else sample
    reordered = kh.Strided(t, tuple(reversed(range(t.dim()))))
    code = lib.raw(symbol, build(name, **{first: [reordered] if isinstance(sample, list) else reordered})[3])
    assert code == ERR["MX_ERR_BAD_ARG_VALUE"]  # the copy too: Null dim_order asks out to keep self's order


def test_malformed_tensor_is_rejected(lib):
    symbol, _, vals, args = build("aten::relu.out")
    args[0].u.t.contents.numel += 1  # sizes no longer multiply to numel
    assert lib.raw(symbol, args) == ERR["MX_ERR_BAD_SHAPE"]


BAD_VALUES = [
    ("aten::convolution.out", dict(transposed=True, output_padding=[1, 0]), "MX_ERR_BAD_ARG_VALUE"),
    # a transposed weight is [c_in, c_out / groups, ...]: this [4, 3, 3, 3] has 4 where the input has 3 channels
    ("aten::convolution.out", dict(transposed=True, weight=rand(1, 4, 3, 3, 3)), "MX_ERR_BAD_SHAPE"),
    ("aten::convolution.out", dict(input=rand(0, 1, 3, 2, 2, 2)), "MX_ERR_UNSUPPORTED"),
    ("aten::convolution.out", dict(groups=2), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::convolution.out", dict(stride=[0, 1]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::convolution.out", dict(padding=[1, 1, 1]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::convolution.out", dict(bias=torch.zeros(3)), "MX_ERR_BAD_SHAPE"),
    ("aten::clamp.out", dict(min=None, max=None), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::add.out", dict(other=rand(0, 5)), "MX_ERR_BAD_SHAPE"),
    ("aten::mul.out", dict(other=torch.ones(6, dtype=torch.int64)), "MX_ERR_BAD_DTYPE"),
    ("aten::mm.out", dict(mat2=rand(0, 4, 4)), "MX_ERR_BAD_SHAPE"),
    ("aten::max_pool2d_with_indices.out", dict(padding=[2, 2]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::max_pool2d_with_indices.out", dict(indices=torch.empty(2, 3, 3, 3)), "MX_ERR_BAD_DTYPE"),
    ("aten::avg_pool2d.out", dict(divisor_override=0), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::mean.out", dict(dim=[1, -3]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::mean.out", dict(dim=[4]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::mean.out", dict(dtype=kh.DTYPE[torch.float64]), "MX_ERR_BAD_DTYPE"),
    ("aten::view_copy.out", dict(size=[-1, -1]), "MX_ERR_BAD_ARG_VALUE"),  # one -1 may be inferred, not two
    ("aten::view_copy.out", dict(size=[-2, 36]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::view_copy.out", dict(size=[-1, 35]), "MX_ERR_BAD_ARG_VALUE"),  # 216 elements: no whole size
    ("aten::view_copy.out", dict(size=[-1, 0]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::view_copy.out", dict(size=[-1, 72]), "MX_ERR_BAD_SHAPE"),  # inferred 3, out is [6, 36]
    ("aten::view_copy.out", dict(size=[6, 6, 5], out=torch.empty(6, 6, 5)), "MX_ERR_BAD_SHAPE"),
    ("aten::permute_copy.out", dict(dims=[0, 2, 2, 1]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::cat.out", dict(tensors=[]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::cat.out", dict(tensors=[rand(0, 2, 3, 6, 6), rand(0, 2, 3, 5, 6)]), "MX_ERR_BAD_SHAPE"),
    ("aten::_softmax.out", dict(half_to_float=True), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::_softmax.out", dict(dim=4), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::constant_pad_nd.out", dict(pad=[1]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::constant_pad_nd.out", dict(pad=[-4, -3], out=torch.empty(2, 3, 6, 0)), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::_native_batch_norm_legit_no_training.out", dict(running_mean=rand(0, 4)), "MX_ERR_BAD_SHAPE"),
    ("aten::gelu.out", dict(approximate="erf"), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::clamp.Tensor_out", dict(min=None, max=None), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::clamp.Tensor_out", dict(max=rand(0, 5)), "MX_ERR_BAD_SHAPE"),
    # min widens the result to 5-D: out, still 4-D, is refused
    ("aten::clamp.Tensor_out", dict(min=rand(0, 3, 1, 1, 1, 1), out=torch.empty(2, 3, 6, 6)), "MX_ERR_BAD_SHAPE"),
    ("aten::_log_softmax.out", dict(dim=-5), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::native_layer_norm.out", dict(normalized_shape=[6, 5]), "MX_ERR_BAD_SHAPE"),
    ("aten::native_layer_norm.out", dict(weight=rand(0, 6)), "MX_ERR_BAD_SHAPE"),
    ("aten::native_layer_norm.out", dict(out1=torch.empty(2, 3)), "MX_ERR_BAD_SHAPE"),
    ("aten::adaptive_max_pool2d.out", dict(output_size=[0, 3]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::adaptive_max_pool2d.out", dict(indices=torch.empty(2, 3, 4, 3)), "MX_ERR_BAD_DTYPE"),
    ("aten::upsample_nearest2d.vec_out", dict(output_size=[12, 9]), "MX_ERR_BAD_ARG_VALUE"),  # both given
    ("aten::upsample_nearest2d.vec_out", dict(scale_factors=[2.0]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::upsample_nearest2d.vec_out", dict(scale_factors=[-1.0, 2.0]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::upsample_bilinear2d.vec_out", dict(out=torch.empty(2, 3, 4, 7)), "MX_ERR_BAD_SHAPE"),
    (DIM_ORDER_COPY, dict(dim_order=[0, 2, 3, 1]), "MX_ERR_BAD_ARG_VALUE"),
    (DIM_ORDER_COPY, dict(dim_order=[0, 1, 2]), "MX_ERR_BAD_ARG_VALUE"),
    (DIM_ORDER_COPY, dict(out=torch.empty(2, 3, 6, 6, dtype=torch.float16)), "MX_ERR_BAD_DTYPE"),
    ("aten::slice_copy.Tensor_out", dict(step=0), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::slice_copy.Tensor_out", dict(dim=4), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::select_copy.int_out", dict(index=6), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::split_with_sizes_copy.out", dict(split_sizes=[2, 3]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::split_with_sizes_copy.out", dict(split_sizes=[2, 4, 0]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::expand_copy.out", dict(size=[2, 3, 4]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::expand_copy.out", dict(size=[2, 2, 4, 6]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::clone.out", dict(memory_format=2), "MX_ERR_BAD_ARG_VALUE"),
    ("dim_order_ops::_clone_dim_order.out", dict(out=torch.empty(2, 3, 6, 6, dtype=torch.int32)), "MX_ERR_BAD_DTYPE"),
    ("dim_order_ops::_clone_dim_order.out", dict(dim_order=[0, 2, 3, 1]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::full.out", dict(size=[2, -3]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::where.self_out", dict(other=torch.ones(6, dtype=torch.int64)), "MX_ERR_BAD_DTYPE"),
    ("aten::where.self_out", dict(other=rand(0, 5)), "MX_ERR_BAD_SHAPE"),
    ("aten::gt.Tensor_out", dict(other=rand(0, 5)), "MX_ERR_BAD_SHAPE"),
    ("aten::gt.Scalar_out", dict(out=torch.empty(2, 3, 6, 6)), "MX_ERR_BAD_DTYPE"),
    ("aten::any.out", dict(dim=4), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::sum.IntList_out", dict(dim=[1, -3]), "MX_ERR_BAD_ARG_VALUE"),
    ("aten::embedding.out", dict(indices=torch.tensor([[0.0, 1.0]])), "MX_ERR_BAD_DTYPE"),
]


@pytest.mark.parametrize("name, override, code", BAD_VALUES)
def test_bad_argument_values(lib, name, override, code):
    symbol, _, _, args = build(name, **override)
    assert lib.raw(symbol, args) == ERR[code]
    # the check names one of the arguments at fault (an out of the wrong size names out)
    assert lib.last_arg in {BY_QUALIFIED[name].arg_index(k) for k in override}
