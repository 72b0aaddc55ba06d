"""The backend interface, and partitioning as "ask the backends in priority order".

A backend says which graph nodes it takes, with a reason for each node it refuses, and lowers the ones
it takes through the program builder. Two kinds:

- `KernelBackend` (portable fp32, cortex_m int8) lowers node by node to kernel calls. `take` lowers a
  node, possibly with neighbours its pattern consumes (marked in `builder.done`), or returns the reason
  it refuses; a refusal emits no instruction.
- `DelegateBackend` (a toy one in the tests) answers `refuses` without side effects; the partitioner
  groups the contiguous nodes it accepts into partitions, and `lower_partition` turns each into one
  DelegateCall (`builder.delegate_call`).

A backend may also delegate after the walk, in its `finish`, on the program the others made: the Ethos-U
backend (`mcu_export.ethosu.backend`) replaces runs of int8 kernel calls by delegate calls
(`builder.splice_delegate`), so that the NPU computes from exactly the numbers the CPU program uses.

`lower_graph` walks the graph once: for each node the backends are asked in the order given; the first
that takes it owns it. A node that the first backend refused is recorded in `info.fallbacks` with that
reason; a node that every backend refuses is an UnsupportedOpError naming the op, the reasons and the
model source line.
"""

from __future__ import annotations

import operator
from typing import Dict, List, Optional, Sequence, Tuple

from torch.export import ExportedProgram
from torch.fx import Node

from mcu_export.errors import UnsupportedOpError, UsageError
from mcu_export.lower.builder import LoweringInfo, NodeValue, ProgramBuilder
from mcu_export.passes.source_location import source_location
from mcu_export.pte import program as pte


class Refusal(Exception):
    """Raised inside a backend's lowering when it cannot take a node; the message is the reason."""


class Backend:
    name = "backend"

    def start(self, builder: ProgramBuilder) -> None:
        """Called once before the walk (register value resolvers, reset per-program state)."""

    def finish(self, builder: ProgramBuilder, outputs: List[int]) -> None:
        """Called once after the walk, before the method is closed (clean-up passes over instructions)."""


class KernelBackend(Backend):
    def take(self, builder: ProgramBuilder, node: Node) -> Optional[str]:
        """Lower `node` to kernel calls and return None, or return why this backend refuses it."""
        raise NotImplementedError


class DelegateBackend(Backend):
    def refuses(self, builder: ProgramBuilder, node: Node) -> Optional[str]:
        """None when this backend can run `node` inside a partition, else the reason. No side effects."""
        raise NotImplementedError

    def lower_partition(
        self, builder: ProgramBuilder, nodes: Sequence[Node], inputs: Sequence[Node], outputs: Sequence[Node]
    ) -> None:
        """Emit one delegate call for `nodes` (contiguous, in graph order) reading `inputs` (nodes
        outside the partition) and producing `outputs` (nodes read outside it); bind each output in
        `builder.values`."""
        raise NotImplementedError


def partition_io(nodes: Sequence[Node]) -> Tuple[List[Node], List[Node]]:
    """(nodes outside the partition that it reads, its nodes that are read outside it), in graph order."""
    inside = set(nodes)
    inputs: List[Node] = []
    for node in nodes:
        for arg in node.all_input_nodes:
            if arg not in inside and arg not in inputs:
                inputs.append(arg)
    outputs = [n for n in nodes if any(u not in inside for u in n.users)]
    return inputs, outputs


def _compute_nodes(ep: ExportedProgram) -> List[Node]:
    return [n for n in ep.graph_module.graph.nodes if n.op == "call_function" and n.target != operator.getitem]


def _partitions(
    builder: ProgramBuilder, backend: DelegateBackend, nodes: List[Node]
) -> Tuple[Dict[Node, List[Node]], Dict[Node, str]]:
    """Maximal runs of contiguous compute nodes the delegate accepts, keyed by their first node; and
    the reason for every node it refuses."""
    groups: Dict[Node, List[Node]] = {}
    refused: Dict[Node, str] = {}
    run: List[Node] = []
    for node in nodes + [None]:
        reason = backend.refuses(builder, node) if node is not None else "end"
        if reason is None:
            run.append(node)
            continue
        if node is not None:
            refused[node] = reason
        if run:
            groups[run[0]] = run
            run = []
    return groups, refused


def lower_graph(
    ep: ExportedProgram, backends: Sequence[Backend], with_stacktrace: bool = True
) -> Tuple[pte.Program, LoweringInfo]:
    """Lower every node of `ep` with the first of `backends` that takes it; planned tensors not yet placed."""
    for spec in ep.graph_signature.output_specs:
        if spec.kind.name != "USER_OUTPUT":
            raise UsageError(
                f"model output {spec.arg} is a {spec.kind.name.lower()}; "
                "mcu-export exports inference graphs without state updates"
            )
    builder = ProgramBuilder(ep, with_stacktrace)
    for backend in backends:
        backend.start(builder)
    compute = _compute_nodes(ep)
    delegated = {b: _partitions(builder, b, compute) for b in backends if isinstance(b, DelegateBackend)}
    outputs: List[int] = []
    for node in ep.graph_module.graph.nodes:
        builder.current = node
        if node.op == "placeholder":
            builder.placeholder(node)
        elif node.op == "output":
            outputs = builder.output(node)
        elif node.op != "call_function":
            raise UnsupportedOpError(f"graph node {node.name} ({node.op}) is not supported")
        elif node in builder.done:
            continue
        elif node.target == operator.getitem:
            source = builder.values.get(node.args[0])
            if isinstance(source, list):
                builder.values[node] = source[node.args[1]]
        else:
            _lower_node(builder, backends, delegated, node)
    for backend in backends:
        backend.finish(builder, outputs)
    return builder.close(outputs), builder.info


def _lower_node(builder: ProgramBuilder, backends: Sequence[Backend], delegated, node: Node) -> None:
    reasons: List[Tuple[str, str]] = []
    for backend in backends:
        if isinstance(backend, DelegateBackend):
            groups, refused = delegated[backend]
            if node in groups:
                nodes = groups[node]
                inputs, outputs = partition_io(nodes)
                backend.lower_partition(builder, nodes, inputs, outputs)
                builder.done.update(nodes)
                reason = None
            else:
                reason = refused.get(node, "inside a partition that did not start here")
        elif isinstance(backend, KernelBackend):
            count = len(builder.instructions)
            reason = backend.take(builder, node)
            if reason is not None and len(builder.instructions) != count:
                raise AssertionError(f"backend {backend.name} refused {node.name} after emitting instructions")
        else:
            raise TypeError(f"backend {backend.name} is neither a KernelBackend nor a DelegateBackend")
        if reason is None:
            if reasons:
                location = source_location(node)
                builder.info.fallbacks.append(
                    {
                        "op": str(node.target),
                        "node": node.name,
                        "location": str(location) if location else None,
                        "reason": reasons[0][1],
                        "backend": backend.name,
                    }
                )
            return
        reasons.append((backend.name, reason))
    location = source_location(node)
    why = "; ".join(f"{name}: {reason}" for name, reason in reasons)
    raise UnsupportedOpError(
        f"operator {node.target} is not supported ({why})" + (f" (at {location})" if location else "")
    )


def bind_outputs(builder: ProgramBuilder, outputs: Sequence[Node]) -> List[int]:
    """Planned tensors for a partition's outputs, bound to their nodes: the delegate call's out args."""
    indices: List[int] = []
    for node in outputs:
        value: NodeValue = builder.planned_like(node)
        builder.values[node] = value
        indices.extend(value if isinstance(value, list) else [value])
    return indices
