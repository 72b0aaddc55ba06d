"""The lower bound on any arena for a set of lifetimes: the most bytes live at one time."""

from __future__ import annotations

from typing import Dict, Iterable


def lower_bound(lifetimes: Iterable) -> int:
    """max over instructions of the summed (aligned) sizes of the tensors live there."""
    events: Dict[int, int] = {}
    for lt in lifetimes:
        events[lt.first] = events.get(lt.first, 0) + lt.size
        events[lt.last + 1] = events.get(lt.last + 1, 0) - lt.size
    live = best = 0
    for step in sorted(events):
        live += events[step]
        best = max(best, live)
    return best
