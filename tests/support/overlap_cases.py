"""One-op programs for the overlap rules (mcu_export/ops/overlap.py) and plans that put an op's out exactly where
its rule allows: the tightest placement below the input (the kernel runs forward), above it (backward), and one
alignment step short of each (which the loader and the verifier must refuse).

Each case is a small module around one op; int8 cases go through the int8 pipeline, so the op reads the input's
quantize and its out feeds the output's dequantize. Every other planned tensor gets a place of its own.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import torch
from torch import nn

from mcu_export.planner.lifetimes import ALIGNMENT, compute_lifetimes
from mcu_export.planner.permits import overlap_permits
from mcu_export.pte import program as P


class Op(nn.Module):
    def __init__(self, fn: Callable):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[], nn.Module]
    shapes: Tuple[Tuple[int, ...], ...]
    op: str  # the qualified op whose out is placed over its input
    int8: bool = True
    overlaps: bool = True  # False: the rule must refuse (no permit, and a forced overlap is refused at load)
    nhwc: bool = False  # fp32: the op between two binary ops, so that the layout pass makes its in and out NHWC


def _seeded(module: nn.Module) -> nn.Module:
    torch.manual_seed(7)
    for p in module.parameters():
        nn.init.uniform_(p, -0.5, 0.5)
    return module.eval()


def _conv(*a, **k):
    return lambda: _seeded(nn.Conv2d(*a, **k))


class _Between(nn.Module):
    """op(x + 0.5) * 2: the op's input and out are neither the method's input nor its output, and binary ops take
    either layout, so the layout pass (mcu_export/lower/channels_last.py) gives both channels-last."""

    def __init__(self, op: nn.Module):
        super().__init__()
        self.op = op

    def forward(self, x):
        return self.op(x + 0.5) * 2.0


def _nhwc_conv(*a, **k):
    return lambda: _Between(_seeded(nn.Conv2d(*a, **k))).eval()


CM = "cortex_m::"
CONV = "aten::convolution.out"
CASES: List[Case] = [
    Case("conv3x3", _conv(8, 8, 3, padding=1), ((1, 8, 7, 6),), CM + "quantized_conv2d.out"),
    Case("conv3x3_widen", _conv(3, 16, 3, padding=1), ((1, 3, 6, 5),), CM + "quantized_conv2d.out"),
    Case("conv3x3_s2", _conv(4, 8, 3, stride=2, padding=1), ((1, 4, 9, 8),), CM + "quantized_conv2d.out"),
    Case("conv1x1", _conv(8, 8, 1), ((1, 8, 5, 6),), CM + "quantized_conv2d.out"),
    Case("conv1x1_s2", _conv(8, 4, 1, stride=2), ((1, 8, 7, 6),), CM + "quantized_conv2d.out"),
    Case("conv1xn", _conv(4, 8, (1, 3), padding=(0, 1)), ((1, 4, 1, 9),), CM + "quantized_conv2d.out"),
    Case("conv_batch2", _conv(4, 4, 3, padding=1), ((2, 4, 5, 4),), CM + "quantized_conv2d.out"),
    Case("conv_dilated", _conv(4, 4, 3, padding=2, dilation=2), ((1, 4, 8, 7),), CM + "quantized_conv2d.out"),
    Case(
        "conv_grouped",
        _conv(8, 8, 3, padding=1, groups=2),
        ((1, 8, 5, 5),),
        CM + "quantized_conv2d.out",
        overlaps=False,
    ),
    Case("dw3x3", _conv(8, 8, 3, padding=1, groups=8), ((1, 8, 7, 6),), CM + "quantized_depthwise_conv2d.out"),
    Case("dw5x5", _conv(8, 8, 5, padding=2, groups=8), ((1, 8, 9, 7),), CM + "quantized_depthwise_conv2d.out"),
    Case(
        "dw_s2", _conv(8, 8, 3, stride=2, padding=1, groups=8), ((1, 8, 9, 8),), CM + "quantized_depthwise_conv2d.out"
    ),
    Case("dw_mult2", _conv(4, 8, 3, padding=1, groups=4), ((1, 4, 6, 5),), CM + "quantized_depthwise_conv2d.out"),
    Case("maxpool2", lambda: nn.MaxPool2d(2), ((1, 8, 8, 6),), CM + "quantized_max_pool2d.out"),
    Case("maxpool3_p1", lambda: nn.MaxPool2d(3, 1, 1), ((1, 8, 6, 5),), CM + "quantized_max_pool2d.out"),
    Case("avgpool2", lambda: nn.AvgPool2d(2), ((1, 8, 8, 6),), CM + "quantized_avg_pool2d.out"),
    Case(
        "avgpool3_p1",
        lambda: nn.AvgPool2d(3, 1, 1, count_include_pad=False),
        ((1, 8, 6, 5),),
        CM + "quantized_avg_pool2d.out",
    ),
    Case("add_i8", lambda: Op(lambda a, b: a + b), ((1, 8, 5, 5), (1, 8, 5, 5)), CM + "quantized_add.out"),
    Case("mul_i8", lambda: Op(lambda a, b: a * b), ((1, 8, 5, 5), (1, 8, 5, 5)), CM + "quantized_mul.out"),
    Case("quantize", lambda: Op(lambda a: torch.relu(a)), ((1, 8, 5, 5),), CM + "quantize_per_tensor.out"),
    Case("dw3x3_f32", _conv(8, 8, 3, padding=1, groups=8), ((1, 8, 7, 6),), CONV, int8=False),
    Case("dw_narrow_f32", _conv(8, 8, 3, padding=1, groups=8), ((1, 8, 25, 5),), CONV, int8=False),
    Case("dw_s2_f32", _conv(8, 8, 3, stride=2, padding=1, groups=8), ((1, 8, 9, 8),), CONV, int8=False),
    Case("dw5x5_dilated_f32", _conv(4, 4, 5, padding=4, dilation=2, groups=4), ((1, 4, 9, 7),), CONV, int8=False),
    Case("dw_batch2_f32", _conv(5, 5, (3, 1), padding=(1, 0), groups=5, bias=False), ((2, 5, 6, 4),), CONV, int8=False),
    Case("dw_s21_f32", _conv(6, 6, 3, stride=(2, 1), padding=(2, 0), groups=6), ((1, 6, 9, 6),), CONV, int8=False),
    Case("dw1x1_f32", _conv(8, 8, 1, groups=8), ((1, 8, 5, 6),), CONV, int8=False, overlaps=False),
    Case("conv3x3_f32", _conv(4, 8, 3, padding=1), ((1, 4, 6, 5),), CONV, int8=False, overlaps=False),
    Case("conv3x3_nhwc_f32", _nhwc_conv(8, 8, 3, padding=1), ((1, 8, 7, 6),), CONV, int8=False, nhwc=True),
    Case("conv3x3_widen_nhwc_f32", _nhwc_conv(3, 16, 3, padding=1), ((1, 3, 6, 5),), CONV, int8=False, nhwc=True),
    Case("conv_s2_nhwc_f32", _nhwc_conv(4, 8, 3, stride=2, padding=1), ((1, 4, 9, 8),), CONV, int8=False, nhwc=True),
    Case("conv1x1_nhwc_f32", _nhwc_conv(8, 8, 1), ((1, 8, 25, 5),), CONV, int8=False, nhwc=True),
    Case("conv1x1_s2_nhwc_f32", _nhwc_conv(8, 4, 1, stride=2), ((1, 8, 7, 6),), CONV, int8=False, nhwc=True),
    Case("dw3x3_nhwc_f32", _nhwc_conv(8, 8, 3, padding=1, groups=8), ((1, 8, 7, 6),), CONV, int8=False, nhwc=True),
    Case("conv_batch2_nhwc_f32", _nhwc_conv(4, 4, 3, padding=1), ((2, 4, 5, 4),), CONV, int8=False, nhwc=True),
    Case("avgpool2_f32", lambda: nn.AvgPool2d(2), ((1, 8, 8, 6),), "aten::avg_pool2d.out", int8=False),
    Case(
        "avgpool3_p1_f32",
        lambda: nn.AvgPool2d(3, 1, 1, count_include_pad=False),
        ((2, 3, 6, 5),),
        "aten::avg_pool2d.out",
        int8=False,
    ),
    Case(
        "avgpool3_s2_ceil_f32",
        lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True),
        ((1, 4, 8, 7),),
        "aten::avg_pool2d.out",
        int8=False,
    ),
    Case("add_f32", lambda: Op(lambda a, b: a + b), ((2, 33), (2, 33)), "aten::add.out", int8=False),
    Case("mul_f32", lambda: Op(lambda a, b: a * b), ((2, 33), (2, 33)), "aten::mul.out", int8=False),
    Case("sigmoid_f32", lambda: Op(torch.sigmoid), ((3, 21),), "aten::sigmoid.out", int8=False),
    Case("hardtanh_f32", lambda: Op(lambda a: torch.clamp(a, -0.5, 0.5)), ((3, 21),), "aten::clamp.out", int8=False),
    Case("gelu_f32", lambda: Op(nn.functional.gelu), ((3, 21),), "aten::gelu.out", int8=False),
]
BY_NAME: Dict[str, Case] = {c.name: c for c in CASES}
# The fast tier's share: one case of each rule family (the full suite runs them all).
FAST = ("conv3x3", "dw3x3", "add_f32", "dw3x3_f32", "conv3x3_nhwc_f32")


def inputs(case: Case) -> Tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(11)
    return tuple(torch.rand(s, generator=g) * 4 - 2 for s in case.shapes)


def export(case: Case, overlap: bool = False) -> P.Program:
    """The case's program (a fresh copy: callers rewrite it)."""
    return copy.deepcopy(_exported(case.name, overlap))


@functools.lru_cache(maxsize=None)
def _exported(name: str, overlap: bool) -> P.Program:
    from mcu_export.api import export as api_export
    from mcu_export.pte.reader import read_program

    case = BY_NAME[name]
    xs = inputs(case)
    art = api_export(
        case.make().eval(),
        xs,
        quantize="int8" if case.int8 else None,
        calibrate=[xs] if case.int8 else None,
        overlap=overlap or case.nhwc,
    )
    if case.nhwc and not overlap:  # the layout comes with overlaps on; keep it, plan apart
        from mcu_export.planner import plan_memory
        from mcu_export.pte.writer import write_program

        plan_memory(art.program, overlap=False, reschedule=False)
        return read_program(write_program(art.program))
    return read_program(art.pte)


def target(plan: P.ExecutionPlan, op: str) -> Tuple[int, int, int]:
    """(instruction index, input value, out value) of the first call of `op`: its input at position 0, its out
    the one before the return."""
    for i, ins in enumerate(plan.chains[0].instructions):
        if isinstance(ins, P.KernelCall) and plan.operators[ins.op_index].qualified == op:
            return i, ins.args[0], ins.args[-2]
    raise LookupError(f"no call of {op}")


def reach(plan: P.ExecutionPlan, op: str):
    _, x, y = target(plan, op)
    return overlap_permits(plan, compute_lifetimes(plan)).get((y, x))


def placed(program: P.Program, op: str, where: str, short: int = 0) -> Optional[P.Program]:
    """The program with op's out `where` = "below" or "above" its input at the rule's distance less `short`
    bytes (None where the rule allows no such placement); every other planned tensor in a place of its own."""
    prog = copy.deepcopy(program)
    plan = prog.execution_plan[0]
    _, x, y = target(plan, op)
    r = reach(plan, op)
    distance = None if r is None else (r.below if where == "below" else r.above)
    if distance is None:
        return None
    distance -= short
    lifetimes = {lt.value: lt for lt in compute_lifetimes(plan)}
    cursor = 0
    offsets = {}
    for v, lt in sorted(lifetimes.items()):
        if v not in (x, y):
            offsets[v] = cursor
            cursor += lt.size
    base = cursor + (max(distance, 0) if where == "below" else max(-distance, 0))
    offsets[x] = base
    offsets[y] = base - distance if where == "below" else base + distance
    assert offsets[y] % ALIGNMENT == 0 and offsets[y] >= cursor and offsets[x] >= cursor
    for v, off in offsets.items():
        plan.values[v].allocation_info = P.AllocationDetails(memory_id=1, memory_offset=off)
    plan.non_const_buffer_sizes = [0, max(off + lifetimes[v].size for v, off in offsets.items())]
    return prog


def arrays(case: Case) -> List[np.ndarray]:
    return [x.numpy() for x in inputs(case)]
