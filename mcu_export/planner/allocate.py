"""Offsets in one arena for tensors with known lifetimes.

Greedy placement: take tensors in some order and put each at the lowest-waste place that no
conflicting (lifetime-overlapping) tensor already holds: the smallest gap between placed conflicting
tensors that fits it (best fit), else just above them. No single order is best for every graph, so a
few orders are tried and the smallest arena wins (ties: the first order listed, for determinism).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mcu_export.planner.lifetimes import Lifetime

_ORDERS: Sequence[Tuple[str, Callable[[Lifetime], tuple]]] = (
    ("size", lambda lt: (-lt.size, lt.first, lt.value)),
    ("area", lambda lt: (-lt.size * (lt.last - lt.first + 1), lt.first, lt.value)),
    ("duration", lambda lt: (-(lt.last - lt.first), -lt.size, lt.value)),
    ("definition", lambda lt: (lt.first, -lt.size, lt.value)),
)


def _place(order: List[Lifetime]) -> Dict[int, int]:
    offsets: Dict[int, int] = {}
    placed: List[Lifetime] = []
    for lt in order:
        busy = sorted((offsets[p.value], offsets[p.value] + p.size) for p in placed if p.size and p.overlaps(lt))
        best_offset, best_gap, cursor = None, None, 0
        for start, stop in busy:
            gap = start - cursor
            if gap >= lt.size and (best_gap is None or gap < best_gap):
                best_offset, best_gap = cursor, gap
            cursor = max(cursor, stop)
        offsets[lt.value] = cursor if best_offset is None else best_offset
        placed.append(lt)
    return offsets


def arena_size(lifetimes: Sequence[Lifetime], offsets: Dict[int, int]) -> int:
    return max((offsets[lt.value] + lt.size for lt in lifetimes), default=0)


def allocate(lifetimes: Sequence[Lifetime]) -> Tuple[Dict[int, int], str]:
    """The best plan found: offsets by value index, and the name of the order that produced it."""
    best: Optional[Tuple[int, Dict[int, int], str]] = None
    for name, key in _ORDERS:
        offsets = _place(sorted(lifetimes, key=key))
        size = arena_size(lifetimes, offsets)
        if best is None or size < best[0]:
            best = (size, offsets, name)
    assert best is not None  # _ORDERS is not empty
    return best[1], best[2]
