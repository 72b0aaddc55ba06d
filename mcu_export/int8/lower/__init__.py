"""Lowering of a PT2E-converted core-ATen graph to a `.pte` Program of cortex_m int8 kernels.

`lower_int8(ep, board)` runs the cortex_m backend first and the portable fp32 backend for what it
refuses; it returns the Program (planned tensors not yet placed) and its LoweringInfo, whose `fallbacks`
list every op left on an fp32 kernel, with its source line and the reason.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

import torch
from torch.export import ExportedProgram

from mcu_export.boards import Board
from mcu_export.ethosu.choice import NpuChoice
from mcu_export.int8.lower import rules_affine as aff
from mcu_export.int8.lower import rules_broadcast as bc
from mcu_export.int8.lower import rules_conv1d as c1
from mcu_export.int8.lower import rules_elementwise as ew
from mcu_export.int8.lower import rules_gather, rules_log_softmax, rules_lut, rules_matmul, rules_norm, rules_prelu
from mcu_export.int8.lower import rules_layout as lay
from mcu_export.int8.lower import rules_reduce as red
from mcu_export.int8.lower import rules_resize as rsz
from mcu_export.int8.lower import rules_transposed_conv as tc
from mcu_export.int8.lower import rules_weighted as wt
from mcu_export.int8.lower.backend import CortexMBackend
from mcu_export.int8.quantizer import FUSABLE_ACTIVATIONS
from mcu_export.lower.backend import lower_graph
from mcu_export.lower.builder import LoweringInfo
from mcu_export.lower.portable import PortableBackend
from mcu_export.pte import program as pte

aten = torch.ops.aten

RULES: Dict[object, Callable] = {
    aten.convolution.default: tc.lower_convolution,
    aten.linear.default: wt.lower_linear,
    aten.add.Tensor: bc.lower_add,
    aten.sub.Tensor: bc.lower_add,
    aten.rsub.Scalar: bc.lower_add,
    aten.mul.Tensor: bc.lower_mul,
    aten.div.Tensor: bc.lower_div,
    aten.minimum.default: bc.lower_min_max,
    aten.maximum.default: bc.lower_min_max,
    aten._softmax.default: ew.lower_softmax,
    aten.max_pool2d_with_indices.default: lay.lower_max_pool,
    aten.avg_pool2d.default: lay.lower_avg_pool,
    aten._adaptive_avg_pool2d.default: lay.lower_adaptive_avg_pool,
    aten.mean.dim: red.lower_mean,
    aten.sum.dim_IntList: red.lower_sum,
    aten.permute.default: lay.lower_permute,
    aten.permute_copy.default: lay.lower_permute,
    aten.constant_pad_nd.default: lay.lower_pad,
    aten.cat.default: lay.lower_cat,
    aten.split_with_sizes.default: lay.lower_split,
    aten.upsample_nearest2d.vec: rsz.lower_upsample_nearest,
    aten.upsample_bilinear2d.vec: rsz.lower_upsample_bilinear,
    aten._native_batch_norm_legit_no_training.default: aff.lower_batch_norm,
}
for _t in (aten.slice.Tensor, aten.select.int, aten.expand.default, aten.clone.default):
    RULES[_t] = lay.lower_copy
for _t in (
    aten.view.default,
    aten.view_copy.default,
    aten._unsafe_view.default,
    aten.reshape.default,
    aten.squeeze.dim,
    aten.squeeze.dims,
    aten.unsqueeze.default,
):
    RULES[_t] = lay.lower_view
RULES[aten.unsqueeze.default] = c1.lower_unsqueeze
RULES[aten.squeeze.dim] = RULES[aten.squeeze.dims] = c1.lower_squeeze
for _t in (
    aten.sigmoid.default,
    aten.tanh.default,
    aten.hardswish.default,
    aten.hardsigmoid.default,
    *FUSABLE_ACTIVATIONS,
):
    RULES[_t] = ew.lower_lut


RULES.update(rules_lut.RULES)  # more tables; sigmoid also takes silu's `x * sigmoid(x)`
RULES[aten.bmm.default] = rules_matmul.lower_batch_matmul
RULES[aten.mm.default] = rules_matmul.lower_batch_matmul
RULES[aten.native_layer_norm.default] = rules_norm.lower_layer_norm
RULES[aten._log_softmax.default] = rules_log_softmax.lower_log_softmax
for _t in (aten.gt.Scalar, aten.where.self, aten.mul.Tensor, aten.view.default, aten.view_copy.default):
    RULES[_t] = rules_prelu.prelu_or(RULES.get(_t))  # PReLU's where(x > 0, x, w * x), whole
RULES[aten.embedding.default] = rules_gather.lower_embedding


def int8_backends(
    board: Optional[Board] = None, npu: Optional[NpuChoice] = None, progress=None, io: str = "float"
) -> list:
    """The backends of an int8 program, in priority order (scratch sized for `board`'s ISA, or all); with
    `npu`, the Ethos-U backend last: it delegates runs of the int8 program's calls once they are made.
    io="int8": the program takes and returns int8 tensors (`mcu_export.int8.lower.io`)."""
    backends: list = [CortexMBackend(RULES, board, io), PortableBackend()]
    if npu is not None:
        from mcu_export.ethosu.backend import EthosUBackend

        backends.append(EthosUBackend(npu.accelerator, npu.system_config, npu.memory_mode, progress))
    return backends


def lower_int8(
    ep: ExportedProgram,
    board: Optional[Board] = None,
    with_stacktrace: bool = True,
    npu: Optional[NpuChoice] = None,
    progress=None,
    io: str = "float",
) -> Tuple[pte.Program, LoweringInfo]:
    return lower_graph(ep, int8_backends(board, npu, progress, io), with_stacktrace)


__all__ = ["lower_int8", "int8_backends", "RULES"]
