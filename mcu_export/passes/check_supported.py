"""The export-time support check: every call in the graph must map to an op in the op table."""

from __future__ import annotations

import operator

import torch
from torch.export import ExportedProgram

from mcu_export.errors import UnsupportedOpError
from mcu_export.ops.table import BY_ATEN
from mcu_export.passes.source_location import source_location


def op_display_name(target) -> str:
    """`aten.add.Tensor`, or `aten._fft_r2c` for a default overload."""
    if isinstance(target, torch._ops.OpOverload):
        ns = target.namespace
        name = target._schema.name.split("::", 1)[-1]
        overload = target._overloadname
        return f"{ns}.{name}" if overload == "default" else f"{ns}.{name}.{overload}"
    return getattr(target, "__qualname__", str(target))


def _first_output_dtype(node):
    val = node.meta.get("val")
    if isinstance(val, (tuple, list)):
        val = val[0] if val else None
    return str(val.dtype).replace("torch.", "") if isinstance(val, torch.Tensor) else None


def check_supported(ep: ExportedProgram) -> None:
    for node in ep.graph_module.graph.nodes:
        if node.op == "call_function" and node.target != operator.getitem:
            where = source_location(node)
            suffix = f" ({where})" if where else f" (graph node {node.name})"
            op = BY_ATEN.get(str(node.target))
            if op is None:
                raise UnsupportedOpError(f"operator {op_display_name(node.target)} is not supported{suffix}")
            dtype = _first_output_dtype(node)
            if dtype is not None and dtype not in op.dtypes:
                raise UnsupportedOpError(
                    f"operator {op_display_name(node.target)} is not supported for {dtype} "
                    f"(supported: {', '.join(op.dtypes)}){suffix}"
                )
        if node.op in ("call_module", "get_attr", "call_method"):
            raise UnsupportedOpError(f"graph node {node.name} ({node.op} {node.target}) is not supported")
