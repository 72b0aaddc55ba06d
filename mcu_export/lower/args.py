"""Kernel-call arguments from an op's out-variant schema (ExecuTorch's emitter convention).

Arguments come in schema order, kwarg-only ones included: the node's value when it gives one, else
the schema default, else None for optionals. The out arguments are the node's planned output tensors;
the returns follow: the out tensor again, or one TensorList of all outs for multi-output ops.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Sequence

import torch
from torch.fx import Node

from mcu_export.errors import UsageError
from mcu_export.lower.values import ValueTable, scalar_type
from mcu_export.ops.table import OpDef

_MISSING = object()
_MEMORY_FORMATS = (torch.contiguous_format, torch.preserve_format, torch.channels_last, torch.channels_last_3d)


def bind_node(node: Node) -> Dict[str, Any]:
    """The node's arguments by name, per its own (functional) schema; absent ones are left out."""
    schema = node.target._schema
    bound = {arg.name: value for arg, value in zip(schema.arguments, node.args)}
    bound.update(node.kwargs)
    return bound


@dataclass(frozen=True)
class TensorOf:
    """How tensor arguments are given: graph nodes (resolved by the builder) or T(index) values."""

    kind: type  # what a tensor argument must be
    index: Callable[[Any], int]  # its EValue index


def is_out_argument(arg: torch.Argument) -> bool:
    return arg.kwarg_only and arg.alias_info is not None and arg.alias_info.is_write


def split_call_args(schema: torch.FunctionSchema, args: Sequence[int]):
    """A KernelCall's EValue indices by schema name, and its out arguments: (inputs, outs)."""
    inputs: Dict[str, int] = {}
    outs: List[int] = []
    for arg, index in zip(schema.arguments, args):
        if is_out_argument(arg):
            outs.append(index)
        else:
            inputs[arg.name] = index
    return inputs, outs


def _emit(table: ValueTable, arg: torch.Argument, value, tensor_of: TensorOf, where: str) -> int:
    kind = arg.type.kind()
    if kind == "OptionalType":
        if value is None:
            return table.null()
        return _emit_as(table, arg.type.getElementType(), arg.N, value, tensor_of, where, arg.name)
    return _emit_as(table, arg.type, arg.N, value, tensor_of, where, arg.name)


def _emit_as(table: ValueTable, typ, n, value, tensor_of: TensorOf, where: str, name: str) -> int:
    kind = typ.kind()
    if kind == "TensorType":
        if not isinstance(value, tensor_of.kind):
            raise UsageError(f"{where}: argument {name} must be a tensor, got {value!r}")
        return tensor_of.index(value)
    if kind == "ListType":
        elem = typ.getElementType().kind()
        if elem == "TensorType":
            return table.tensor_list([tensor_of.index(v) for v in value])
        if elem in ("IntType", "SymIntType"):
            items = [value] * (n or 1) if isinstance(value, int) else list(value)
            return table.int_list(items)
        if elem == "FloatType":
            return table.double_list(list(value))
    if kind == "StringType":
        return table.string(value)
    if kind in ("IntType", "SymIntType"):
        if isinstance(value, torch.dtype):  # ScalarType arguments are ints in the schema
            return table.int(int(scalar_type(value)))
        if isinstance(value, torch.memory_format):  # so are MemoryFormat ones (c10's enum order)
            return table.int(_MEMORY_FORMATS.index(value))
        return table.int(value)
    if kind == "FloatType":
        return table.double(value)
    if kind == "BoolType":
        return table.bool(value)
    if kind == "NumberType":  # Scalar: keep the Python type, as the emitter does
        if isinstance(value, bool):
            return table.bool(value)
        return table.int(value) if isinstance(value, int) else table.double(value)
    raise UsageError(f"{where}: argument {name} of type {typ} cannot be lowered")


def kernel_args(
    table: ValueTable,
    op: OpDef,
    bound: Dict[str, Any],
    outs: Sequence[int],
    tensor_of: TensorOf,
    where: str,
) -> List[int]:
    """A KernelCall's arguments: the schema's in order (`bound` by name; defaults and None for the missing
    optional ones), the planned `outs` for the out arguments, then the return."""
    args: List[int] = []
    out_iter = iter(outs)
    for arg in op.schema().arguments:
        if is_out_argument(arg):
            # `Tensor(a!)[] out` (split_with_sizes_copy) takes every out as one TensorList
            is_list = arg.type.kind() == "ListType"
            args.append(table.tensor_list(list(out_iter)) if is_list else next(out_iter))
            continue
        value = bound.get(arg.name, _MISSING)
        if value is _MISSING:
            if arg.has_default_value():
                value = arg.default_value
            elif arg.type.kind() == "OptionalType":
                value = None
            else:
                raise UsageError(f"{where}: {op.qualified} needs argument {arg.name}, which the node lacks")
        args.append(_emit(table, arg, value, tensor_of, where))
    if len(outs) == 1:
        args.append(outs[0])
    else:
        args.append(table.tensor_list(outs))
    return args
