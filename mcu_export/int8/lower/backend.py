"""The cortex_m backend: int8 kernels for a converted (quantize/dequantize-annotated) core-ATen graph.

Values live in one of two worlds. A quantize node's result is an int8 tensor with its (scale, zero
point) and a layout: channels-last (dim order [0, 2, 3, 1], what conv and pooling kernels read and
write) or contiguous. Everything else is a float (or other dtype) value of the program builder. A float
op whose inputs are dequantized int8 values and whose result (after a folded relu-like) only feeds
quantize nodes becomes one int8 kernel (a rule of `RULES`); the backend refuses any other op, which then
goes to the next backend (portable fp32) reading dequantized copies of its int8 inputs. Dequantizes are
emitted lazily, only where a float op needs them (the builder's resolver below).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
from torch.fx import Node

from mcu_export.boards import Board
from mcu_export.errors import UsageError
from mcu_export.int8.lower import match
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.fold_views import fold_flatten_into_linear
from mcu_export.int8.lower.scratch import isas_for
from mcu_export.lower.backend import KernelBackend, Refusal
from mcu_export.lower.builder import NodeValue, ProgramBuilder, T
from mcu_export.ops.table import BY_QUALIFIED, OpDef

CHANNELS_LAST = [0, 2, 3, 1]
_TO_DIM_ORDER_OP = BY_QUALIFIED["dim_order_ops::_to_dim_order_copy.out"]
Rule = Callable[["CortexMBackend", Node], None]


def same_bytes(sizes: Sequence[int], dim_order: Sequence[int]) -> bool:
    """Whether a tensor of these sizes holds the same bytes in `dim_order` as in contiguous order: the
    dims of size 1 move no byte, so only the order of the others counts (C == 1, or H == W == 1)."""
    return [d for d in dim_order if sizes[d] != 1] == [d for d in range(len(sizes)) if sizes[d] != 1]


@dataclass(frozen=True)
class QTensor:
    index: int  # EValue index of the int8 tensor
    scale: float
    zp: int
    cl: bool = False  # stored channels-last

    @property
    def q(self) -> match.QParams:
        return match.QParams(self.scale, self.zp)


class CortexMBackend(KernelBackend):
    """The rules (`mcu_export.int8.lower.RULES`) receive this object as `lw`: the helpers below are
    their vocabulary (int8 values, layouts, constants, calls)."""

    name = "cortex_m"

    def __init__(self, rules: Dict[Any, Rule], board: Optional[Board] = None, io: str = "float"):
        self.rules = rules
        self.isas = isas_for(board)
        self.io = io  # "int8": the method's float edges become its int8 tensors (int8/lower/io.py)

    def start(self, builder: ProgramBuilder) -> None:
        self.b = builder
        self.table = builder.table
        self.qvals: Dict[Node, QTensor] = {}
        self._layout_cache: Dict[Tuple[int, bool], QTensor] = {}
        self._const_cache: Dict[Node, int] = {}
        # 1-D spatial values ([N, C, L], Conv1d's) live as [N, C, 1, L] channels-last twins between int8
        # kernels (rules_conv1d); their own 3-D tensor is written only if something reads it (`pending`).
        self.twins: Dict[int, QTensor] = {}
        self.pending: Dict[int, Callable[[], None]] = {}
        builder.resolvers.append(self._resolve)

    # ---- the backend interface ----------------------------------------------------------------
    def take(self, builder: ProgramBuilder, node: Node) -> Optional[str]:
        if match.is_dq(node) or match.is_dq_channel(node):
            return None  # made on first use, by _resolve
        if match.is_q(node):
            self.quantize(node)
            return None
        rule = self.rules.get(node.target)
        if rule is None:
            return f"no int8 kernel for {node.target}"
        try:
            rule(self, node)
        except Refusal as why:
            return str(why)
        return None

    def finish(self, builder: ProgramBuilder, outputs: List[int]) -> None:
        if self.io == "int8":  # first: the passes below and the Ethos-U backend see the int8 edges
            from mcu_export.int8.lower.io import bind_int8_io

            bind_int8_io(builder, outputs)
        builder.remove_instructions(
            set(fold_flatten_into_linear(builder.instructions, builder.operators, builder.table.values, outputs))
        )
        from mcu_export.int8.lower.rules_matmul import unread_transposes

        builder.remove_instructions(
            set(unread_transposes(builder.instructions, builder.operators, builder.table.values, outputs))
        )

    def _resolve(self, builder: ProgramBuilder, node: Node) -> Optional[NodeValue]:
        """A float value for a dequantize (emitting it now), or the contiguous int8 tensor of a quantize
        node that the model returns."""
        if node in self.qvals:
            return self.to_layout(self.written(self.qvals[node]), False).index
        if match.is_dq(node):
            qt = self.qinput(node)
            if qt is None:
                raise UsageError(f"{node.name}: dequantize of a value the int8 lowering did not produce")
            qt = self.to_layout(qt, False)
            out = self.new_tensor(torch.float32, self.shape(node))
            self.call(
                cortex_m_op("dequantize_per_tensor"),
                dict(
                    input=T(qt.index),
                    scale=qt.scale,
                    zero_point=qt.zp,
                    quant_min=node.args[3],
                    quant_max=node.args[4],
                    dtype=torch.int8,
                ),
                [out],
            )
            return out
        if match.is_dq_channel(node):  # a weight read by an fp32 kernel: dequantize it now, once
            args = [self.constant_of(a) if isinstance(a, Node) else a for a in node.args]
            return self.const(node.target(*args))
        return None

    # ---- values -------------------------------------------------------------------------------
    def shape(self, node: Node) -> List[int]:
        return self.b.shape(node)

    def constant_of(self, node) -> Optional[torch.Tensor]:
        return self.b.constant_of(node)

    def new_tensor(self, dtype: torch.dtype, shape, cl: bool = False) -> int:
        """A planned tensor; asked for channels-last, it is contiguous anyway when that holds the same
        bytes, so that neither layout needs a copy (the NHWC kernels read such a tensor as it is)."""
        sizes = [int(s) for s in shape]
        return self.b.planned(dtype, sizes, CHANNELS_LAST if cl and not same_bytes(sizes, CHANNELS_LAST) else None)

    def is_cl(self, index: int) -> bool:
        return list(self.table.values[index].dim_order or []) == CHANNELS_LAST

    def const(self, tensor: torch.Tensor, cl: bool = False) -> int:
        return self.b.constant(tensor, CHANNELS_LAST if cl else None)

    def written(self, qt: QTensor) -> QTensor:
        """`qt`, its deferred instructions emitted now if it had any (see `twins`)."""
        emit = self.pending.pop(qt.index, None)
        if emit is not None:
            emit()
        return qt

    def qinput(self, node) -> Optional[QTensor]:
        """The int8 value behind a per-tensor int8 dequantize node, or None."""
        qt = self.qinput_deferred(node)
        return None if qt is None else self.written(qt)

    def qinput_deferred(self, node) -> Optional[QTensor]:
        """As qinput, without writing a value whose instructions are deferred: for rules that read its twin."""
        if not (match.is_dq(node) and match.is_int8_qdq(node)):
            return None
        src, q = node.args[0], match.qparams(node)
        if src in self.qvals:
            qt = self.qvals[src]
            return qt if qt.q == q else None
        data = self.constant_of(src)
        if data is not None and data.dtype == torch.int8:
            if src not in self._const_cache:
                self._const_cache[src] = self.const(data)
            return QTensor(self._const_cache[src], q.scale, q.zp, False)
        return None

    def to_layout(self, qt: QTensor, cl: bool) -> QTensor:
        qt = replace(qt, cl=self.is_cl(qt.index))
        sizes = [int(s) for s in self.table.values[qt.index].sizes]
        if qt.cl == cl or (cl and len(sizes) == 4 and same_bytes(sizes, CHANNELS_LAST)):
            return qt  # already there, or contiguous bytes that are NHWC bytes too (C == 1, H == W == 1)
        key = (qt.index, cl)
        if key not in self._layout_cache:
            src = self.table.values[qt.index]
            out = self.new_tensor(torch.int8, src.sizes, cl)
            order = CHANNELS_LAST if cl else list(range(len(src.sizes)))
            self.call(_TO_DIM_ORDER_OP, {"self": T(qt.index), "non_blocking": False, "dim_order": order}, [out])
            self._layout_cache[key] = QTensor(out, qt.scale, qt.zp, cl)
        return self._layout_cache[key]

    # ---- emission -----------------------------------------------------------------------------
    def call(self, op: OpDef, named: Dict[str, Any], outs: Sequence[int], node: Optional[Node] = None) -> None:
        self.b.call(op, named, outs, node)

    def emit(self, op: OpDef, args: List[int], node: Optional[Node] = None) -> None:
        self.b.emit(op, args, node)

    def set_output(self, quantizers: List[Node], qt: QTensor, consumed: Sequence[Node] = ()) -> None:
        qt = replace(qt, cl=self.is_cl(qt.index))  # the layout the tensor really has (see new_tensor)
        for q in quantizers:
            self.qvals[q] = qt
            self.b.done.add(q)
        self.b.done.update(consumed)

    def requantize(self, qt: QTensor, q: match.QParams) -> QTensor:
        """The int8 value at other parameters: a lookup table of round(dequantize(i) / scale) + zp,
        which is what a dequantize → quantize pair computes in float32, entry for entry."""
        from mcu_export.int8.reference.lut import build_lut

        if qt.q == q:
            return qt
        lut = build_lut(lambda v: v, qt.scale, qt.zp, q.scale, q.zp)
        out = self.new_tensor(torch.int8, self.table.values[qt.index].sizes, qt.cl)
        self.call(
            cortex_m_op("quantized_activation"),
            dict(input=T(qt.index), lut=T(self.const(torch.from_numpy(lut)))),
            [out],
        )
        return QTensor(out, q.scale, q.zp, self.is_cl(out))

    def quantize(self, node: Node) -> None:
        q = match.qparams(node)
        source = node.args[0]
        qsource = self.qinput(source) if match.is_int8_qdq(node) else None
        if qsource is not None:  # dq → q: stays in int8
            self.qvals[node] = self.requantize(qsource, q)
            return
        value = self.b.tensor(source)
        out = self.new_tensor(torch.int8, self.shape(node))
        self.call(
            cortex_m_op("quantize_per_tensor"),
            dict(
                input=T(value),
                scale=q.scale,
                zero_point=q.zp,
                quant_min=node.args[3],
                quant_max=node.args[4],
                dtype=torch.int8,
            ),
            [out],
        )
        self.qvals[node] = QTensor(out, q.scale, q.zp, False)
