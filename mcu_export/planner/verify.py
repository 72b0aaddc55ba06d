"""Proof that a memory plan is safe: every tensor inside the arena, aligned, and no two tensors that
are live at the same instruction sharing a byte, unless an overlap permit (planner/permits.py: the rule of the
kernel at the one instruction where the two meet) allows it at their offsets."""

from __future__ import annotations

from typing import Dict, Optional, Sequence

from mcu_export.errors import McuExportError
from mcu_export.planner.lifetimes import ALIGNMENT, Lifetime
from mcu_export.planner.permits import Permits, overlap_allowed


class PlanVerificationError(McuExportError):
    """A memory plan that would corrupt data (a planner bug, never a user error)."""


def verify_plan(
    lifetimes: Sequence[Lifetime],
    offsets: Dict[int, int],
    arena_bytes: int,
    alignment: int = ALIGNMENT,
    permits: Optional[Permits] = None,
) -> None:
    for lt in lifetimes:
        off = offsets.get(lt.value)
        if off is None:
            raise PlanVerificationError(f"memory plan: tensor value {lt.value} has no offset")
        if off % alignment:
            raise PlanVerificationError(
                f"memory plan: tensor value {lt.value} at offset {off} is not {alignment}-byte aligned"
            )
        if off < 0 or off + lt.size > arena_bytes:
            raise PlanVerificationError(
                f"memory plan: tensor value {lt.value} [{off}, {off + lt.size}) "
                f"lies outside the {arena_bytes}-byte arena"
            )
    # Sweep in order of first use: only tensors still live when `lt` starts can conflict with it.
    ordered = sorted((lt for lt in lifetimes if lt.size), key=lambda lt: (lt.first, lt.value))
    live: list = []
    for lt in ordered:
        live = [o for o in live if o.last >= lt.first]
        a0, a1 = offsets[lt.value], offsets[lt.value] + lt.size
        for other in live:
            b0, b1 = offsets[other.value], offsets[other.value] + other.size
            if a0 < b1 and b0 < a1 and not overlap_allowed(permits or {}, lt, a0, other, b0):
                raise PlanVerificationError(
                    f"memory plan: tensors {other.value} (instructions {other.first}..{other.last}, bytes "
                    f"[{b0}, {b1})) and {lt.value} (instructions {lt.first}..{lt.last}, bytes [{a0}, {a1})) "
                    "are live together and overlap where no kernel's overlap rule allows it"
                )
        live.append(lt)
