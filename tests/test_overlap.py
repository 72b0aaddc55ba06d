"""Tensors that share bytes (mcu_export/ops/overlap.py, planner/permits.py, runtime_c/src/plan_verify.c): a kernel's
out over the input it replaces, where the kernel's rule allows.

- Per rule, the tightest placements (the out exactly the rule's distance below its input, and above it where the
  kernel may run backward) give the very outputs of the same program planned apart, on the host runtime under
  ASan/UBSan (the scalar paths; tests/test_overlap_qemu.py runs the DSP and MVE paths).
- One alignment step short of a distance is refused by the loader and by the Python verifier; a rule that allows
  nothing (a grouped convolution) refuses a forced overlap.
- The planner's plans pass the verifier whatever the lifetimes and permits (hypothesis), are never larger than
  plans apart, and the example models give the same outputs with overlaps on as off.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import overlap_cases as OC  # noqa: E402  (tests/support, on sys.path via conftest)
from mcu_export.ops.overlap import Reach, overlap_rule
from mcu_export.ops.table import BY_QUALIFIED
from mcu_export.planner.allocate import allocate, arena_size
from mcu_export.planner.lifetimes import Lifetime, compute_lifetimes
from mcu_export.planner.permits import overlap_permits
from mcu_export.planner.verify import PlanVerificationError, verify_plan
from mcu_export.pte.writer import write_program
from test_runtime_malformed import SAN_ENV  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")


@pytest.fixture(scope="module")
def runner():
    from mcu_export.host_runtime import build_host_runner

    return build_host_runner(sanitize=True)


def _run(runner, program, case, tmp: Path):
    from mcu_export.runners.host import run_pte

    path = tmp / "m.pte"
    path.write_bytes(write_program(program))
    return run_pte(path, OC.arrays(case), runner=runner)


def _load(runner, program, tmp: Path):
    path = tmp / "m.pte"
    path.write_bytes(write_program(program))
    return subprocess.run(
        [str(runner), str(path), "--load-only"], capture_output=True, text=True, timeout=120, env=SAN_ENV
    )


def _cases(cases):
    return [pytest.param(c, id=c.name, marks=() if c.name in OC.FAST else pytest.mark.slow) for c in cases]


@pytest.mark.parametrize("case", _cases(OC.CASES))
@pytest.mark.slow
def test_tightest_placements_give_the_outputs_of_the_plan_apart(runner, case, tmp_path):
    apart = OC.export(case, overlap=False)
    want = _run(runner, apart, case, tmp_path)
    plan = apart.execution_plan[0]
    reach = OC.reach(plan, case.op)
    if not case.overlaps:
        assert reach is None
        forced = OC.placed(apart, case.op, "below") if reach else None
        assert forced is None
        return
    assert reach is not None, f"{case.op} has no overlap permit"
    ran = []
    for where in ("below", "above"):
        program = OC.placed(apart, case.op, where)
        if program is None:
            continue
        p = program.execution_plan[0]
        lifetimes = compute_lifetimes(p)
        offsets = {lt.value: p.values[lt.value].allocation_info.memory_offset for lt in lifetimes}
        verify_plan(lifetimes, offsets, p.non_const_buffer_sizes[1], permits=overlap_permits(p, lifetimes))
        got = _run(runner, program, case, tmp_path)
        assert all(np.array_equal(a, b) for a, b in zip(got, want)), (where, got, want)
        ran.append(where)
    elementwise = overlap_rule(BY_QUALIFIED[case.op]).c_function == "mx_overlap_elementwise"
    assert ran == (["below"] if elementwise else ["below", "above"])  # window ops run either way


@pytest.mark.parametrize("case", _cases([c for c in OC.CASES if c.overlaps]))
def test_one_step_short_is_refused_by_the_loader_and_the_verifier(runner, case, tmp_path):
    apart = OC.export(case, overlap=False)
    for where in ("below", "above"):
        program = OC.placed(apart, case.op, where, short=16)
        if program is None:
            continue
        proc = _load(runner, program, tmp_path)
        assert proc.returncode == 3 and "two planned tensors" in proc.stderr, (where, proc.stderr)
        p = program.execution_plan[0]
        lifetimes = compute_lifetimes(p)
        offsets = {lt.value: p.values[lt.value].allocation_info.memory_offset for lt in lifetimes}
        with pytest.raises(PlanVerificationError, match="no kernel's overlap rule"):
            verify_plan(lifetimes, offsets, p.non_const_buffer_sizes[1], permits=overlap_permits(p, lifetimes))


@pytest.mark.slow
def test_a_grouped_convolution_refuses_a_forced_overlap(runner, tmp_path):
    case = OC.BY_NAME["conv_grouped"]
    program = OC.export(case, overlap=False)
    plan = program.execution_plan[0]
    _, x, y = OC.target(plan, case.op)
    plan.values[y].allocation_info.memory_offset = plan.values[x].allocation_info.memory_offset
    proc = _load(runner, program, tmp_path)
    assert proc.returncode == 3 and "two planned tensors" in proc.stderr, proc.stderr


# Random programs for the allocator: a chain of steps, each defining tensors of random sizes that live a random
# number of steps, with random permits between a step's out and an input that dies there.
@st.composite
def lifetimes_and_permits(draw):
    n = draw(st.integers(2, 14))
    lts, permits = [], {}
    for v in range(n):
        first = draw(st.integers(-1, 8))
        last = draw(st.integers(first, 9))
        lts.append(Lifetime(v, 16 * draw(st.integers(0, 12)), first, last))
    for out in lts:
        for x in lts:
            if x.last == out.first and x.value != out.value and draw(st.booleans()):
                below = draw(st.one_of(st.none(), st.integers(0, 10).map(lambda k: 16 * k)))
                above = draw(st.one_of(st.none(), st.integers(0, 10).map(lambda k: 16 * k)))
                permits[(out.value, x.value)] = Reach(below, above)
    return lts, permits


@settings(max_examples=300, deadline=None)
@given(lifetimes_and_permits())
@pytest.mark.slow
def test_every_plan_the_planner_makes_passes_the_verifier(case):
    lts, permits = case
    offsets, _ = allocate(lts, permits)
    verify_plan(lts, offsets, arena_size(lts, offsets), permits=permits)
    plain, _ = allocate(lts)
    verify_plan(lts, plain, arena_size(lts, plain))
    assert arena_size(lts, offsets) <= arena_size(lts, plain)  # permits never grow an arena


def test_the_verifier_refuses_an_overlap_no_permit_allows():
    x, y = Lifetime(0, 64, 0, 1), Lifetime(1, 64, 1, 2)
    permits = {(1, 0): Reach(32, None)}
    verify_plan([x, y], {0: 32, 1: 0}, 96, permits=permits)  # y exactly 32 below x
    for offsets in ({0: 16, 1: 0}, {0: 0, 1: 16}, {0: 0, 1: 0}):  # too close below, above, no distance
        with pytest.raises(PlanVerificationError):
            verify_plan([x, y], offsets, 96, permits=permits)


EXAMPLE_SPECS = ["kws_dscnn", "resnet8", "mnist_mlp", "autoencoder", "families/se_net.py:factory"]


@pytest.mark.slow
@pytest.mark.parametrize("quantize", ["int8", None], ids=["int8", "fp32"])
@pytest.mark.parametrize("name", EXAMPLE_SPECS)
def test_examples_give_the_same_outputs_with_overlaps_on_and_off(name, quantize, tmp_path):
    """int8 to the bit, fp32 to rounding (rtol 1e-4), on the host runtime; the arena is at most 3/4 of the one
    apart (ExecuTorch's bytes for these) where the model has convolutions to overlap (fp32: in channels-last)."""
    from mcu_export.examples import EXAMPLES_DIR, spec
    from mcu_export.model_spec import load_model
    from mcu_export.runners.host import run_pte

    where = str(EXAMPLES_DIR / name) if ":" in name else spec(name)
    model, inputs = load_model(where)
    runs, arenas = [], []
    for overlap in (True, False):
        art = export_model(model, inputs, quantize, overlap)
        path = tmp_path / f"{overlap}.pte"
        path.write_bytes(art.pte)
        runs.append(run_pte(path, [x.numpy() for x in inputs]))
        arenas.append(art.report["memory"]["arena_bytes"])
    for a, b in zip(*runs):
        if quantize:
            assert np.array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    assert arenas[0] <= arenas[1]
    if name in ("kws_dscnn", "resnet8") or "se_net" in name:
        assert arenas[0] <= 0.75 * arenas[1], arenas


def export_model(model, inputs, quantize, overlap):
    from mcu_export.api import export

    return export(model, inputs, quantize=quantize, calibrate=[inputs] if quantize else None, overlap=overlap)


@pytest.mark.parametrize("case", [c for c in OC.CASES if c.nhwc], ids=lambda c: c.name)
@pytest.mark.slow
def test_nhwc_cases_are_channels_last(case):
    """The layout pass gave the convolution's input and out the channels-last dim order (else the cases would test
    the NCHW path again)."""
    plan = OC.export(case).execution_plan[0]
    _, x, y = OC.target(plan, case.op)
    assert list(plan.values[x].dim_order) == list(plan.values[y].dim_order) == [0, 2, 3, 1]
