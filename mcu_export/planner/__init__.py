"""Ahead-of-time memory planning: every non-constant tensor gets an offset in one arena (memory id 1).

`plan_memory` computes lifetimes, allocates, proves the result with the verifier and writes it into
the Program; the lower bound says how far from optimal the arena is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from mcu_export.planner.allocate import allocate, arena_size
from mcu_export.planner.bound import lower_bound
from mcu_export.planner.lifetimes import Lifetime, compute_lifetimes
from mcu_export.planner.permits import overlap_permits
from mcu_export.planner.schedule import Schedule, best_order, reorder
from mcu_export.planner.verify import PlanVerificationError, verify_plan
from mcu_export.pte import program as pte

ARENA_ID = 1  # memory id 0 is reserved by the schema


@dataclass(frozen=True)
class PlannedTensor:
    value: int
    offset: int
    size: int  # aligned bytes
    first: int  # instruction index of the first use (-1: a model input)
    last: int  # instruction index of the last use (number of instructions: a model output)


@dataclass
class MemoryPlan:
    arena_bytes: int
    lower_bound_bytes: int
    tensors: List[PlannedTensor] = field(default_factory=list)
    strategy: str = ""
    overlaps: int = 0  # outs placed over an input they replace (a kernel's overlap rule allows each)
    schedule: Optional[Schedule] = None  # how the instruction order was chosen


def plan_memory(
    program: pte.Program, method: str = "forward", overlap: bool = True, reschedule: bool = True, info=None
) -> MemoryPlan:
    """`overlap`: let an out share bytes with an input it replaces where its kernel's rule allows (permits from
    the kernels' rules; the verifier holds every overlap to them). `reschedule`: first put the instructions in the
    order with the lowest live-set peak (planner/schedule.py), keeping `info`'s instruction records in step."""
    plan = program.method(method)
    order = best_order(plan) if reschedule else None
    if order is not None and order.order != sorted(order.order):
        reorder(program, info, order.order, method)
    lifetimes = compute_lifetimes(plan)
    permits = overlap_permits(plan, lifetimes) if overlap else {}
    offsets, strategy = allocate(lifetimes, permits)
    arena = arena_size(lifetimes, offsets)
    verify_plan(lifetimes, offsets, arena, permits=permits)
    for lt in lifetimes:
        plan.values[lt.value].allocation_info = pte.AllocationDetails(
            memory_id=ARENA_ID, memory_offset=offsets[lt.value]
        )
    plan.non_const_buffer_sizes = [0, arena]
    tensors = [PlannedTensor(lt.value, offsets[lt.value], lt.size, lt.first, lt.last) for lt in lifetimes]
    size = {lt.value: lt.size for lt in lifetimes}
    shared = sum(1 for a, b in permits if offsets[a] < offsets[b] + size[b] and offsets[b] < offsets[a] + size[a])
    return MemoryPlan(arena, lower_bound(lifetimes), tensors, strategy, shared, order)


__all__ = [
    "plan_memory",
    "MemoryPlan",
    "PlannedTensor",
    "Lifetime",
    "compute_lifetimes",
    "allocate",
    "lower_bound",
    "verify_plan",
    "PlanVerificationError",
]
