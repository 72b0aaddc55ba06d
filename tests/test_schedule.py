"""The order of execution (mcu_export/planner/schedule.py): a topological order with the lowest live-set peak.

- On random graphs, the exact search finds the best of every topological order (brute force over all of them),
  every order it gives respects the dependencies, and neither search is ever worse than the emitted order.
- A model whose two branches torch.export interleaves gets an order with a lower peak, fp32 and int8, and the
  host runtime's outputs of the reordered program equal those of the emitted order (int8 to the bit).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import mcu_export.planner.schedule as S
from mcu_export.api import export
from mcu_export.planner import plan_memory
from mcu_export.pte.writer import write_program

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")


@st.composite
def graphs(draw):
    """n instructions, each defining one tensor that later instructions may read."""
    n = draw(st.integers(1, 7))
    deps, defines, readers = [0] * n, [], []
    for i in range(n):
        defines.append(16 * draw(st.integers(0, 8)))
        mask = 0
        for j in range(i + 1, n):
            if draw(st.booleans()):
                mask |= 1 << j
                deps[j] |= 1 << i
        readers.append(mask | (1 << i))
    frees = [[(defines[t], readers[t]) for t in range(n) if readers[t] >> i & 1] for i in range(n)]
    return S._Graph(deps, defines, frees), 16 * draw(st.integers(0, 4))


def _topological(g, order) -> bool:
    done = 0
    for step in order:
        if g.deps[step] & ~done:
            return False
        done |= 1 << step
    return True


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_the_exact_order_is_the_best_topological_order(case):
    g, start = case
    n = len(g.deps)
    best = min(S._peak_of(g, p, start) for p in itertools.permutations(range(n)) if _topological(g, p))
    order = S._exact(g, start)
    assert order is not None and _topological(g, order) and sorted(order) == list(range(n))
    assert S._peak_of(g, order, start) == best
    greedy = S._greedy(g, start)
    assert _topological(g, greedy) and S._peak_of(g, greedy, start) >= best


class TwoBranches(nn.Module):
    """Two branches written interleaved: each expands 8 channels to 32 and reduces to 4; torch.export keeps the
    order, so both expansions are live together unless the schedule finishes one branch first."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.e1, self.e2 = nn.Conv2d(8, 32, 1), nn.Conv2d(8, 32, 3, padding=1)
        self.r1, self.r2 = nn.Conv2d(32, 4, 1), nn.Conv2d(32, 4, 1)

    def forward(self, x):
        a = torch.relu(self.e1(x))
        b = torch.relu(self.e2(x))
        return torch.cat([self.r1(a), self.r2(b)], dim=1)


@pytest.mark.parametrize("quantize", ["int8", None], ids=["int8", "fp32"])
@pytest.mark.slow
def test_interleaved_branches_are_reordered_with_the_same_outputs(quantize, tmp_path):
    from mcu_export.runners.host import run_pte

    model, x = TwoBranches().eval(), torch.randn(1, 8, 12, 12)
    art = export(model, (x,), quantize=quantize, calibrate=[(x,)] if quantize else None)
    sched = art.report["memory"]["schedule"]
    assert sched["method"] == "exact" and sched["live_set_bytes"] < sched["live_set_emitted_bytes"]
    order = art.memory_plan.schedule.order
    assert order != sorted(order)
    # the emitted order back: the inverse permutation, planned again
    program = art.program
    S.reorder(program, None, [order.index(i) for i in range(len(order))])
    emitted = plan_memory(program, reschedule=False)
    assert emitted.lower_bound_bytes == sched["live_set_emitted_bytes"] > art.memory_plan.lower_bound_bytes
    (tmp_path / "emitted.pte").write_bytes(write_program(program))
    (tmp_path / "reordered.pte").write_bytes(art.pte)
    got = run_pte(tmp_path / "reordered.pte", [x.numpy()])
    want = run_pte(tmp_path / "emitted.pte", [x.numpy()])
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    if quantize is None:
        np.testing.assert_allclose(got[0], model(x).detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_too_many_orders_fall_back_to_greedy_never_worse(monkeypatch):
    monkeypatch.setattr(S, "MAX_STATES", 2)
    model, x = TwoBranches().eval(), torch.randn(1, 8, 12, 12)
    sched = export(model, (x,)).report["memory"]["schedule"]
    assert sched["method"] in ("greedy", "emitted")
    assert sched["live_set_bytes"] <= sched["live_set_emitted_bytes"]
