"""Channels-last activations for float32 convolutions, so that their outs can overlap their inputs.

In NCHW a row of every channel is spread over the whole tensor, so a convolution (other than a depthwise one)
reads its input until its last output row and no output row can take input bytes early. In channels-last
memory (dim order [0, 2, 3, 1], NHWC) a row holds every channel of its pixels, and the kernel writes the out row by
row over input rows no later row reads (mcu_export/ops/overlap.py, ``convolution_f32``). This pass gives that dim
order to the 4-D float32 tensors around the convolutions, where every kernel that touches them takes it:

- convolution (not transposed): its input and its out, each on its own;
- the unary elementwise ops: in and out alike (one class, all or none of it channels-last);
- the binary ops: any operand in either order (broadcasting follows each operand's order);
- mean over H and W, a 1x1 adaptive average pool: the input (the out is [N, C] or [N, C, 1, 1], one order).

Anything else keeps every tensor it touches contiguous, and so do the method's inputs and outputs (the caller
fills and reads NCHW), constants, and tensors whose two orders are the same bytes (one channel, or one pixel).
A class of tensors goes channels-last only if it meets a convolution: elsewhere it would buy nothing.
Only for our runtime: ExecuTorch's kernels keep other orders, so `overlap=False` exports skip this pass.
"""

from __future__ import annotations

from typing import Dict, List, Set

from mcu_export.ops.overlap import int_list
from mcu_export.pte import program as pte

CHANNELS_LAST = [0, 2, 3, 1]

_UNARY = {
    f"aten::{name}.out"
    for name in (
        "relu",
        "sigmoid",
        "tanh",
        "hardtanh",
        "clamp",
        "hardswish",
        "hardsigmoid",
        "leaky_relu",
        "elu",
        "gelu",
        "neg",
        "abs",
    )
}
_BINARY = {f"aten::{name}.out" for name in ("add", "sub", "mul", "div", "maximum", "minimum")}
_CONVOLUTION = "aten::convolution.out"


class _Classes:
    """Union-find over value indices: tensors that must share one dim order."""

    def __init__(self) -> None:
        self.parent: Dict[int, int] = {}

    def find(self, v: int) -> int:
        root = v
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while v != root:
            self.parent[v], v = root, self.parent.get(v, v)
        return root

    def union(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)


def _hw_reduction(values, args: List[int], op: str) -> bool:
    """mean over dims {2, 3} (or -1, -2) of a 4-D input; a 1x1 adaptive average pool."""
    x = values[args[0]]
    if not isinstance(x, pte.Tensor) or len(x.sizes) != 4:
        return False
    if op == "aten::mean.out":
        return sorted(d % 4 for d in int_list(values, args[1])) == [2, 3]
    return op == "aten::_adaptive_avg_pool2d.out" and int_list(values, args[1]) in ([1, 1], [1])


def _candidate(v: pte.EValue) -> bool:
    return (
        isinstance(v, pte.Tensor)
        and v.scalar_type == pte.ScalarType.FLOAT
        and len(v.sizes) == 4
        and not v.data_buffer_idx
        and list(v.dim_order) == [0, 1, 2, 3]
        and v.sizes[1] > 1
        and v.sizes[2] * v.sizes[3] > 1
    )


def make_channels_last(plan: pte.ExecutionPlan) -> int:
    """Give the dim order [0, 2, 3, 1] to the tensors around the float32 convolutions that every kernel touching
    them takes it in; returns how many."""
    values = plan.values
    classes = _Classes()
    vetoed: Set[int] = set(plan.inputs) | set(plan.outputs)
    near_conv: Set[int] = set()
    for chain in plan.chains:
        for instr in chain.instructions:
            if not isinstance(instr, pte.KernelCall):
                continue
            op = plan.operators[instr.op_index].qualified
            args = list(instr.args)
            tensors = [a for a in args if isinstance(values[a], pte.Tensor)]
            for a in args:
                v = values[a]
                if isinstance(v, (pte.TensorList, pte.OptionalTensorList)):
                    vetoed.update(i for i in v.items if i >= 0)
            transposed = values[args[6]] if op == _CONVOLUTION else None
            if op == _CONVOLUTION and isinstance(transposed, pte.Bool) and not transposed.bool_val:
                free = {args[0], args[-1]}
                near_conv.update(free)
                vetoed.update(t for t in tensors if t not in free)
            elif op in _UNARY:
                for t in tensors[1:]:
                    classes.union(tensors[0], t)
            elif op in _BINARY:
                pass
            elif op in ("aten::mean.out", "aten::_adaptive_avg_pool2d.out") and _hw_reduction(values, args, op):
                vetoed.update(t for t in tensors if t != args[0])
            else:
                vetoed.update(tensors)
    members: Dict[int, List[int]] = {}
    for i, v in enumerate(values):
        if isinstance(v, pte.Tensor):
            members.setdefault(classes.find(i), []).append(i)
    changed = 0
    for group in members.values():
        if not any(i in near_conv for i in group):
            continue
        if any(i in vetoed or not _candidate(values[i]) for i in group):
            continue
        for i in group:
            tensor = values[i]
            assert isinstance(tensor, pte.Tensor)  # _candidate
            tensor.dim_order = list(CHANNELS_LAST)
            changed += 1
    return changed
