"""An order of the program's instructions that keeps NPU calls together.

The lowering emits instructions in the graph's order, which interleaves independent branches; a CPU call
on one branch would then cut the NPU calls of another into two subgraphs. Any topological order computes
the same values, so the Ethos-U backend first reorders: among the calls whose inputs are ready, it keeps
taking calls of the kind (NPU or CPU) it took last, in their original order, and switches only when none is
left. Fewer switches, fewer and larger NPU subgraphs (each switch costs a delegate call and its I/O copies).
"""

from __future__ import annotations

import heapq
from typing import Dict, List, Sequence, Set

from mcu_export.ethosu.calls import Call
from mcu_export.planner.lifetimes import instruction_args, tensors_named
from mcu_export.pte import program as pte


def dependencies(
    instructions: Sequence[pte.Instruction], calls: Sequence[object], values: Sequence[pte.EValue]
) -> List[Set[int]]:
    """For each instruction, the earlier instructions it must follow: a tensor's writer before its readers,
    and its readers before a later writer of the same tensor."""
    writer: Dict[int, int] = {}
    readers: Dict[int, List[int]] = {}
    deps: List[Set[int]] = []
    for step, instr in enumerate(instructions):
        call = calls[step]
        outs = set(call.outs) if isinstance(call, Call) else set()
        mine: Set[int] = set()
        for arg in instruction_args(instr):
            for t in tensors_named(values, arg):
                if t in writer:
                    mine.add(writer[t])
                if arg in outs or not isinstance(call, Call):  # a delegate or move may write any argument
                    mine.update(readers.get(t, []))
        for arg in instruction_args(instr):
            for t in tensors_named(values, arg):
                if arg in outs or not isinstance(call, Call):
                    writer[t] = step
                    readers[t] = []
                else:
                    readers.setdefault(t, []).append(step)
        mine.discard(step)
        deps.append(mine)
    return deps


def grouped_order(deps: Sequence[Set[int]], on_npu: Sequence[bool]) -> List[int]:
    """A topological order of the instructions that switches between NPU and CPU as rarely as it can
    greedily; ties keep the original order, so a program with nothing to gain keeps its order."""
    waiting = [len(d) for d in deps]
    users: List[List[int]] = [[] for _ in deps]
    for step, d in enumerate(deps):
        for before in d:
            users[before].append(step)
    ready = {True: [], False: []}  # type: Dict[bool, List[int]]
    for step, count in enumerate(waiting):
        if count == 0:
            heapq.heappush(ready[on_npu[step]], step)
    order: List[int] = []
    kind = on_npu[0] if on_npu else False
    while ready[True] or ready[False]:
        if not ready[kind]:
            kind = not kind
        step = heapq.heappop(ready[kind])
        order.append(step)
        for user in users[step]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready[on_npu[user]], user)
    if len(order) != len(deps):
        raise AssertionError("the instructions' dependencies have a cycle")
    return order
