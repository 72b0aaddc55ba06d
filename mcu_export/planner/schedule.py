"""The order of execution: a topological order of the instructions that lowers the peak of live bytes.

torch.export emits one order; where a graph branches (residual blocks, concatenations, squeeze-and-excite) others
exist, and the peak differs: a residual block's shortcut computed first keeps its (often smaller) output alive
through the main branch instead of the block's input. The order's cost is the live-set peak (planner/bound.py's
measure): at each instruction, the bytes of every tensor defined and not yet read for the last time, plus what
the instruction itself defines.

- exact: a search over the sets of instructions already run (the graph's downsets) with memoized best peaks, when
  there are at most MAX_STATES of them;
- greedy otherwise: at each step the ready instruction that adds the fewest bytes net of what it frees, kept only
  when its peak is lower than the emitted order's.
Either way the result is never worse than the emitted order, which is kept on ties.

A tensor's producer is the first instruction that names it (the lowering writes each planned tensor once, before
any read); an instruction depends on the producers of every tensor it names. A program whose planned tensors are
written again later is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

from mcu_export.planner.lifetimes import aligned, instruction_args, is_planned, tensors_named
from mcu_export.pte import program as pte

MAX_STATES = 20000


@dataclass(frozen=True)
class Schedule:
    order: List[int]  # new position -> old instruction index
    method: str  # "exact", "greedy" or "emitted"
    peak_emitted: int
    peak: int


@dataclass
class _Graph:
    deps: List[int]  # bitmask of the instructions each depends on
    defines: List[int]  # bytes each instruction defines (its outs, its scratch)
    frees: List[List[Tuple[int, int]]]  # per instruction: (a tensor's bytes, bitmask of every instruction naming it)


def _build(plan: pte.ExecutionPlan) -> Tuple[_Graph, int]:
    """The dependency graph, and the bytes live before the first instruction (the method's inputs)."""
    instructions = [i for chain in plan.chains for i in chain.instructions]
    n = len(instructions)
    inputs, outputs = set(plan.inputs), set(plan.outputs)
    producer: Dict[int, int] = {}
    naming: Dict[int, int] = {}
    deps, defines = [0] * n, [0] * n
    for step, ins in enumerate(instructions):
        for t in {t for a in instruction_args(ins) for t in tensors_named(plan.values, a)}:
            naming[t] = naming.get(t, 0) | (1 << step)
            if t in inputs:
                continue
            if t not in producer:
                producer[t] = step
                defines[step] += _bytes(plan, t)
            else:
                deps[step] |= 1 << producer[t]
    frees: List[List[Tuple[int, int]]] = [[] for _ in range(n)]
    for t, mask in naming.items():
        if t not in outputs:
            for step in range(n):
                if mask >> step & 1:
                    frees[step].append((_bytes(plan, t), mask))
    return _Graph(deps, defines, frees), sum(_bytes(plan, t) for t in inputs)


def _bytes(plan: pte.ExecutionPlan, t: int) -> int:
    value = plan.values[t]
    return aligned(value.nbytes) if is_planned(value) and isinstance(value, pte.Tensor) else 0


def _live_after(g: _Graph, done: int, live: int, step: int) -> int:
    """Live bytes once `step` has run after the set `done`: its definitions added, tensors it read last freed."""
    after = done | (1 << step)
    live += g.defines[step]
    for s, mask in g.frees[step]:
        if mask & ~after == 0:
            live -= s
    return live


def _peak_of(g: _Graph, order: Sequence[int], start: int) -> int:
    done, live, peak = 0, start, start
    for step in order:
        peak = max(peak, live + g.defines[step])
        live = _live_after(g, done, live, step)
        done |= 1 << step
    return peak


def _exact(g: _Graph, start: int) -> Optional[List[int]]:
    n = len(g.deps)
    full = (1 << n) - 1
    memo: Dict[int, Tuple[int, int]] = {full: (0, -1)}  # done -> (best peak of the rest, first step of it)
    lives: Dict[int, int] = {0: start}
    stack = [0]
    seen: Set[int] = {0}  # the downsets reached; each one's live bytes depend only on the set
    while stack:
        done = stack.pop()
        for step in range(n):
            if not (done >> step & 1) and g.deps[step] & ~done == 0:
                nxt = done | (1 << step)
                if nxt not in seen:
                    if len(seen) >= MAX_STATES:
                        return None
                    seen.add(nxt)
                    lives[nxt] = _live_after(g, done, lives[done], step)
                    stack.append(nxt)
    for done in sorted(seen, key=lambda s: -bin(s).count("1")):
        if done == full:
            continue
        best: Optional[Tuple[int, int]] = None
        for step in range(n):  # ascending: the emitted order wins ties
            if not (done >> step & 1) and g.deps[step] & ~done == 0:
                rest = memo[done | (1 << step)][0]
                cost = max(lives[done] + g.defines[step], rest)
                if best is None or cost < best[0]:
                    best = (cost, step)
        assert best is not None  # a DAG always has a ready instruction
        memo[done] = best
    order, done = [], 0
    while done != full:
        step = memo[done][1]
        order.append(step)
        done |= 1 << step
    return order


def _greedy(g: _Graph, start: int) -> List[int]:
    n = len(g.deps)
    done, live = 0, start
    order: List[int] = []
    while len(order) < n:
        ready = [s for s in range(n) if not (done >> s & 1) and g.deps[s] & ~done == 0]
        step = min(ready, key=lambda s: (_live_after(g, done, live, s) - live, s))
        live = _live_after(g, done, live, step)
        done |= 1 << step
        order.append(step)
    return order


def best_order(plan: pte.ExecutionPlan) -> Schedule:
    n = sum(len(c.instructions) for c in plan.chains)
    emitted = list(range(n))
    if len(plan.chains) != 1 or not _written_once(plan):
        return Schedule(emitted, "emitted", 0, 0)
    g, start = _build(plan)
    base = _peak_of(g, emitted, start)
    found = _exact(g, start)
    method = "exact"
    if found is None:
        found, method = _greedy(g, start), "greedy"
    peak = _peak_of(g, found, start)
    if peak >= base:
        return Schedule(emitted, method if method == "exact" else "emitted", base, base)
    return Schedule(found, method, base, peak)


def _written_once(plan: pte.ExecutionPlan) -> bool:
    """Every kernel out is a tensor no earlier instruction named (the lowering's SSA form)."""
    from mcu_export.ops.c_args import first_out
    from mcu_export.ops.table import BY_QUALIFIED

    seen: Set[int] = set(plan.inputs)
    for ins in plan.chains[0].instructions:
        named = {t for a in instruction_args(ins) for t in tensors_named(plan.values, a)}
        if isinstance(ins, pte.KernelCall):
            op = BY_QUALIFIED.get(plan.operators[ins.op_index].qualified)
            if op is None:
                return False
            outs = {t for a in ins.args[first_out(op) :] for t in tensors_named(plan.values, a)}
            if outs & seen:
                return False
        elif not isinstance(ins, pte.DelegateCall):
            return False
        seen |= named
    return True


def reorder(program: pte.Program, info, order: Sequence[int], method: str = "forward") -> None:
    """Puts the method's instructions in `order`, keeping stack traces and the lowering's infos in step."""
    plan = program.method(method)
    chain = plan.chains[0]
    chain.instructions = [chain.instructions[i] for i in order]
    if chain.stacktrace is not None:
        chain.stacktrace = [chain.stacktrace[i] for i in order]
    if info is not None and len(info.instructions) == len(order):
        infos = info.instructions
        info.instructions = [replace(infos[old], index=new) for new, old in enumerate(order)]
