"""How the loader bounds each instruction's work (issue: a program can never make the runtime run forever).

Every call costs the elements of its tensor arguments (one pass over each). Ops whose work grows faster than
their tensors name a rule and the argument it reads; the loader (runtime_c/src/method_cost.c) multiplies the
largest out's element count by:

- ``rows``: the argument's elements per leading row (a weight [C_out, ...]: the reduction length of a
  convolution or a fully connected layer);
- ``conv``: as ``rows``, times the first input's elements when it has more (aten::convolution, which may be
  transposed: its rows then run per input element);
- ``cols``: the argument's elements per trailing column (a depthwise weight [1, KH, KW, C]: KH * KW);
- ``last``: the argument's trailing size (the K of a matrix product);
- ``window``: the product of an int[] argument (a pool's kernel_size).
"""

from __future__ import annotations

from typing import Dict, Tuple

from mcu_export.ops.table import OpDef

RULES = ("elements", "rows", "cols", "last", "window", "conv")  # the order of mx_cost_rule (mx/kernel.h)

# qualified op name -> (rule, argument name)
_COSTS: Dict[str, Tuple[str, str]] = {
    "aten::convolution.out": ("conv", "weight"),
    "aten::addmm.out": ("last", "mat1"),
    "aten::mm.out": ("last", "self"),
    "aten::bmm.out": ("last", "self"),
    "aten::max_pool2d_with_indices.out": ("window", "kernel_size"),
    "aten::avg_pool2d.out": ("window", "kernel_size"),
    "cortex_m::quantized_linear.out": ("rows", "weights"),
    "cortex_m::quantized_conv2d.out": ("rows", "weight"),
    "cortex_m::quantized_conv2d_nhwc.out": ("rows", "weight"),
    "cortex_m::quantized_depthwise_conv2d.out": ("cols", "weight"),
    "cortex_m::quantized_depthwise_conv2d_nhwc.out": ("cols", "weight"),
    "cortex_m::quantized_transpose_conv2d.out": ("rows", "weight"),
    "cortex_m::quantized_avg_pool2d.out": ("window", "kernel_size"),
    "cortex_m::quantized_avg_pool2d_nhwc.out": ("window", "kernel_size"),
    "cortex_m::quantized_max_pool2d.out": ("window", "kernel_size"),
    "cortex_m::quantized_max_pool2d_nhwc.out": ("window", "kernel_size"),
    "cortex_m::quantized_batch_matmul.out": ("last", "lhs"),
}


def cost_rule(op: OpDef) -> Tuple[int, int]:
    """(index in RULES, argument index) of op's cost rule; (0, 0) for the elements-only cost."""
    rule, arg = _COSTS.get(op.qualified, ("elements", ""))
    return RULES.index(rule), op.arg_index(arg) if arg else 0
