"""bmm and mm of two int8 activations (attention's q·kᵀ and weights·v) as cortex_m::quantized_batch_matmul.

arm_batch_matmul_s8 reads the right-hand matrix transposed (rows of the shared dim K), so the rule
emits a transpose of it first, unless the right-hand side is itself the transpose of an int8 value that
this backend made (k.transpose(-2, -1)): then that value, already [.., N, K], is read directly, and the
transpose made for the permute, if nothing else reads it, is dropped when the backend finishes."""

from __future__ import annotations

from collections import Counter
from typing import List, Optional

import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op, scratch_of
from mcu_export.int8.lower.fold_views import _named
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.int8.reference.batch_matmul import batch_matmul_params
from mcu_export.pte import program as pte

aten = torch.ops.aten
fc_scratch = scratch_of("quantized_batch_matmul")


def _transposed_source(lw, b: Node, rank: int) -> Optional[QTensor]:
    """The int8 value whose last two dims `b` swaps, when b dequantizes a permute of it that shares its
    quantization (the permute's own output then needs no second transpose)."""
    q = b.args[0] if match.is_dq(b) else None
    perm_node = q.args[0] if isinstance(q, Node) and match.is_q(q) else None
    if not (isinstance(perm_node, Node) and perm_node.target in (aten.permute.default, aten.permute_copy.default)):
        return None
    swap = list(range(rank - 2)) + [rank - 1, rank - 2]
    if [d % rank for d in perm_node.args[1]] != swap:
        return None
    source = lw.qinput(perm_node.args[0])
    if source is None or source.q != match.qparams(b):
        return None
    return lw.to_layout(source, False)


def lower_batch_matmul(lw, node: Node) -> None:
    a, b = node.args[0], node.args[1]
    qa, qb = lw.qinput(a), lw.qinput(b)
    if qa is None or qb is None:
        raise Refusal("an operand is not int8")
    shape_a, shape_b = lw.shape(a), lw.shape(b)
    rank = len(shape_a)
    if rank not in (2, 3) or len(shape_b) != rank or (rank == 3 and shape_a[0] != shape_b[0]):
        raise Refusal("operands are not two matrices or two equal batches of them")
    if shape_a[-1] * 255 * 255 >= 1 << 31:  # each product of offset operands is at most 255 * 255
        raise Refusal(f"an inner dimension of {shape_a[-1]} could overflow the int32 accumulator")
    _, _, quantizers = terminal(node, fuse=False)
    out = match.qparams(quantizers[0])
    qa = lw.to_layout(qa, False)
    rhs_t = _transposed_source(lw, b, rank)
    if rhs_t is None:
        qb = lw.to_layout(qb, False)
        t_shape = list(shape_b[:-2]) + [shape_b[-1], shape_b[-2]]
        index = lw.new_tensor(torch.int8, t_shape)
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        lw.call(cortex_m_op("transpose"), dict(input=T(qb.index), perm=perm), [index])
        rhs_t = QTensor(index, qb.scale, qb.zp, False)
    mult, shift = batch_matmul_params(qa.scale, qb.scale, out.scale)
    if mult == 0:
        raise Refusal("the output scale is too large against the operands' for a Q31 multiplier")
    shape = lw.shape(node)
    scratch_bytes = max(fc_scratch(isa, shape[-1]) for isa in lw.isas)
    scratch = lw.new_tensor(torch.uint8, [scratch_bytes])
    result = lw.new_tensor(torch.int8, shape)
    lw.call(
        cortex_m_op("quantized_batch_matmul"),
        dict(
            lhs=T(qa.index),
            lhs_zero_point=-qa.zp,
            rhs_transposed=T(rhs_t.index),
            rhs_zero_point=-qb.zp,
            output_zero_point=out.zp,
            output_multiplier=mult,
            output_shift=shift,
            scratch=T(scratch),
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, out.scale, out.zp, False), [node])


def _read_by(instruction) -> List[int]:
    if isinstance(instruction, pte.MoveCall):
        return [instruction.move_from]
    return list(getattr(instruction, "args", []))


def unread_transposes(
    instructions: List[pte.Instruction], operators: List[pte.Operator], values: list, outputs
) -> List[int]:
    """Indices of cortex_m::transpose calls whose result nothing reads (a kᵀ that the batch matmul read
    untransposed instead), for the backend's finish to remove; their out tensors become Null (no arena)."""
    name = [f"{op.name}.{op.overload}" for op in operators]
    # every instruction that names values (kernel and delegate calls, moves) counts as a reader
    uses = Counter(a for i in instructions for a in _named(values, _read_by(i)))
    removed = []
    for step, call in enumerate(instructions):
        if not isinstance(call, pte.KernelCall) or name[call.op_index] != "cortex_m::transpose.out":
            continue
        dst = call.args[-1]
        if dst not in outputs and uses[dst] == 2:  # its own out and return only
            values[dst] = pte.Null()
            removed.append(step)
    return removed
