"""Offsets in one arena for tensors with known lifetimes.

Greedy placement: take tensors in some order and put each at the lowest-waste start that no conflicting
(lifetime-overlapping) tensor already forbids: the start with the least room above it before the next forbidden
one (best fit), else above everything. A conflicting tensor forbids the starts that would make the two share a
byte, except where an overlap permit (planner/permits.py) lets an out start far enough below an input it
replaces: those starts are candidates too. No single order is best for every graph, so a few orders are tried
and the smallest arena wins (ties: the first order listed, for determinism). With permits each order runs again
with only the in-place ones (an out exactly over its input) and with none: greedy, an overlap some bytes off its
input taken early can cost more further on than it saved, and a plan with fewer permits is valid with all of them.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mcu_export.ops.overlap import Reach
from mcu_export.planner.lifetimes import ALIGNMENT, Lifetime
from mcu_export.planner.permits import Permits

_ORDERS: Sequence[Tuple[str, Callable[[Lifetime], tuple]]] = (
    ("size", lambda lt: (-lt.size, lt.first, lt.value)),
    ("area", lambda lt: (-lt.size * (lt.last - lt.first + 1), lt.first, lt.value)),
    ("duration", lambda lt: (-(lt.last - lt.first), -lt.size, lt.value)),
    ("definition", lambda lt: (lt.first, -lt.size, lt.value)),
    # last defined first: an out is placed before the input it may overlap, which then goes just above it
    ("reverse", lambda lt: (-lt.first, -lt.size, lt.value)),
)


def _zones(lt: Lifetime, placed: List[Lifetime], offsets: Dict[int, int], permits: Permits):
    """The open intervals of starts that conflicting placed tensors forbid lt, and the starts permits open."""
    zones: List[Tuple[int, int]] = []
    opened: List[int] = []
    for p in placed:
        if not p.size or not p.overlaps(lt):
            continue
        at = offsets[p.value]
        left, right = lt.size, p.size
        # lt the out and p its input: lt may start reach.below under p or reach.above over it
        reach = permits.get((lt.value, p.value))
        if reach is not None:
            left, right = _narrow(left, reach.below, at, -1, opened), _narrow(right, reach.above, at, 1, opened)
        # p the out and lt its input: the same distances, seen from lt
        reach = permits.get((p.value, lt.value))
        if reach is not None:
            right, left = _narrow(right, reach.below, at, 1, opened), _narrow(left, reach.above, at, -1, opened)
        zones.append((at - left, at + right))
    return zones, opened


def _narrow(extent: int, distance: Optional[int], at: int, sign: int, opened: List[int]) -> int:
    """A zone's reach on one side of `at`, cut to `distance` where a permit allows; the start it opens."""
    if distance is None or distance >= extent:
        return extent
    opened.append(at + sign * distance)
    return distance


def _best_start(zones: List[Tuple[int, int]], opened: List[int]) -> int:
    candidates = {0, *(hi for _, hi in zones), *(s - s % ALIGNMENT for s in opened if s >= 0)}
    # Each candidate is checked against the zones' union and the nearest zone start above it by bisection: a
    # GRU's 9,390 placements over every earlier zone took 13 of its 20 s of planning when each looked at all.
    los = sorted(lo for lo, _ in zones)
    union = _union(zones)
    union_los = [lo for lo, _ in union]
    best: Optional[Tuple[float, int]] = None
    for s in sorted(candidates):
        i = bisect_left(union_los, s) - 1  # the last interval starting below s
        if i >= 0 and s < union[i][1]:
            continue
        j = bisect_left(los, s)
        room = los[j] - s if j < len(los) else float("inf")
        if best is None or room < best[0]:
            best = (room, s)
    assert best is not None  # the start above every zone is always free
    return best[1]


def _union(zones: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The open intervals' union as disjoint open intervals, by start. Two that only touch stay apart: the
    point between them is a free start."""
    out: List[Tuple[int, int]] = []
    for lo, hi in sorted(zones):
        if lo >= hi:
            continue  # empty: forbids nothing
        if out and lo < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _place(order: List[Lifetime], permits: Permits) -> Dict[int, int]:
    offsets: Dict[int, int] = {}
    placed: List[Lifetime] = []
    for lt in order:
        offsets[lt.value] = _best_start(*_zones(lt, placed, offsets, permits)) if lt.size else 0
        placed.append(lt)
    return offsets


def arena_size(lifetimes: Sequence[Lifetime], offsets: Dict[int, int]) -> int:
    return max((offsets[lt.value] + lt.size for lt in lifetimes), default=0)


def allocate(lifetimes: Sequence[Lifetime], permits: Optional[Permits] = None) -> Tuple[Dict[int, int], str]:
    """The best plan found: offsets by value index, and the name of the order that produced it."""
    best: Optional[Tuple[int, Dict[int, int], str]] = None
    tries = [(name, key, permits or {}) for name, key in _ORDERS]
    if permits:
        in_place = {k: Reach(0, None) for k, r in permits.items() if r.below == 0}
        tries += [(f"{name}, in place", key, in_place) for name, key in _ORDERS if in_place != permits]
        tries += [(f"{name}, apart", key, {}) for name, key in _ORDERS]
    for name, key, allowed in tries:
        offsets = _place(sorted(lifetimes, key=key), allowed)
        size = arena_size(lifetimes, offsets)
        if best is None or size < best[0]:
            best = (size, offsets, name)
    assert best is not None  # _ORDERS is not empty
    return best[1], best[2]
