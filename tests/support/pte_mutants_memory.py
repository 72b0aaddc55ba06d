"""Mutants of memory and work: a constant written, two live tensors sharing bytes, sizes past the runtime's or
the embedder's limits, work past mx_run's default --max-ops, a constant reaching into its neighbour's bytes.

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import numpy as np

from pte_mutant_base import INT32_MAX, huge_pool, move_into_const, mutant, out_to_const, replace_everywhere
from pte_mutations import const_overrun

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


# The return repeats the out (ExecuTorch's emitter): one that names a constant while the out is planned is a
# call whose return disagrees with its out, which the loader refuses first (MX_ERR_BAD_ARG_VALUE, naming it).


@mutant("mixer-f32", "MX_ERR_BAD_ARG_VALUE")
def relu_return_alone_is_constant(e):
    c = e.call("aten::relu.out")
    c.args[e.pos(c, "ret")] = e.new_const_like(e.arg(c, "out"))


@mutant("mixer-i8", "MX_ERR_BAD_ARG_VALUE")
def int8_maxpool_return_alone_is_constant(e):
    c = e.call("cortex_m::quantized_max_pool2d.out")
    c.args[e.pos(c, "ret")] = e.new_const_like(e.arg(c, "out"))
