"""The catalog of semantic mutants (pte_mutations.py edits them): each changes one meaningful thing in a
program exported from a small model or an example, and names the ONE runtime error (errors.def) that loading
it must end in. The sources cover conv, depthwise conv, linear, add, max and average pools, softmax, cat and
split, in fp32 (portable kernels) and int8 (cortex_m kernels).

    for m in MUTANTS: m.build(sources()[m.source].pte)  -> .pte bytes that must fail with m.error

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Dict, List

import numpy as np
import torch

from mcu_export.pte import program as P
from pte_mutations import Edit, const_overrun

INT32_MAX, INT32_MIN = (1 << 31) - 1, -(1 << 31)


class Mixer(torch.nn.Module):
    """One of each operator the mutants aim at; the input is read again late (the skip add), so it is
    live while later intermediates are computed."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.fc = torch.nn.Linear(32, 6)

    def forward(self, x):
        a, b = torch.split(torch.relu(self.conv(x)), [4, 4], dim=1)
        s = a + b + x
        f = torch.nn.functional
        c = torch.cat([f.max_pool2d(s, 2), f.avg_pool2d(s, 2)], dim=1)
        return torch.softmax(self.fc(f.avg_pool2d(c, 2).flatten(1)), dim=-1)


@dataclass(frozen=True)
class Source:
    pte: bytes
    inputs: List[np.ndarray]  # in memory order (the programs' inputs are contiguous)


def _export(model, inputs, quantize) -> Source:
    import mcu_export.api

    art = mcu_export.api.export(model, inputs, quantize=quantize)
    return Source(art.pte, [x.numpy() for x in inputs])


@functools.lru_cache(maxsize=None)
def sources() -> Dict[str, Source]:
    from example_models import model_and_inputs

    torch.manual_seed(0)
    mixer = (Mixer().eval(), (torch.randn(1, 4, 8, 8),))
    out = {"mixer-f32": _export(*mixer, None), "mixer-i8": _export(*mixer, "int8")}
    for name, short in (("mnist_mlp", "mlp"), ("kws_dscnn", "kws")):
        model, inputs = model_and_inputs(name)
        out[f"{short}-i8"] = _export(model, inputs, "int8")
    out["mlp-f32"] = _export(*model_and_inputs("mnist_mlp"), None)
    return out


@dataclass(frozen=True)
class Mutant:
    name: str
    source: str
    error: str  # the errors.def name it must end in
    edit: Callable[[Edit], None]

    def build(self, pte: bytes) -> bytes:
        e = Edit(pte)
        self.edit(e)
        return e.build()


MUTANTS: List[Mutant] = []


def mutant(source: str, error: str):
    def register(fn):
        MUTANTS.append(Mutant(fn.__name__.replace("_", "-"), source, error, fn))
        return fn

    return register


# ---- shared edits -------------------------------------------------------------------------------------


def out_to_const(e: Edit, op: str, name: str = "out", nth: int = 0) -> None:
    """The call's out (and its return, which repeats it) becomes a constant of the same type."""
    c = e.call(op, nth)
    old = e.arg(c, name)
    e.retarget(c, old, e.new_const_like(old))


def replace_everywhere(e: Edit, old: int, new: int) -> None:
    for ins in e.instructions:
        if isinstance(ins, P.KernelCall):
            e.retarget(ins, old, new)
    e.plan.inputs[:] = [new if i == old else i for i in e.plan.inputs]
    e.plan.outputs[:] = [new if i == old else i for i in e.plan.outputs]


def move_into_const(e: Edit) -> None:
    src = e.plan.inputs[0]
    e.instructions.insert(0, P.MoveCall(src, e.new_const_like(src)))
    if e.plan.chains[0].stacktrace is not None:
        e.plan.chains[0].stacktrace.insert(0, [])


def fill_const(e: Edit, op: str, name: str, value: int, nth: int = 0) -> None:
    index = e.arg(e.call(op, nth), name)
    e.set_const_data(index, np.full_like(e.const_array(index), value))


def fill_ints(e: Edit, op: str, name: str, value: int, nth: int = 0) -> None:
    c = e.call(op, nth)
    e.set_ints(c, name, [value] * len(e.items(c, name)))


def huge_pool(e: Edit, op: str, dtype, channels_last: bool, window: int = 400) -> None:
    """Pool over a [1, 1, 2w-1, 2w-1] input with a w x w window, stride 1: (w*w) * (w*w) window reads,
    2.56e10 for w = 400, from tensors of 0.6 M elements: the shapes are consistent, only the work is huge."""
    c = e.call(op)
    order = (0, 2, 3, 1) if channels_last else None
    side = 2 * window - 1
    e.retarget(
        c, e.arg(c, "input" if op.startswith("cortex_m") else "self"), e.new_planned([1, 1, side, side], dtype, order)
    )
    e.retarget(c, e.arg(c, "out"), e.new_planned([1, 1, window, window], dtype, order))
    if op == "aten::max_pool2d_with_indices.out":
        e.retarget(c, e.arg(c, "indices"), e.new_planned([1, 1, window, window], np.int64))
    e.set_ints(c, "kernel_size", [window, window])
    e.set_ints(c, "stride", [1, 1])
    e.set_ints(c, "padding", [0, 0])


# ---- a constant written: MX_ERR_CONSTANT_WRITE (a MoveCall into one: MX_ERR_UNSUPPORTED) ---------------


@mutant("mixer-f32", "MX_ERR_CONSTANT_WRITE")
def relu_out_is_constant(e):
    out_to_const(e, "aten::relu.out")


@mutant("mixer-f32", "MX_ERR_CONSTANT_WRITE")
def add_out_is_constant(e):
    out_to_const(e, "aten::add.out", nth=1)


@mutant("mixer-f32", "MX_ERR_CONSTANT_WRITE")
def split_list_item_is_constant(e):
    c = e.call("aten::split_with_sizes_copy.out")
    item = e.values[e.arg(c, "out")].items[1]
    e.retarget(c, item, e.new_const_like(item))


@mutant("mixer-f32", "MX_ERR_CONSTANT_WRITE")
def maxpool_indices_are_constant(e):
    out_to_const(e, "aten::max_pool2d_with_indices.out", "indices")


@mutant("mixer-f32", "MX_ERR_CONSTANT_WRITE")
def method_input_is_constant(e):
    old = e.plan.inputs[0]
    replace_everywhere(e, old, e.new_const_like(old))


@mutant("mixer-f32", "MX_ERR_CONSTANT_WRITE")
def method_output_is_constant(e):
    e.plan.outputs[0] = e.new_const_like(e.plan.outputs[0])


@mutant("mixer-i8", "MX_ERR_CONSTANT_WRITE")
def int8_conv_out_is_constant(e):
    out_to_const(e, "cortex_m::quantized_conv2d.out")


@mutant("mixer-i8", "MX_ERR_CONSTANT_WRITE")
def int8_cat_out_is_constant(e):
    out_to_const(e, "aten::cat.out")


@mutant("mlp-i8", "MX_ERR_CONSTANT_WRITE")
def int8_linear_out_is_constant(e):
    out_to_const(e, "cortex_m::quantized_linear.out", nth=1)


@mutant("mlp-i8", "MX_ERR_CONSTANT_WRITE")
def int8_method_input_is_constant(e):
    old = e.plan.inputs[0]
    replace_everywhere(e, old, e.new_const_like(old))


@mutant("kws-i8", "MX_ERR_CONSTANT_WRITE")
def int8_depthwise_out_is_constant(e):
    out_to_const(e, "cortex_m::quantized_depthwise_conv2d.out", nth=2)


@mutant("mixer-i8", "MX_ERR_CONSTANT_WRITE")
def int8_method_output_is_constant(e):
    e.plan.outputs[0] = e.new_const_like(e.plan.outputs[0])


@mutant("mixer-f32", "MX_ERR_UNSUPPORTED")
def move_into_a_constant(e):
    move_into_const(e)


@mutant("mlp-i8", "MX_ERR_UNSUPPORTED")
def int8_move_into_a_constant(e):
    move_into_const(e)


# ---- two live tensors sharing bytes: MX_ERR_PLAN_OVERLAP --------------------------------------------


@mutant("mixer-f32", "MX_ERR_PLAN_OVERLAP")
def conv_out_over_its_input(e):
    c = e.call("aten::convolution.out")
    e.place_over(e.arg(c, "out"), e.arg(c, "input"))


@mutant("mixer-i8", "MX_ERR_PLAN_OVERLAP")
def int8_conv_scratch_over_its_input(e):
    c = e.call("cortex_m::quantized_conv2d.out")
    e.place_over(e.arg(c, "scratch"), e.arg(c, "input"))


@mutant("mixer-f32", "MX_ERR_PLAN_OVERLAP")
def split_outputs_share_bytes(e):
    c = e.call("aten::split_with_sizes_copy.out")
    first, second = e.values[e.arg(c, "out")].items
    e.place_over(second, first)


@mutant("mixer-f32", "MX_ERR_PLAN_OVERLAP")
def input_over_a_later_intermediate(e):
    c = e.call("aten::split_with_sizes_copy.out")
    e.place_over(e.values[e.arg(c, "out")].items[0], e.plan.inputs[0])


@mutant("mixer-i8", "MX_ERR_PLAN_OVERLAP")
def int8_quantized_input_under_a_later_intermediate(e):
    """The int8 program reads its fp32 input once (quantize); the quantized copy is what the skip add reads."""
    c = e.call("aten::split_with_sizes_copy.out")
    quantized = e.arg(e.call("cortex_m::quantize_per_tensor.out"), "out")
    e.place_over(e.values[e.arg(c, "out")].items[1], quantized)


@mutant("mixer-i8", "MX_ERR_PLAN_OVERLAP")
def int8_add_out_over_other_half_way(e):
    c = e.call("cortex_m::quantized_add.out")
    e.place_over(e.arg(c, "out"), e.arg(c, "other"), delta=128)


@mutant("mixer-f32", "MX_ERR_PLAN_OVERLAP")
def maxpool_indices_over_values(e):
    c = e.call("aten::max_pool2d_with_indices.out")
    e.place_over(e.arg(c, "indices"), e.arg(c, "out"))


@mutant("mixer-i8", "MX_ERR_PLAN_OVERLAP")
def int8_avgpool_scratch_over_out(e):
    c = e.call("cortex_m::quantized_avg_pool2d.out")
    e.place_over(e.arg(c, "scratch"), e.arg(c, "out"))


@mutant("mlp-f32", "MX_ERR_PLAN_OVERLAP")
def addmm_out_over_its_input(e):
    c = e.call("aten::addmm.out", 1)
    e.place_over(e.arg(c, "out"), e.arg(c, "mat1"))


@mutant("kws-i8", "MX_ERR_PLAN_OVERLAP")
def int8_avgpool_in_place(e):
    c = e.call("cortex_m::quantized_avg_pool2d.out")
    e.place_over(e.arg(c, "out"), e.arg(c, "input"))


@mutant("mixer-i8", "MX_ERR_PLAN_OVERLAP")
def int8_cat_out_over_second_input(e):
    c = e.call("aten::cat.out")
    e.place_over(e.arg(c, "out"), e.values[e.arg(c, "tensors")].items[1])


# ---- wrong shapes, dtypes, dim orders, argument kinds (the kernels' own checks) -------------------------


@mutant("mixer-f32", "MX_ERR_BAD_SHAPE")
def conv_out_one_column_short(e):
    e.edit_tensor(e.arg(e.call("aten::convolution.out"), "out"), sizes=[1, 8, 8, 7])


@mutant("mixer-f32", "MX_ERR_BAD_SHAPE")
def addmm_out_one_feature_short(e):
    e.edit_tensor(e.arg(e.call("aten::addmm.out"), "out"), sizes=[1, 5])


@mutant("mixer-f32", "MX_ERR_BAD_ARG_VALUE")
def split_sizes_do_not_add_up(e):
    e.set_ints(e.call("aten::split_with_sizes_copy.out"), "split_sizes", [4, 3])


@mutant("mixer-i8", "MX_ERR_BAD_SHAPE")
def int8_softmax_out_short(e):
    e.edit_tensor(e.arg(e.call("cortex_m::softmax.out"), "out"), sizes=[1, 5])


@mutant("mixer-i8", "MX_ERR_BAD_SHAPE")
def int8_cat_out_one_channel_short(e):
    e.edit_tensor(e.arg(e.call("aten::cat.out"), "out"), sizes=[1, 7, 4, 4])


@mutant("mlp-i8", "MX_ERR_BAD_SHAPE")
def int8_linear_weight_one_input_short(e):
    w = e.arg(e.call("cortex_m::quantized_linear.out"), "weights")
    e.edit_tensor(w, sizes=[32, 783])


@mutant("mixer-f32", "MX_ERR_BAD_DTYPE")
def relu_out_int32(e):
    e.edit_tensor(e.arg(e.call("aten::relu.out"), "out"), scalar_type=P.ScalarType.INT)


@mutant("mixer-f32", "MX_ERR_BAD_DTYPE")
def conv_weight_int32(e):
    e.edit_tensor(e.arg(e.call("aten::convolution.out"), "weight"), scalar_type=P.ScalarType.INT)


@mutant("mixer-i8", "MX_ERR_BAD_DTYPE")
def int8_conv_bias_int8(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_conv2d.out"), "bias"), scalar_type=P.ScalarType.CHAR)


@mutant("mixer-i8", "MX_ERR_BAD_DTYPE")
def int8_add_other_uint8(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_add.out"), "other"), scalar_type=P.ScalarType.BYTE)


@mutant("mlp-i8", "MX_ERR_BAD_DTYPE")
def int8_dequantize_out_int32(e):
    e.edit_tensor(e.arg(e.call("cortex_m::dequantize_per_tensor.out"), "out"), scalar_type=P.ScalarType.INT)


@mutant("mixer-f32", "MX_ERR_BAD_ARG_VALUE")
def conv_out_channels_last(e):
    e.edit_tensor(e.arg(e.call("aten::convolution.out"), "out"), dim_order=[0, 2, 3, 1])


@mutant("mixer-f32", "MX_ERR_BAD_TENSOR")
def relu_out_dim_order_repeats(e):
    e.edit_tensor(e.arg(e.call("aten::relu.out"), "out"), dim_order=[0, 0, 1, 2])


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_maxpool_out_contiguous(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_max_pool2d.out"), "out"), dim_order=[0, 1, 2, 3])


@mutant("kws-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_depthwise_input_contiguous(e):
    e.edit_tensor(e.arg(e.call("cortex_m::quantized_depthwise_conv2d.out"), "input"), dim_order=[0, 1, 2, 3])


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def conv_stride_an_int(e):
    e.set_int(e.call("aten::convolution.out"), "stride", 1)


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def add_alpha_a_string(e):
    e.set_arg(e.call("aten::add.out"), "alpha", P.String("1"))


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def softmax_dim_a_bool(e):
    e.set_arg(e.call("aten::_softmax.out"), "dim", P.Bool(True))


@mutant("mixer-f32", "MX_ERR_BAD_ARG_TYPE")
def split_sizes_null(e):
    e.set_arg(e.call("aten::split_with_sizes_copy.out"), "split_sizes", P.Null())


@mutant("mixer-i8", "MX_ERR_BAD_ARG_TYPE")
def int8_linear_multipliers_a_tensor(e):
    c = e.call("cortex_m::quantized_linear.out")
    c.args[e.pos(c, "requantize_multipliers")] = e.new_const(np.array(e.items(c, "requantize_multipliers"), np.int32))


# ---- extreme quantization. A value outside the range its argument declares (a shift past [-31, 31], an int8
# zero point of 300; the op table's ranges, or the kernel's check of a shift tensor) is MX_ERR_BAD_ARG_VALUE;
# one inside it that the kernel's integer arithmetic cannot hold (a bias that overflows the int32 accumulator,
# a negative multiplier) is MX_ERR_ARITH_RANGE.


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_conv_bias_int32_max(e):
    fill_const(e, "cortex_m::quantized_conv2d.out", "bias", INT32_MAX)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_conv_multiplier_negative(e):
    fill_const(e, "cortex_m::quantized_conv2d.out", "requantize_multipliers", -(1 << 30))


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_conv_shift_40(e):
    fill_const(e, "cortex_m::quantized_conv2d.out", "requantize_shifts", 40)


@mutant("kws-i8", "MX_ERR_ARITH_RANGE")
def int8_depthwise_bias_int32_min(e):
    fill_const(e, "cortex_m::quantized_depthwise_conv2d.out", "bias", INT32_MIN, nth=1)


@mutant("kws-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_depthwise_shift_40(e):
    fill_const(e, "cortex_m::quantized_depthwise_conv2d.out", "requantize_shifts", 40)


@mutant("mlp-i8", "MX_ERR_ARITH_RANGE")
def int8_linear_bias_int32_max(e):
    fill_const(e, "cortex_m::quantized_linear.out", "bias", INT32_MAX)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_linear_multiplier_negative(e):
    fill_ints(e, "cortex_m::quantized_linear.out", "requantize_multipliers", -(1 << 30))


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_linear_shift_40(e):
    fill_ints(e, "cortex_m::quantized_linear.out", "requantize_shifts", 40)


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_add_zero_point_300(e):
    e.set_int(e.call("cortex_m::quantized_add.out"), "self_zero_point", 300)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_add_multiplier_negative(e):
    e.set_int(e.call("cortex_m::quantized_add.out"), "other_multiplier", -(1 << 30))


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_add_output_shift_40(e):
    e.set_int(e.call("cortex_m::quantized_add.out"), "output_shift", 40)


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_softmax_multiplier_negative(e):
    e.set_int(e.call("cortex_m::softmax.out"), "input_multiplier", -(1 << 30))


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_avgpool_multiplier_negative(e):
    e.set_int(e.call("cortex_m::quantized_avg_pool2d.out"), "multiplier", -(1 << 30))


@mutant("mixer-i8", "MX_ERR_ARITH_RANGE")
def int8_quantize_zero_point_300(e):
    e.set_int(e.call("cortex_m::quantize_per_tensor.out"), "zero_point", 300)


# ---- huge dims: MX_ERR_TOO_LARGE, MX_ERR_ARENA_TOO_SMALL, MX_ERR_ARENA_LIMIT ---------------------------


@mutant("mixer-f32", "MX_ERR_TOO_LARGE")
def relu_out_dim_int32_max(e):
    e.edit_tensor(e.arg(e.call("aten::relu.out"), "out"), sizes=[1, 8, 8, INT32_MAX])


@mutant("mixer-f32", "MX_ERR_ARENA_TOO_SMALL")
def relu_out_past_its_arena(e):
    e.edit_tensor(e.arg(e.call("aten::relu.out"), "out"), sizes=[1, 8, 8, 4096])


@mutant("mixer-f32", "MX_ERR_ARENA_LIMIT")
def relu_out_of_1_5_gib(e):
    e.grow(e.arg(e.call("aten::relu.out"), "out"), [1, 8, 8, 6 << 20])


@mutant("mixer-i8", "MX_ERR_ARENA_LIMIT")
def int8_arena_of_2_gib(e):
    e.plan.non_const_buffer_sizes[1] = 2 << 30


@mutant("mlp-f32", "MX_ERR_ARENA_LIMIT")
def arena_of_1_tib(e):
    e.plan.non_const_buffer_sizes[1] = 1 << 40


# ---- consistent shapes, unbounded work: MX_ERR_TOO_COSTLY (mx_run's default --max-ops 1e10) -------------


@mutant("mixer-f32", "MX_ERR_TOO_COSTLY")
def avgpool_window_400(e):
    huge_pool(e, "aten::avg_pool2d.out", np.float32, False)


@mutant("mixer-f32", "MX_ERR_TOO_COSTLY")
def maxpool_window_400(e):
    huge_pool(e, "aten::max_pool2d_with_indices.out", np.float32, False)


@mutant("mixer-i8", "MX_ERR_TOO_COSTLY")
def int8_avgpool_window_400(e):
    huge_pool(e, "cortex_m::quantized_avg_pool2d.out", np.int8, True)


@mutant("mixer-i8", "MX_ERR_TOO_COSTLY")
def int8_maxpool_window_400(e):
    huge_pool(e, "cortex_m::quantized_max_pool2d.out", np.int8, True)


@mutant("mixer-f32", "MX_ERR_TOO_COSTLY")
def conv_512_channels_on_70x70(e):
    """68*68*512 outputs, 512*3*3 MACs each: 1.09e10."""
    c = e.call("aten::convolution.out")
    e.retarget(c, e.arg(c, "input"), e.new_planned([1, 512, 70, 70], np.float32))
    e.retarget(c, e.arg(c, "weight"), e.new_planned([512, 512, 3, 3], np.float32))
    e.retarget(c, e.arg(c, "bias"), e.new_const(np.zeros(512, np.float32)))
    e.retarget(c, e.arg(c, "out"), e.new_planned([1, 512, 68, 68], np.float32))
    e.set_ints(c, "padding", [0, 0])


@mutant("mlp-f32", "MX_ERR_TOO_COSTLY")
def addmm_2200_cubed(e):
    """2200^3 = 1.06e10 MACs from three 2200x2200 matrices."""
    c = e.call("aten::addmm.out")
    n = 2200
    e.retarget(c, e.arg(c, "self"), e.new_const(np.zeros(n, np.float32)))
    for name in ("mat1", "mat2", "out"):
        e.retarget(c, e.arg(c, name), e.new_planned([n, n], np.float32))


@mutant("mlp-i8", "MX_ERR_TOO_COSTLY")
def int8_linear_10000_by_1024_by_1024(e):
    """10000 rows through a 1024x1024 int8 weight: 1.05e10 MACs."""
    c = e.call("cortex_m::quantized_linear.out")
    m, k, n = 10000, 1024, 1024
    e.retarget(c, e.arg(c, "input"), e.new_planned([m, k], np.int8))
    e.retarget(c, e.arg(c, "weights"), e.new_const(np.zeros((n, k), np.int8)))
    e.retarget(c, e.arg(c, "bias"), e.new_const(np.zeros(n, np.int32)))
    e.retarget(c, e.arg(c, "kernel_sum"), e.new_const(np.zeros(n, np.int32)))
    e.retarget(c, e.arg(c, "out"), e.new_planned([m, n], np.int8))
    fill = e.items(c, "requantize_multipliers")[0], e.items(c, "requantize_shifts")[0]
    e.set_ints(c, "requantize_multipliers", [fill[0]] * n)
    e.set_ints(c, "requantize_shifts", [fill[1]] * n)


# ---- a constant reaching into its neighbour's bytes: MX_ERR_CONSTANT_MISSING ----------------------------


@mutant("mixer-f32", "MX_ERR_CONSTANT_MISSING")
def conv_weight_reads_into_the_bias(e):
    const_overrun(e, e.arg(e.call("aten::convolution.out"), "weight"), 1)


@mutant("mixer-i8", "MX_ERR_CONSTANT_MISSING")
def int8_linear_weight_reads_past_its_entry(e):
    const_overrun(e, e.arg(e.call("cortex_m::quantized_linear.out"), "weights"), 1)
