"""Which live-together tensors may share bytes: an instruction's out and an input it reads for the last time,
where the kernel's overlap rule (mcu_export/ops/overlap.py) says how far below the input the out must start.

A permit is keyed (out value, input value) and holds the rule's ``Reach``, its distances rounded up to the
tensor alignment: the out may start that far below or above the input. The two tensors meet at one instruction
only (the input's last, the out's first); everywhere else the ordinary rule holds. An input named at several
positions of the call needs every position's rule: the larger distance each way, a way only if all allow it.
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

from mcu_export.ops.overlap import Reach
from mcu_export.planner.lifetimes import ALIGNMENT, Lifetime, aligned
from mcu_export.pte import program as pte

Permits = Dict[Tuple[int, int], Reach]


def _rule(plan: pte.ExecutionPlan, instr: pte.KernelCall):
    from mcu_export.ops.c_args import first_out
    from mcu_export.ops.overlap import overlap_rule
    from mcu_export.ops.table import BY_QUALIFIED

    op = BY_QUALIFIED.get(plan.operators[instr.op_index].qualified)
    if op is None:
        return None, 0
    rule = overlap_rule(op)
    return (rule, first_out(op)) if rule is not None else (None, 0)


def overlap_permits(plan: pte.ExecutionPlan, lifetimes: Sequence[Lifetime]) -> Permits:
    by_value = {lt.value: lt for lt in lifetimes}
    instructions = [i for chain in plan.chains for i in chain.instructions]
    permits: Permits = {}
    for step, instr in enumerate(instructions):
        if not isinstance(instr, pte.KernelCall):
            continue
        rule, out_pos = _rule(plan, instr)
        if rule is None or len(instr.args) != out_pos + 2:  # one out, then the return
            continue
        out = by_value.get(instr.args[out_pos])
        if out is None or out.first != step or out.size == 0:
            continue
        needs: Dict[int, Optional[Reach]] = {}
        for pos in range(out_pos):
            x = by_value.get(instr.args[pos])
            if x is None or x.last != step or x.value == out.value:
                continue
            reach = rule.reach(plan.values, instr.args, pos, out_pos)
            needs[x.value] = _both(needs[x.value], reach) if x.value in needs else reach
        for value in _in_lists(plan, instr, out_pos):
            needs[value] = None
        for value, reach in needs.items():
            if reach is not None and (reach.below is not None or reach.above is not None):
                permits[(out.value, value)] = Reach(*(_up(d) for d in (reach.below, reach.above)))
    return permits


def _up(d: Optional[int]) -> Optional[int]:
    return None if d is None else aligned(max(d, 0), ALIGNMENT)


def _both(a: Optional[Reach], b: Optional[Reach]) -> Optional[Reach]:
    if a is None or b is None:
        return None
    below = None if a.below is None or b.below is None else max(a.below, b.below)
    above = None if a.above is None or b.above is None else max(a.above, b.above)
    return Reach(below, above)


def _in_lists(plan: pte.ExecutionPlan, instr: pte.KernelCall, out_pos: int):
    """Tensors the call names inside a list: never overlapped (the loader's rule takes plain arguments only)."""
    for pos in range(out_pos):
        v = plan.values[instr.args[pos]]
        if isinstance(v, (pte.TensorList, pte.OptionalTensorList)):
            yield from (i for i in v.items if i >= 0)


def overlap_allowed(permits: Permits, a: Lifetime, off_a: int, b: Lifetime, off_b: int) -> bool:
    """Whether a and b, live together and sharing bytes at these offsets, do so as a permit allows."""
    for out, out_off, x, x_off in ((a, off_a, b, off_b), (b, off_b, a, off_a)):
        reach = permits.get((out.value, x.value))
        if reach is not None and reach.allows(x_off - out_off):
            return True
    return False
