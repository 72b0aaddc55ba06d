"""Lowering: a passed, supported ExportedProgram to a `.pte` Program model (one method, `forward`).

One walk over the graph in node order: placeholders become constant tensors (data in the constant
buffer) or planned input tensors, each call becomes one KernelCall on its op's out variant, and
`getitem` on a multi-output call just names one of that call's out tensors. Planned tensors get their
arena offsets later, from the memory planner.
"""
from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind
from torch.fx import Node

from mcu_export.errors import UnsupportedOpError, UsageError
from mcu_export.lower.args import bind_node, kernel_args
from mcu_export.lower.values import ValueTable
from mcu_export.ops.table import BY_ATEN, BY_QUALIFIED, OpDef
from mcu_export.passes.check_supported import check_supported
from mcu_export.passes.graph_utils import constant_value, input_spec
from mcu_export.passes.source_location import source_location, stack_frames
from mcu_export.planner import MemoryPlan
from mcu_export.pte import program as pte

aten = torch.ops.aten
_VIEW_OP = BY_QUALIFIED["aten::view_copy.out"]
_PERMUTE_OP = BY_QUALIFIED["aten::permute_copy.out"]
_TO_DIM_ORDER_OP = BY_QUALIFIED["dim_order_ops::_to_dim_order_copy.out"]


@dataclass
class InstructionInfo:
    index: int
    op: str                   # qualified op, e.g. "aten::convolution.out"
    node: str                 # graph node name ("output_copy_<i>" for copies the lowering adds)
    location: Optional[str]   # "model.py:42 in Net.forward", when torch recorded a stack trace


@dataclass
class LoweringInfo:
    instructions: List[InstructionInfo] = field(default_factory=list)
    op_counts: Dict[str, int] = field(default_factory=dict)
    input_names: List[str] = field(default_factory=list)
    output_names: List[str] = field(default_factory=list)
    memory: Optional[MemoryPlan] = None  # set by `to_program` after planning


def _bound_args(node: Node, op: OpDef, rank_of) -> Dict[str, object]:
    """The node's arguments, named as the out variant names them."""
    if op is _VIEW_OP:  # every reshape-like call: the static target shape is the output's
        return {"self": node.args[0], "size": list(node.meta["val"].shape)}
    bound = bind_node(node)
    if op is _PERMUTE_OP:
        rank = rank_of(node.args[0])
        bound["dims"] = [d % rank if rank else d for d in bound["dims"]]
    if op is _TO_DIM_ORDER_OP and bound.get("dim_order") is None:  # explicit, as ExecuTorch emits it
        bound["dim_order"] = list(range(len(node.meta["val"].shape)))
    return bound


class _Lowering:
    def __init__(self, ep: ExportedProgram, with_stacktrace: bool):
        self.ep = ep
        self.program = pte.Program(execution_plan=[])
        self.table = ValueTable(self.program)
        self.node_values: Dict[Node, object] = {}
        self.instructions: List[pte.Instruction] = []
        self.stacktrace: List[List[pte.Frame]] = []
        self.operators: List[pte.Operator] = []
        self.op_index: Dict[str, int] = {}
        self.info = LoweringInfo()
        self.with_stacktrace = with_stacktrace
        self.inputs: List[int] = []
        self.constants: set = set()

    def tensor_of(self, node: Node) -> int:
        value = self.node_values.get(node)
        if not isinstance(value, int):
            raise UsageError(f"node {node.name} is not a single tensor and cannot be a kernel argument")
        return value

    def rank_of(self, node: Node) -> int:
        return len(self.table.values[self.tensor_of(node)].sizes)

    def placeholder(self, node: Node) -> None:
        spec = input_spec(self.ep, node)
        if spec is not None and spec.kind == InputKind.USER_INPUT:
            val = node.meta["val"]
            if not isinstance(val, torch.Tensor):
                raise UsageError(f"model input {node.name} is not a tensor ({type(val).__name__})")
            index = self.table.planned_tensor(val.dtype, val.shape, f"input {node.name}")
            self.inputs.append(index)
            self.info.input_names.append(node.name)
        else:
            data = constant_value(self.ep, node)
            if data is None:
                kind = spec.kind.name if spec is not None else "unknown"
                raise UsageError(f"graph input {node.name} of kind {kind} is not supported")
            index = self.table.constant_tensor(data)
            self.constants.add(index)
        self.node_values[node] = index

    def emit(self, op: OpDef, args: List[int], node_name: str, frames: List[pte.Frame],
             location: Optional[str]) -> None:
        if op.qualified not in self.op_index:
            self.op_index[op.qualified] = len(self.operators)
            self.operators.append(pte.Operator(name=op.name, overload=op.overload))
        self.info.instructions.append(InstructionInfo(len(self.instructions), op.qualified, node_name, location))
        self.instructions.append(pte.KernelCall(op_index=self.op_index[op.qualified], args=args))
        self.stacktrace.append(frames)

    def call(self, node: Node) -> None:
        if node.target == operator.getitem:
            source, index = node.args
            self.node_values[node] = self.node_values[source][index]
            return
        op = BY_ATEN.get(str(node.target))
        if op is None:  # check_supported ran first; this guards direct callers
            raise UnsupportedOpError(f"operator {node.target} is not supported")
        val = node.meta["val"]
        vals = list(val) if isinstance(val, (tuple, list)) else [val]
        outs = [self.table.planned_tensor(v.dtype, v.shape, f"output of {node.name}") for v in vals]
        self.node_values[node] = outs if isinstance(val, (tuple, list)) else outs[0]
        location = source_location(node)
        args = kernel_args(self.table, op, _bound_args(node, op, self.rank_of), outs, self.tensor_of,
                           f"{node.name} ({op.qualified})")
        frames = [pte.Frame(f.filename, f.lineno, f.name) for f in stack_frames(node)] \
            if self.with_stacktrace else []
        self.emit(op, args, node.name, frames, str(location) if location else None)

    def output(self, node: Node) -> List[int]:
        returned = node.args[0] if isinstance(node.args[0], (tuple, list)) else [node.args[0]]
        outputs: List[int] = []
        for i, value in enumerate(returned):
            if not isinstance(value, Node):
                raise UsageError(f"model output {i} is not a tensor ({value!r})")
            index = self.tensor_of(value)
            # The runtime hands out output tensors by reference: an output that is also an input, a
            # constant or another output needs a tensor of its own, filled by a copy.
            if index in self.inputs or index in self.constants or index in outputs:
                tensor = self.table.values[index]
                copy = self.table.add(pte.Tensor(scalar_type=tensor.scalar_type, sizes=list(tensor.sizes),
                                                 dim_order=list(tensor.dim_order)))
                args = [index, self.table.int_list(tensor.sizes), copy, copy]
                self.emit(_VIEW_OP, args, f"output_copy_{i}", [], None)
                index = copy
            outputs.append(index)
            self.info.output_names.append(value.name)
        return outputs

    def run(self) -> pte.Program:
        outputs: List[int] = []
        for node in self.ep.graph_module.graph.nodes:
            if node.op == "placeholder":
                self.placeholder(node)
            elif node.op == "call_function":
                self.call(node)
            elif node.op == "output":
                outputs = self.output(node)
            else:
                raise UnsupportedOpError(f"graph node {node.name} ({node.op}) is not supported")
        return close_forward(self, outputs)


def close_forward(lowering, outputs: List[int]) -> pte.Program:
    """Ends a lowering (fp32 or int8: both keep inputs, instructions, stacktrace, operators, values table, program
    and info under these names) with its one method, `forward`: the chain, values and operators."""
    trace = lowering.stacktrace if any(lowering.stacktrace) else None
    chain = pte.Chain(inputs=list(lowering.inputs), outputs=outputs, instructions=lowering.instructions,
                      stacktrace=trace)
    plan = pte.ExecutionPlan(name="forward", values=lowering.table.values, inputs=list(lowering.inputs),
                             outputs=outputs, chains=[chain], operators=lowering.operators,
                             non_const_buffer_sizes=[0, 0])
    lowering.program.execution_plan.append(plan)
    lowering.info.op_counts = dict(Counter(i.op for i in lowering.info.instructions))
    return lowering.program


def lower(ep: ExportedProgram, with_stacktrace: bool = True):
    """Lower to a Program (planned tensors not yet placed: run `plan_memory` next) and its LoweringInfo."""
    check_supported(ep)
    for spec in ep.graph_signature.output_specs:
        if spec.kind.name != "USER_OUTPUT":
            raise UsageError(f"model output {spec.arg} is a {spec.kind.name.lower()}; "
                             "mcu-export exports inference graphs without state updates")
    lowering = _Lowering(ep, with_stacktrace)
    program = lowering.run()
    return program, lowering.info
