"""Helpers that edit an ExportedProgram's graph together with its signature and weights.

An ExportedProgram keeps one placeholder per input spec, in the same order; parameters, buffers and
lifted constants are placeholders whose data lives in `ep.state_dict` or `ep.constants`. Every helper
here keeps those three in step, so that `ep.module()` still runs after a pass.
"""

from __future__ import annotations

import itertools
from typing import Optional

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, InputSpec, TensorArgument
from torch.fx import Node

_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


def input_spec(ep: ExportedProgram, node: Node) -> Optional[InputSpec]:
    if node.op != "placeholder":
        return None
    for spec in ep.graph_signature.input_specs:
        if isinstance(spec.arg, TensorArgument) and spec.arg.name == node.name:
            return spec
    return None


def constant_value(ep: ExportedProgram, node) -> Optional[torch.Tensor]:
    """The data of a parameter, buffer or lifted constant placeholder; None for anything else."""
    if not isinstance(node, Node):
        return None
    spec = input_spec(ep, node)
    if spec is None or spec.kind not in _CONSTANT_KINDS:
        return None
    if spec.target in ep.constants:
        value = ep.constants[spec.target]
    else:
        value = ep.state_dict.get(spec.target)
    return value.detach() if isinstance(value, torch.Tensor) else None


def _fake_like(graph: torch.fx.Graph, tensor: torch.Tensor):
    for node in graph.nodes:
        val = node.meta.get("val")
        fake_mode = getattr(val, "fake_mode", None)
        if fake_mode is not None:
            with fake_mode:
                return torch.empty_strided(tensor.shape, tensor.stride(), dtype=tensor.dtype)
    return tensor


def add_constant(ep: ExportedProgram, tensor: torch.Tensor, hint: str) -> Node:
    """A new lifted-constant placeholder holding `tensor` (placed before the user inputs)."""
    graph = ep.graph_module.graph
    taken = {n.name for n in graph.nodes} | set(ep.constants) | set(ep.state_dict)
    name = next(f"_mx_{hint}_{i}" for i in itertools.count() if f"_mx_{hint}_{i}" not in taken)
    tensor = tensor.detach().contiguous()

    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    specs = ep.graph_signature.input_specs
    first_user = next((i for i, s in enumerate(specs) if s.kind == InputKind.USER_INPUT), len(specs))
    anchor = placeholders[first_user] if first_user < len(placeholders) else None
    if anchor is not None:
        with graph.inserting_before(anchor):
            node = graph.placeholder(name)
    else:
        first_op = next(n for n in graph.nodes if n.op != "placeholder")
        with graph.inserting_before(first_op):
            node = graph.placeholder(name)
    node.meta["val"] = _fake_like(graph, tensor)
    specs.insert(first_user, InputSpec(kind=InputKind.CONSTANT_TENSOR, arg=TensorArgument(name=name), target=name))
    ep.constants[name] = tensor
    return node


def remove_unused_constants(ep: ExportedProgram) -> None:
    """Drop constant placeholders that no node uses any more, with their specs and data."""
    graph = ep.graph_module.graph
    specs = ep.graph_signature.input_specs
    for node in [n for n in graph.nodes if n.op == "placeholder" and not n.users]:
        spec = input_spec(ep, node)
        if spec is None or spec.kind not in _CONSTANT_KINDS:
            continue
        graph.erase_node(node)
        specs.remove(spec)
        if not any(s.target == spec.target for s in specs):
            ep.constants.pop(spec.target, None)
            ep.state_dict.pop(spec.target, None)


def _sync_output_specs(ep: ExportedProgram) -> None:
    """Output specs name the nodes they return; a pass that replaced an output node renames them."""
    output = next(n for n in ep.graph_module.graph.nodes if n.op == "output")
    returned = list(output.args[0]) if isinstance(output.args[0], (list, tuple)) else [output.args[0]]
    for spec, value in zip(ep.graph_signature.output_specs, returned):
        if isinstance(spec.arg, TensorArgument) and isinstance(value, Node):
            spec.arg = TensorArgument(name=value.name)


def finish(ep: ExportedProgram) -> None:
    """Close an edit: drop dead constants, check the graph and regenerate the module's code."""
    remove_unused_constants(ep)
    _sync_output_specs(ep)
    ep.graph_module.graph.lint()
    ep.graph_module.recompile()
