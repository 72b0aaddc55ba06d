"""The program builder: the one place that turns lowering decisions into a `.pte` method.

Every lowering (portable fp32, cortex_m int8, a delegate such as Ethos-U) is a backend that asks the
builder for values and emits calls through it (`mcu_export.lower.backend`). The builder owns what they
must agree on: the values table, graph node → EValue bindings, constants, the operator list, the
instructions and their source locations, the method's inputs, the output copies and `forward` itself.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Union

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind
from torch.fx import Node

from mcu_export.errors import UsageError
from mcu_export.lower.args import TensorOf, kernel_args
from mcu_export.lower.prune import prune
from mcu_export.lower.values import ValueTable
from mcu_export.ops.table import BY_QUALIFIED, OpDef
from mcu_export.passes.graph_utils import constant_value, input_spec
from mcu_export.passes.source_location import SourceLocation, source_location, stack_frames
from mcu_export.pte import program as pte

_VIEW_OP = BY_QUALIFIED["aten::view_copy.out"]
NodeValue = Union[int, List[int]]  # one EValue index, or one per output of a multi-output node


@dataclass
class InstructionInfo:
    index: int
    op: str  # qualified op ("aten::convolution.out") or "delegate:<backend id>"
    node: str  # graph node name ("output_copy_<i>" for copies the builder adds)
    location: Optional[str]  # "model.py:42 in Net.forward", when torch recorded a stack trace
    torch_op: Optional[str] = None  # the node's target as torch.export named it ("aten.conv2d.default")
    source: Optional[SourceLocation] = None  # the user's frame behind `location` (report.json's debug_map)
    covers: List[str] = field(default_factory=list)  # a delegate call: the locations of the calls it replaced


@dataclass
class LoweringInfo:
    instructions: List[InstructionInfo] = field(default_factory=list)
    op_counts: Dict[str, int] = field(default_factory=dict)
    input_names: List[str] = field(default_factory=list)
    output_names: List[str] = field(default_factory=list)
    # Nodes the first backend refused and a later one took: {"op", "node", "location", "reason", "backend"}.
    fallbacks: List[Dict[str, Optional[str]]] = field(default_factory=list)
    memory: Any = None  # the MemoryPlan, set after planning
    # Set by a delegating backend (Ethos-U): report.json's "partitions" and "npu", and each subgraph's TOSA.
    partitions: Optional[Dict[str, Any]] = None
    npu: Optional[Dict[str, Any]] = None
    npu_graphs: List[bytes] = field(default_factory=list)
    # Set by io="int8" (mcu_export.int8.lower.io): per input and output, its int8 quantization or None
    # (report.json's inputs[k].quantization, outputs[k].quantization).
    input_quantization: List[Optional[Dict[str, Any]]] = field(default_factory=list)
    output_quantization: List[Optional[Dict[str, Any]]] = field(default_factory=list)


def _torch_op(node: Optional[Node]) -> Optional[str]:
    if node is None or node.op != "call_function":
        return None
    return str(node.target)


@dataclass(frozen=True)
class T:
    """A tensor argument given by EValue index, for calls built from values rather than graph nodes."""

    index: int


_BY_INDEX = TensorOf(T, lambda t: t.index)


class ProgramBuilder:
    def __init__(self, ep: ExportedProgram, with_stacktrace: bool = True):
        self.ep = ep
        self.program = pte.Program(execution_plan=[])
        self.table = ValueTable(self.program)
        self.values: Dict[Node, NodeValue] = {}
        self.done: Set[Node] = set()  # nodes a backend consumed while lowering another
        self.current: Optional[Node] = None  # the node being lowered (names planned tensors, locates calls)
        self.instructions: List[pte.Instruction] = []
        self.stacktrace: List[List[pte.Frame]] = []
        self.operators: List[pte.Operator] = []
        self.delegates: List[pte.BackendDelegate] = []
        self._op_index: Dict[str, int] = {}
        self.inputs: List[int] = []
        self.constants: Set[int] = set()
        self.info = LoweringInfo()
        self.with_stacktrace = with_stacktrace
        # Asked in order for a node that has no value yet (a backend's own kind of value, e.g. int8 → fp32).
        self.resolvers: List[Callable[["ProgramBuilder", Node], Optional[NodeValue]]] = []

    # ---- values -------------------------------------------------------------------------------
    def planned(self, dtype: torch.dtype, shape, dim_order: Optional[Sequence[int]] = None) -> int:
        """A tensor the memory planner places in an arena."""
        what = f"output of {self.current.name}" if self.current is not None else "a planned tensor"
        index = self.table.planned_tensor(dtype, shape, what)
        if dim_order is not None:
            self.table.values[index].dim_order = list(dim_order)
        return index

    def planned_like(self, node: Node) -> NodeValue:
        """Planned tensors for a node's result(s), as its fake value describes them."""
        val = node.meta["val"]
        vals = list(val) if isinstance(val, (tuple, list)) else [val]
        outs = [self.table.planned_tensor(v.dtype, v.shape, f"output of {node.name}") for v in vals]
        return outs if isinstance(val, (tuple, list)) else outs[0]

    def constant(self, tensor: torch.Tensor, dim_order: Optional[Sequence[int]] = None) -> int:
        """A tensor whose data goes into the program; `dim_order` other than contiguous means the
        data is given in that memory order while the sizes stay logical."""
        tensor = tensor.detach().contiguous()
        if dim_order is None or list(dim_order) == list(range(tensor.dim())):
            index = self.table.constant_tensor(tensor)
        else:
            index = self.table.constant_tensor(tensor.permute(*dim_order).contiguous())
            self.table.values[index].sizes = list(tensor.shape)
            self.table.values[index].dim_order = list(dim_order)
        self.constants.add(index)
        return index

    def constant_of(self, node) -> Optional[torch.Tensor]:
        """The data behind a parameter, buffer or lifted constant node, else None."""
        return constant_value(self.ep, node)

    def value(self, node: Node) -> NodeValue:
        """The EValue(s) of a node as the fp32 kernels see it, made on first use when needed."""
        if node in self.values:
            return self.values[node]
        for resolve in self.resolvers:
            found = resolve(self, node)
            if found is not None:
                self.values[node] = found
                return found
        data = self.constant_of(node)
        if data is not None:
            self.values[node] = self.constant(data)
            return self.values[node]
        raise UsageError(f"node {node.name} has no value yet (unsupported graph structure)")

    def tensor(self, node: Node) -> int:
        value = self.value(node)
        if not isinstance(value, int):
            raise UsageError(f"node {node.name} is not a single tensor and cannot be a kernel argument")
        return value

    def rank(self, node: Node) -> int:
        return len(self.table.values[self.tensor(node)].sizes)

    def shape(self, node: Node) -> List[int]:
        return [int(s) for s in node.meta["val"].shape]

    # ---- instructions -------------------------------------------------------------------------
    def _record(self, instruction: pte.Instruction, op: str, node: Optional[Node], name: Optional[str]) -> None:
        location = source_location(node) if node is not None else None
        self.info.instructions.append(
            InstructionInfo(
                len(self.instructions),
                op,
                name or (node.name if node is not None else "?"),
                str(location) if location else None,
                _torch_op(node),
                location,
            )
        )
        self.instructions.append(instruction)
        frames = (
            [pte.Frame(f.filename, f.lineno, f.name) for f in stack_frames(node)]
            if self.with_stacktrace and node is not None
            else []
        )
        self.stacktrace.append(frames)

    def emit(self, op: OpDef, args: List[int], node: Optional[Node] = None, name: Optional[str] = None) -> None:
        """One KernelCall with its arguments already as EValue indices (schema order, then the return)."""
        if op.qualified not in self._op_index:
            self._op_index[op.qualified] = len(self.operators)
            self.operators.append(pte.Operator(name=op.name, overload=op.overload))
        self._record(
            pte.KernelCall(op_index=self._op_index[op.qualified], args=args),
            op.qualified,
            node if node is not None or name else self.current,
            name,
        )

    def call(self, op: OpDef, named: Dict[str, Any], outs: Sequence[int], node: Optional[Node] = None) -> None:
        """One KernelCall; `named` gives the arguments by schema name (tensors as T), as a node's would."""
        self.emit(op, kernel_args(self.table, op, named, list(outs), _BY_INDEX, op.qualified), node)

    def delegate_call(
        self,
        backend_id: str,
        processed: bytes,
        args: Sequence[int],
        node: Optional[Node] = None,
        compile_specs: Sequence[pte.CompileSpec] = (),
    ) -> None:
        """One DelegateCall to a new BackendDelegate whose processed data is inline in the program;
        `args` are the delegate's inputs then its outputs (ExecuTorch's convention)."""
        delegate = self.add_delegate(backend_id, processed, compile_specs)
        self._record(
            pte.DelegateCall(delegate_index=delegate, args=list(args)),
            f"delegate:{backend_id}",
            node if node is not None else self.current,
            None,
        )

    def add_delegate(self, backend_id: str, processed: bytes, compile_specs: Sequence[pte.CompileSpec] = ()) -> int:
        """A new BackendDelegate with its processed data inline in the program; returns its index."""
        self.program.backend_delegate_data.append(bytes(processed))
        ref = pte.BackendDelegateDataReference(location=pte.INLINE, index=len(self.program.backend_delegate_data) - 1)
        self.delegates.append(pte.BackendDelegate(id=backend_id, processed=ref, compile_specs=list(compile_specs)))
        return len(self.delegates) - 1

    def splice_delegate(self, first: int, last: int, delegate: int, args: Sequence[int], name: str) -> None:
        """Replaces instructions first..last (inclusive) by one DelegateCall of `delegate` (a backend that
        delegates at the level of the lowered program); the call keeps the first instruction's location."""
        backend_id = self.delegates[delegate].id
        call = pte.DelegateCall(delegate_index=delegate, args=list(args))
        head = self.info.instructions[first]
        self.instructions[first : last + 1] = [call]
        self.stacktrace[first : last + 1] = [self.stacktrace[first]]
        infos = self.info.instructions
        covers = list(dict.fromkeys(i.location for i in infos[first : last + 1] if i.location))
        infos[first : last + 1] = [
            InstructionInfo(first, f"delegate:{backend_id}", name, head.location, head.torch_op, head.source, covers)
        ]
        self.info.instructions = [replace(info, index=i) for i, info in enumerate(infos)]
        self._drop_unused_operators()

    def remove_instructions(self, removed: Set[int]) -> None:
        """Drops instructions a backend's last pass made redundant, keeping infos, traces and the
        operator list in step (the firmware links a kernel for every operator listed, used or not)."""
        if not removed:
            return
        self.instructions = [ins for i, ins in enumerate(self.instructions) if i not in removed]
        self.stacktrace = [t for i, t in enumerate(self.stacktrace) if i not in removed]
        kept = [info for info in self.info.instructions if info.index not in removed]
        self.info.instructions = [replace(info, index=i) for i, info in enumerate(kept)]
        self._drop_unused_operators()

    def reorder_instructions(self, order: Sequence[int]) -> None:
        """Puts the instructions in `order` (a permutation that respects their dependencies: the caller's
        promise), keeping infos and traces in step."""
        self.instructions = [self.instructions[i] for i in order]
        self.stacktrace = [self.stacktrace[i] for i in order]
        infos = self.info.instructions
        self.info.instructions = [replace(infos[old], index=new) for new, old in enumerate(order)]

    def _drop_unused_operators(self) -> None:
        used = sorted({i.op_index for i in self.instructions if isinstance(i, pte.KernelCall)})
        new_index = {old: new for new, old in enumerate(used)}
        self.operators = [self.operators[i] for i in used]
        self._op_index = {f"{op.name}.{op.overload}": i for i, op in enumerate(self.operators)}
        for ins in self.instructions:
            if isinstance(ins, pte.KernelCall):
                ins.op_index = new_index[ins.op_index]

    # ---- the method's edges -------------------------------------------------------------------
    def placeholder(self, node: Node) -> None:
        """A user input becomes a planned input tensor; parameters and constants are made on first use."""
        spec = input_spec(self.ep, node)
        if spec is not None and spec.kind == InputKind.USER_INPUT:
            val = node.meta["val"]
            if not isinstance(val, torch.Tensor):
                raise UsageError(f"model input {node.name} is not a tensor ({type(val).__name__})")
            index = self.table.planned_tensor(val.dtype, val.shape, f"input {node.name}")
            self.inputs.append(index)
            self.info.input_names.append(node.name)
            self.values[node] = index
        elif self.constant_of(node) is None:
            kind = spec.kind.name if spec is not None else "unknown"
            raise UsageError(f"graph input {node.name} of kind {kind} is not supported")

    def output(self, node: Node) -> List[int]:
        returned = node.args[0] if isinstance(node.args[0], (tuple, list)) else [node.args[0]]
        outputs: List[int] = []
        for i, value in enumerate(returned):
            if not isinstance(value, Node):
                raise UsageError(f"model output {i} is not a tensor ({value!r})")
            self.current = value
            index = self.tensor(value)
            # The runtime hands out output tensors by reference: an output that is also an input, a
            # constant or another output needs a tensor of its own, filled by a copy.
            outputs.append(self.own_output(index, i, outputs))
            self.info.output_names.append(value.name)
        return outputs

    def own_output(self, index: int, i: int, outputs: Sequence[int]) -> int:
        """`index` as output `i`, or a copy of it (appended to the instructions) when it is also an input,
        a constant or one of `outputs`."""
        if index not in self.inputs and index not in self.constants and index not in outputs:
            return index
        tensor = self.table.values[index]
        copy = self.table.add(
            pte.Tensor(
                scalar_type=tensor.scalar_type, sizes=list(tensor.sizes), dim_order=list(range(len(tensor.sizes)))
            )
        )
        self.emit(_VIEW_OP, [index, self.table.int_list(tensor.sizes), copy, copy], name=f"output_copy_{i}")
        return copy

    def close(self, outputs: List[int]) -> pte.Program:
        """Ends the lowering with its one method, `forward`: the chain, values, operators and delegates.
        Values that nothing refers to any more (a backend's rewrites leave some) are dropped first."""
        remap = prune(self.program, self.table.values, self.instructions, [*self.inputs, *outputs])
        self.inputs = [remap[i] for i in self.inputs]
        outputs = [remap[i] for i in outputs]
        self.constants = {remap[i] for i in self.constants if i in remap}
        trace = self.stacktrace if any(self.stacktrace) else None
        chain = pte.Chain(inputs=list(self.inputs), outputs=outputs, instructions=self.instructions, stacktrace=trace)
        plan = pte.ExecutionPlan(
            name="forward",
            values=self.table.values,
            inputs=list(self.inputs),
            outputs=outputs,
            chains=[chain],
            operators=self.operators,
            delegates=self.delegates,
            non_const_buffer_sizes=[0, 0],
        )
        self.program.execution_plan.append(plan)
        self.info.op_counts = dict(Counter(i.op for i in self.info.instructions))
        return self.program
