"""The export-time support check: every call in the graph must map to an op in the op table.

The whole graph is walked once and every unsupported operator is reported in one error, one line per
operator with its count, first source line and the nearest supported alternative: a model with four
unsupported ops then needs one edit round, not four (issue 11). The int8 path runs this check right after
capture, before calibration, so it fails in a second rather than after the whole quantization.
"""

from __future__ import annotations

import operator
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import torch
from torch.export import ExportedProgram

from mcu_export.errors import UnsupportedOpError
from mcu_export.ops.table import BY_ATEN
from mcu_export.passes.source_location import source_location

# The nearest supported rewrite per op family (prefix of the display name): what a user can change in the
# model today. Only ops with a real alternative are listed; the others get no hint.
HINTS: Tuple[Tuple[str, str], ...] = (
    ("aten.convolution_backward", "training ops cannot be exported; call model.eval() first"),
    ("aten.cumsum", "not supported yet; a linear layer (or matmul) with a triangular weight of ones is"),
)


def _input_rank(node) -> Optional[int]:
    val = getattr(node.args[0], "meta", {}).get("val") if node.args else None
    return val.dim() if isinstance(val, torch.Tensor) else None


# Calls of an op the table has whose arguments no kernel takes (its load-time check refuses them): refused here,
# so that an export never succeeds for a program the runtime then refuses. (target, refused?, problem)
REFUSED_ARGUMENTS: Tuple[Tuple[str, Callable, str], ...] = (
    (
        "aten.convolution.default",
        lambda node: _input_rank(node) == 5,
        "operator aten.convolution in 3-D (nn.Conv3d/ConvTranspose3d) is not supported",
    ),
)


def _reads_a_dtype_not_in(*dtypes: torch.dtype) -> Callable:
    """Refuses a call whose first argument is a tensor of another dtype (what the kernel reads)."""

    def refused(node) -> bool:
        val = node.args[0].meta.get("val") if node.args and isinstance(node.args[0], torch.fx.Node) else None
        return isinstance(val, torch.Tensor) and val.dtype not in dtypes

    return refused


_INTEGERS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool)

# The element-wise kernels whose output dtype says nothing of the input's (abs of a complex tensor, a
# comparison of float64 values): refused by the input's dtype.
REFUSED_ARGUMENTS += tuple(
    (
        target,
        _reads_a_dtype_not_in(torch.float32),
        f"operator {target.rsplit('.', 1)[0]} on a tensor other than float32 is not supported",
    )
    for target in ("aten.abs.default", "aten.neg.default", "aten.sum.dim_IntList")
) + tuple(
    (
        f"aten.{cmp}.{form}",
        _reads_a_dtype_not_in(torch.float32, *_INTEGERS),
        f"operator aten.{cmp} on a tensor other than float32, integer or bool is not supported",
    )
    for cmp in ("eq", "ne", "gt", "ge", "lt", "le")
    for form in ("Scalar", "Tensor")
)


def _refused_arguments(node) -> Optional[str]:
    target = str(node.target)
    return next((problem for t, refused, problem in REFUSED_ARGUMENTS if t == target and refused(node)), None)


def op_display_name(target) -> str:
    """`aten.add.Tensor`, or `aten._fft_r2c` for a default overload."""
    if isinstance(target, torch._ops.OpOverload):
        ns = target.namespace
        name = target._schema.name.split("::", 1)[-1]
        overload = target._overloadname
        return f"{ns}.{name}" if overload == "default" else f"{ns}.{name}.{overload}"
    return getattr(target, "__qualname__", str(target))


def hint_for(name: str) -> Optional[str]:
    return next((hint for prefix, hint in HINTS if name.startswith(prefix)), None)


def _first_output_dtype(node):
    val = node.meta.get("val")
    if isinstance(val, (tuple, list)):
        val = val[0] if val else None
    return str(val.dtype).replace("torch.", "") if isinstance(val, torch.Tensor) else None


def unsupported_ops(ep: ExportedProgram, also_supported: Iterable[str] = ()) -> Dict[str, List]:
    """{problem text: [count, first node]} in graph order; `also_supported` adds call targets another
    backend takes (the int8 lowering's linear). dtypes are checked only without it: before quantization
    every activation is still float."""
    extra = set(also_supported)
    found: Dict[str, List] = {}
    for node in ep.graph_module.graph.nodes:
        problem = None
        if node.op == "call_function" and node.target != operator.getitem:
            target = str(node.target)
            op = BY_ATEN.get(target)
            name = op_display_name(node.target)
            dtype = _first_output_dtype(node)
            if op is None and target not in extra:
                problem = f"operator {name} is not supported"
            elif op is not None and not extra and dtype is not None and dtype not in op.dtypes:
                problem = f"operator {name} is not supported for {dtype} (supported: {', '.join(op.dtypes)})"
            elif op is not None:
                problem = _refused_arguments(node)
        elif node.op in ("call_module", "get_attr", "call_method"):
            problem = f"graph node {node.name} ({node.op} {node.target}) is not supported"
        if problem is not None:
            entry = found.setdefault(problem, [0, node])
            entry[0] += 1
    return found


def _line(problem: str, count: int, node) -> str:
    where = source_location(node)
    text = problem + (f" ({where})" if where else f" (graph node {node.name})")
    if count > 1:
        text += f", {count} uses"
    hint = hint_for(problem.split()[1]) if problem.startswith("operator ") else None
    return text + (f": {hint}" if hint else "")


def check_supported(ep: ExportedProgram, also_supported: Iterable[str] = ()) -> None:
    found = unsupported_ops(ep, also_supported)
    if not found:
        return
    lines = [_line(problem, count, node) for problem, (count, node) in found.items()]
    if len(lines) == 1:
        raise UnsupportedOpError(lines[0])
    raise UnsupportedOpError(f"{len(lines)} operators are not supported:\n  " + "\n  ".join(lines))
