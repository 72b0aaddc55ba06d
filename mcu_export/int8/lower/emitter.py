"""The int8 lowering's walk over a converted (quantize/dequantize-annotated) core-ATen graph.

Values live in one of two worlds. A quantize node's result is an int8 tensor with its (scale, zero
point) and a layout: channels-last (dim order [0, 2, 3, 1], what conv and pooling kernels read and
write) or contiguous. Everything else is a float (or other dtype) tensor. A float op whose inputs are
dequantized int8 values and whose result (after a folded relu-like) only feeds quantize nodes becomes
one int8 kernel (`rules`); any other op runs on its fp32 kernel, reading dequantized copies of its int8
inputs, and is recorded as a fallback. Dequantizes are emitted lazily, only where a float op needs them.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind
from torch.fx import Node

from mcu_export.boards import Board
from mcu_export.errors import UnsupportedOpError, UsageError
from mcu_export.int8.lower import match
from mcu_export.int8.lower.cortex_m_ops import cortex_m_op
from mcu_export.int8.lower.fold_views import fold_flatten_into_linear
from mcu_export.int8.lower.scratch import isas_for
from mcu_export.lower.args import kernel_args
from mcu_export.lower.lower import InstructionInfo, _bound_args, close_forward
from mcu_export.lower.values import ValueTable, scalar_type
from mcu_export.ops.table import BY_ATEN, BY_QUALIFIED, OpDef
from mcu_export.passes.graph_utils import constant_value, input_spec
from mcu_export.passes.source_location import source_location, stack_frames
from mcu_export.pte import program as pte

CHANNELS_LAST = [0, 2, 3, 1]
_VIEW_OP = BY_QUALIFIED["aten::view_copy.out"]
_TO_DIM_ORDER_OP = BY_QUALIFIED["dim_order_ops::_to_dim_order_copy.out"]


def same_bytes(sizes: Sequence[int], dim_order: Sequence[int]) -> bool:
    """Whether a tensor of these sizes holds the same bytes in `dim_order` as in contiguous order: the
    dims of size 1 move no byte, so only the order of the others counts (C == 1, or H == W == 1)."""
    return [d for d in dim_order if sizes[d] != 1] == [d for d in range(len(sizes)) if sizes[d] != 1]


@dataclass(frozen=True)
class QTensor:
    index: int       # EValue index of the int8 tensor
    scale: float
    zp: int
    cl: bool = False  # stored channels-last

    @property
    def q(self) -> match.QParams:
        return match.QParams(self.scale, self.zp)


@dataclass(frozen=True)
class T:
    """A tensor argument given by EValue index (cortex_m calls are built from these, not graph nodes)."""
    index: int


@dataclass
class Int8Info:
    instructions: List[InstructionInfo] = field(default_factory=list)
    fallbacks: List[Dict[str, Optional[str]]] = field(default_factory=list)
    op_counts: Dict[str, int] = field(default_factory=dict)
    input_names: List[str] = field(default_factory=list)
    output_names: List[str] = field(default_factory=list)
    memory: Any = None


def _emit_arg(table: ValueTable, typ, value) -> int:
    kind = typ.kind()
    if kind == "OptionalType":
        return table.null() if value is None else _emit_arg(table, typ.getElementType(), value)
    if kind == "TensorType":
        assert isinstance(value, T), f"tensor argument expected, got {value!r}"
        return value.index
    if kind == "ListType":
        return table.int_list([int(v) for v in value])
    if kind == "FloatType":
        return table.double(float(value))
    if kind == "BoolType":
        return table.bool(bool(value))
    if isinstance(value, torch.dtype):
        return table.int(int(scalar_type(value)))
    return table.int(int(value))


class Int8Lowering:
    def __init__(self, ep: ExportedProgram, board: Optional[Board] = None, with_stacktrace: bool = True):
        self.ep = ep
        self.isas = isas_for(board)
        self.program = pte.Program(execution_plan=[])
        self.table = ValueTable(self.program)
        self.floats: Dict[Node, Any] = {}
        self.qvals: Dict[Node, QTensor] = {}
        self.done: set = set()
        self._layout_cache: Dict[Tuple[int, bool], QTensor] = {}
        self._const_cache: Dict[Tuple[Node, bool], int] = {}
        self.instructions: List[pte.Instruction] = []
        self.stacktrace: List[List[pte.Frame]] = []
        self.operators: List[pte.Operator] = []
        self.op_index: Dict[str, int] = {}
        self.info = Int8Info()
        self.with_stacktrace = with_stacktrace
        self.inputs: List[int] = []
        self.constant_values: set = set()
        self.current: Optional[Node] = None

    # ---- values -------------------------------------------------------------------------------
    def new_tensor(self, dtype: torch.dtype, shape, cl: bool = False) -> int:
        """A planned tensor; asked for channels-last, it is contiguous anyway when that holds the same
        bytes, so that neither layout needs a copy (the NHWC kernels read such a tensor as it is)."""
        index = self.table.planned_tensor(dtype, shape, f"output of {self.current.name if self.current else '?'}")
        if cl and not same_bytes([int(s) for s in shape], CHANNELS_LAST):
            self.table.values[index].dim_order = list(CHANNELS_LAST)
        return index

    def is_cl(self, index: int) -> bool:
        return list(self.table.values[index].dim_order or []) == CHANNELS_LAST

    def const(self, tensor: torch.Tensor, cl: bool = False) -> int:
        tensor = tensor.detach().contiguous()
        if not cl:
            index = self.table.constant_tensor(tensor)
        else:  # data in memory order, sizes logical
            index = self.table.constant_tensor(tensor.permute(*CHANNELS_LAST).contiguous())
            self.table.values[index].sizes = list(tensor.shape)
            self.table.values[index].dim_order = list(CHANNELS_LAST)
        self.constant_values.add(index)
        return index

    def constant_of(self, node) -> Optional[torch.Tensor]:
        return constant_value(self.ep, node)

    def shape(self, node: Node) -> List[int]:
        return [int(s) for s in node.meta["val"].shape]

    def qinput(self, node) -> Optional[QTensor]:
        """The int8 value behind a per-tensor int8 dequantize node, or None."""
        if not (match.is_dq(node) and match.is_int8_qdq(node)):
            return None
        src, q = node.args[0], match.qparams(node)
        if src in self.qvals:
            qt = self.qvals[src]
            return qt if qt.q == q else None
        data = self.constant_of(src)
        if data is not None and data.dtype == torch.int8:
            key = (src, False)
            if key not in self._const_cache:
                self._const_cache[key] = self.const(data)
            return QTensor(self._const_cache[key], q.scale, q.zp, False)
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

    def float_value(self, node) -> int:
        """The EValue of a node as the fp32 kernels see it (dequantizing an int8 value when needed)."""
        if node in self.floats:
            return self.floats[node]
        if match.is_dq(node):
            qt = self.qinput(node)
            if qt is None:
                raise UsageError(f"{node.name}: dequantize of a value the int8 lowering did not produce")
            qt = self.to_layout(qt, False)
            out = self.new_tensor(torch.float32, self.shape(node))
            self.call(cortex_m_op("dequantize_per_tensor"),
                      dict(input=T(qt.index), scale=qt.scale, zero_point=qt.zp, quant_min=node.args[3],
                           quant_max=node.args[4], dtype=torch.int8), [out])
            self.floats[node] = out
            return out
        if match.is_dq_channel(node):  # a weight read by an fp32 kernel: dequantize it now, once
            args = [self.constant_of(a) if isinstance(a, Node) else a for a in node.args]
            self.floats[node] = self.const(node.target(*args))
            return self.floats[node]
        data = self.constant_of(node)
        if data is not None:
            self.floats[node] = self.const(data)
            return self.floats[node]
        raise UsageError(f"node {node.name} has no value yet (unsupported graph structure)")

    # ---- emission -----------------------------------------------------------------------------
    def emit(self, op: OpDef, args: List[int], node: Optional[Node]) -> None:
        node = node if node is not None else self.current
        if op.qualified not in self.op_index:
            self.op_index[op.qualified] = len(self.operators)
            self.operators.append(pte.Operator(name=op.name, overload=op.overload))
        location = source_location(node) if node is not None else None
        self.info.instructions.append(InstructionInfo(len(self.instructions), op.qualified,
                                                      node.name if node is not None else "?",
                                                      str(location) if location else None))
        self.instructions.append(pte.KernelCall(op_index=self.op_index[op.qualified], args=args))
        frames = [pte.Frame(f.filename, f.lineno, f.name) for f in stack_frames(node)] \
            if self.with_stacktrace and node is not None else []
        self.stacktrace.append(frames)

    def call(self, op: OpDef, named: Dict[str, Any], outs: Sequence[int], node: Optional[Node] = None) -> None:
        """One kernel call; `named` gives every non-out argument by schema name (tensors as T)."""
        schema = op.schema()
        args: List[int] = []
        out_iter = iter(outs)
        for arg in schema.arguments:
            if arg.kwarg_only and arg.alias_info is not None and arg.alias_info.is_write:
                args.append(next(out_iter))
            else:
                if arg.name not in named:
                    raise KeyError(f"{op.qualified}: argument {arg.name} not given")
                args.append(_emit_arg(self.table, arg.type, named[arg.name]))
        args.append(outs[0] if len(outs) == 1 else self.table.tensor_list(outs))
        self.emit(op, args, node)

    def set_output(self, quantizers: List[Node], qt: QTensor, consumed: Sequence[Node] = ()) -> None:
        qt = replace(qt, cl=self.is_cl(qt.index))  # the layout the tensor really has (see new_tensor)
        for q in quantizers:
            self.qvals[q] = qt
            self.done.add(q)
        self.done.update(consumed)

    # ---- the walk -----------------------------------------------------------------------------
    def placeholder(self, node: Node) -> None:
        spec = input_spec(self.ep, node)
        if spec is not None and spec.kind == InputKind.USER_INPUT:
            val = node.meta["val"]
            index = self.table.planned_tensor(val.dtype, val.shape, f"input {node.name}")
            self.inputs.append(index)
            self.info.input_names.append(node.name)
            self.floats[node] = index

    def requantize(self, qt: QTensor, q: match.QParams) -> QTensor:
        """The int8 value at other parameters: a lookup table of round(dequantize(i) / scale) + zp,
        which is what a dequantize → quantize pair computes in float32, entry for entry."""
        from mcu_export.int8.reference.lut import build_lut

        if qt.q == q:
            return qt
        lut = build_lut(lambda v: v, qt.scale, qt.zp, q.scale, q.zp)
        out = self.new_tensor(torch.int8, self.table.values[qt.index].sizes, qt.cl)
        self.call(cortex_m_op("quantized_activation"),
                  dict(input=T(qt.index), lut=T(self.const(torch.from_numpy(lut)))), [out])
        return QTensor(out, q.scale, q.zp, self.is_cl(out))

    def quantize(self, node: Node) -> None:
        q = match.qparams(node)
        source = node.args[0]
        if match.is_int8_qdq(node) and self.qinput(source) is not None:  # dq → q: stays in int8
            self.qvals[node] = self.requantize(self.qinput(source), q)
            return
        source = self.float_value(source)
        out = self.new_tensor(torch.int8, self.shape(node))
        self.call(cortex_m_op("quantize_per_tensor"),
                  dict(input=T(source), scale=q.scale, zero_point=q.zp, quant_min=node.args[3],
                       quant_max=node.args[4], dtype=torch.int8), [out])
        self.qvals[node] = QTensor(out, q.scale, q.zp, False)

    def fallback(self, node: Node, reason: str) -> None:
        op = BY_ATEN.get(str(node.target))
        location = source_location(node)
        if op is None:
            raise UnsupportedOpError(f"operator {node.target} has no int8 or fp32 kernel"
                                     + (f" (at {location})" if location else ""))
        val = node.meta["val"]
        vals = list(val) if isinstance(val, (tuple, list)) else [val]
        outs = [self.table.planned_tensor(v.dtype, v.shape, f"output of {node.name}") for v in vals]
        self.floats[node] = outs if isinstance(val, (tuple, list)) else outs[0]
        rank_of = lambda n: len(self.table.values[self.float_value(n)].sizes)  # noqa: E731
        args = kernel_args(self.table, op, _bound_args(node, op, rank_of), outs, self.float_value,
                           f"{node.name} ({op.qualified})")
        self.emit(op, args, node)
        self.info.fallbacks.append({"op": str(node.target), "node": node.name,
                                    "location": str(location) if location else None, "reason": reason})

    def output(self, node: Node) -> List[int]:
        returned = node.args[0] if isinstance(node.args[0], (tuple, list)) else [node.args[0]]
        outputs: List[int] = []
        for i, value in enumerate(returned):
            if not isinstance(value, Node):
                raise UsageError(f"model output {i} is not a tensor ({value!r})")
            self.current = value
            index = self.to_layout(self.qvals[value], False).index if value in self.qvals \
                else self.float_value(value)
            if index in self.inputs or index in self.constant_values or index in outputs:
                tensor = self.table.values[index]
                copy = self.table.add(pte.Tensor(scalar_type=tensor.scalar_type, sizes=list(tensor.sizes),
                                                 dim_order=list(range(len(tensor.sizes)))))
                self.emit(_VIEW_OP, [index, self.table.int_list(tensor.sizes), copy, copy], value)
                index = copy
            outputs.append(index)
            self.info.output_names.append(value.name)
        return outputs

    def run(self, rules: Dict[Any, Callable[["Int8Lowering", Node], Optional[str]]]) -> pte.Program:
        outputs: List[int] = []
        for node in self.ep.graph_module.graph.nodes:
            self.current = node
            if node.op == "placeholder":
                self.placeholder(node)
            elif node.op == "output":
                outputs = self.output(node)
            elif node.op != "call_function":
                raise UnsupportedOpError(f"graph node {node.name} ({node.op}) is not supported")
            elif node in self.done or match.is_dq(node) or match.is_dq_channel(node):
                continue
            elif match.is_q(node):
                self.quantize(node)
            elif node.target == operator.getitem:
                source = self.floats.get(node.args[0])
                if isinstance(source, list):
                    self.floats[node] = source[node.args[1]]
            else:
                rule = rules.get(node.target)
                reason = rule(self, node) if rule is not None else f"no int8 kernel for {node.target}"
                if reason is not None:
                    self.fallback(node, reason)
        removed = set(fold_flatten_into_linear(self.instructions, self.operators, self.table.values, outputs))
        if removed:
            self.stacktrace = [t for i, t in enumerate(self.stacktrace) if i not in removed]
            kept = [info for info in self.info.instructions if info.index not in removed]
            self.info.instructions = [replace(info, index=i) for i, info in enumerate(kept)]
        return close_forward(self, outputs)
