"""Drop the view_copy that flattens a pooled [N, C, 1, 1] tensor to [N, C] for a quantized_linear.

cortex_m::quantized_linear reads such an input as [N, C] rows itself (with H == W == 1 every dim order
holds the same bytes), so the copy only costs a kernel (and memmove) in the firmware and an instruction
at run time. Done on the finished instruction list, so a linear layer that fell back to float still
gets its view.
"""

from __future__ import annotations

from collections import Counter
from typing import List, Sequence

from mcu_export.pte import program as pte


def _named(values: Sequence, args: Sequence[int]) -> List[int]:
    out = []
    for a in args:
        v = values[a]
        out.extend(v.items if isinstance(v, (pte.TensorList, pte.OptionalTensorList)) else [a])
    return out


def _is_flatten(values: Sequence, src: int, dst: int) -> bool:
    s, d = values[src], values[dst]
    return (
        isinstance(s, pte.Tensor)
        and isinstance(d, pte.Tensor)
        and len(s.sizes) == 4
        and len(d.sizes) == 2
        and list(s.sizes[2:]) == [1, 1]
        and list(s.sizes[:2]) == list(d.sizes)
        and s.scalar_type == d.scalar_type
    )


def fold_flatten_into_linear(
    instructions: List[pte.Instruction], operators: List[pte.Operator], values: list, outputs: Sequence[int]
) -> List[int]:
    """Points each such linear at the view's input; returns the indices of the views, now unused, for
    the caller to remove (ascending)."""
    name = [f"{op.name}.{op.overload}" for op in operators]
    calls = [i for i in instructions if isinstance(i, pte.KernelCall)]
    uses = Counter(a for i in calls for a in _named(values, i.args))
    removed = []
    for step, view in enumerate(instructions):
        if not isinstance(view, pte.KernelCall) or name[view.op_index] != "aten::view_copy.out":
            continue
        src, dst = view.args[0], view.args[-1]
        # the view names its out twice (out, return); the linear once, as its input
        if dst in outputs or uses[dst] != 3 or not _is_flatten(values, src, dst):
            continue
        users = [i for i in calls if i is not view and dst in i.args]
        if (
            len(users) != 1
            or name[users[0].op_index] != "cortex_m::quantized_linear.out"
            or users[0].args[0] != dst
            or users[0].args.count(dst) != 1
        ):
            continue
        users[0].args[0] = src
        values[dst] = pte.Null()  # nothing names it any more: no arena space for it
        removed.append(step)
    return removed
