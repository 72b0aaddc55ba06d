"""The loader's own checks of what a program may make the runtime do (runtime_c/src/plan_verify.c,
method_cost.c, kernel_check.c mx_check_outs; the host runner's limits): each refusal names its error and place,
under the sanitizers; a good program still runs and reports its cost.

The programs are exported by us and rewritten with our .pte reader and writer, one field each.
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

import mcu_export.api as api
from mcu_export.pte.reader import read_program
from mcu_export.pte.writer import write_program
from test_runtime_malformed import SAN_ENV  # noqa: E402  (tests/, on sys.path via conftest)


class AddRelu(torch.nn.Module):
    """add(x, c1) -> t1; mul(t1, c2) -> t2; relu(t2) -> y: two constants of one shape, three planned tensors."""

    def __init__(self):
        super().__init__()
        self.register_buffer("c1", torch.arange(8.0).reshape(2, 4))
        self.register_buffer("c2", torch.full((2, 4), 0.5))

    def forward(self, x):
        return torch.relu((x + self.c1) * self.c2)


@pytest.fixture(scope="module")
def runner():
    from mcu_export.host_runtime import build_host_runner

    return build_host_runner(sanitize=True)


@pytest.fixture(scope="module")
def program():
    return read_program(api.export(AddRelu().eval(), (torch.randn(2, 4),)).pte)


def _run(runner, prog, tmp: Path, *args: str):
    pte = tmp / "m.pte"
    pte.write_bytes(write_program(prog))
    x = tmp / "x.bin"
    np.linspace(-4, 4, 8, dtype=np.float32).tofile(x)
    cmd = [str(runner), str(pte), "--input", f"6:2x4:{x}", "--output", str(tmp / "y.bin"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=SAN_ENV)


def _plan(prog):
    return prog.execution_plan[0]


def _index(plan, *, constant: bool, nth: int = 0) -> int:
    tensors = [i for i, v in enumerate(plan.values) if hasattr(v, "data_buffer_idx")]
    return [i for i in tensors if (plan.values[i].data_buffer_idx > 0) == constant][nth]


def _refused(proc, text: str, where: str):
    assert proc.returncode == 3, proc.stderr
    line = proc.stderr.strip()
    assert line.startswith(f"mx_run: error: {text}") and where in line, line
    assert "Sanitizer" not in proc.stderr and "runtime error" not in proc.stderr, proc.stderr


def test_the_good_program_runs_and_reports_its_cost(runner, program, tmp_path):
    proc = _run(runner, program, tmp_path)
    assert proc.returncode == 0, proc.stderr
    x = np.linspace(-4, 4, 8, dtype=np.float32).reshape(2, 4)
    want = np.maximum((x + np.arange(8.0).reshape(2, 4)) * 0.5, 0)
    np.testing.assert_allclose(np.fromfile(tmp_path / "y.bin", dtype=np.float32).reshape(2, 4), want)
    cost = _run(runner, program, tmp_path, "--cost")
    # add: x, c1, t1; mul: t1, c2, t2; relu: t2, y (the returns repeat the outs): 8 tensors of 8 elements
    assert cost.stdout.split() == ["cost", str(8 * 8)]


def test_a_constant_as_a_kernel_out_is_refused(runner, program, tmp_path):
    prog = copy.deepcopy(program)
    plan = _plan(prog)
    add = plan.chains[0].instructions[0]
    add.args[-2] = add.args[-1] = _index(plan, constant=True)  # out and return
    _refused(_run(runner, prog, tmp_path), "a kernel or delegate output", "instruction 0, argument 3")


def test_a_constant_as_a_method_input_or_output_is_refused(runner, program, tmp_path):
    for field in ("inputs", "outputs"):
        prog = copy.deepcopy(program)
        plan = _plan(prog)
        setattr(plan, field, [_index(plan, constant=True)])
        _refused(_run(runner, prog, tmp_path, "--load-only"), "a kernel or delegate output", "method forward")


def test_an_out_planned_over_its_own_input_from_above_is_refused(runner, program, tmp_path):
    """add may write over its input from below only (a forward sweep; tests/test_overlap.py runs the good cases)."""
    prog = copy.deepcopy(program)
    plan = _plan(prog)
    add = plan.chains[0].instructions[0]
    x, t1 = plan.values[add.args[0]], plan.values[add.args[-2]]
    t1.allocation_info.memory_offset = x.allocation_info.memory_offset + 16  # live together at instruction 0
    plan.non_const_buffer_sizes[1] = max(plan.non_const_buffer_sizes[1], t1.allocation_info.memory_offset + 32)
    _refused(_run(runner, prog, tmp_path), "two planned tensors", "instruction 0")


def test_an_out_that_is_also_an_input_is_refused(runner, program, tmp_path):
    prog = copy.deepcopy(program)
    plan = _plan(prog)
    add = plan.chains[0].instructions[0]
    add.args[-2] = add.args[-1] = add.args[0]  # add(x, c1, out=x)
    _refused(_run(runner, prog, tmp_path), "two planned tensors", "instruction 0, argument 0")


def test_a_constant_may_not_read_its_neighbours_bytes(runner, program, tmp_path):
    prog = copy.deepcopy(program)
    plan = _plan(prog)
    first = plan.values[_index(plan, constant=True)]
    assert len(prog.constant_segment.offsets) == 3  # the reserved entry, c1, c2: c1 is followed by c2
    first.sizes = [2, 8]  # 64 bytes: past c1's 32 (and its padding), inside the segment
    _refused(_run(runner, prog, tmp_path, "--load-only"), "a constant tensor's data is missing", "value")


def test_work_over_the_limit_is_refused_at_load(runner, program, tmp_path):
    _refused(_run(runner, program, tmp_path, "--max-ops", "63"), "the program's work exceeds", "instruction 2")
    assert _run(runner, program, tmp_path, "--max-ops", "64").returncode == 0


def test_arenas_over_the_limit_are_refused_before_allocating(runner, program, tmp_path):
    need = sum(_plan(program).non_const_buffer_sizes)
    _refused(_run(runner, program, tmp_path, "--max-arena-bytes", str(need - 1)), "a planned arena exceeds", "arena 1")
    assert _run(runner, program, tmp_path, "--max-arena-bytes", str(need)).returncode == 0


class Pool(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.avg_pool2d(torch.nn.functional.conv2d(x, torch.ones(8, 3, 3, 3)), 2)


def test_cost_bounds_convolution_and_pool_work(runner, tmp_path):
    """conv 3->8, 3x3 on 1x3x10x10 (out 1x8x8x8) then 2x2 avg pool: the MACs and window reads on top of one pass
    over each tensor, as mcu_export/ops/cost.py writes them down."""
    prog = read_program(api.export(Pool().eval(), (torch.randn(1, 3, 10, 10),)).pte)
    pte = tmp_path / "p.pte"
    pte.write_bytes(write_program(prog))
    proc = subprocess.run([str(runner), str(pte), "--cost"], capture_output=True, text=True, env=SAN_ENV)
    x, w, conv, pooled = 300, 216, 512, 128
    macs = max(x, conv) * (3 * 3 * 3)  # per output element (per input element when it has more)
    window = pooled * 4
    assert proc.stdout.split() == ["cost", str(x + w + conv + macs + conv + pooled + window)], proc.stderr


@pytest.fixture(scope="module")
def fast_runner():
    from mcu_export.host_runtime import build_host_runner

    return build_host_runner()


def test_the_c_plan_check_is_the_planner_s_rule(fast_runner, program, tmp_path):
    """Random placements of the four planned tensors (x, t1, t2, y; 16-byte slots of one arena): the loader refuses
    exactly those that mcu_export/planner/verify.py refuses, so C and Python hold one rule, overlap rules included
    (add, mul and relu may write over the input they replace from below)."""
    import random

    from mcu_export.planner.lifetimes import compute_lifetimes
    from mcu_export.planner.permits import overlap_permits
    from mcu_export.planner.verify import PlanVerificationError, verify_plan

    rng = random.Random(12)
    plan = _plan(program)
    planned = [i for i, v in enumerate(plan.values) if getattr(v, "allocation_info", None) is not None]
    verdicts, shared = [], 0
    for case in range(40):
        prog = copy.deepcopy(program)
        p = _plan(prog)
        offsets = {v: 16 * rng.randrange(9) for v in planned}  # 32-byte tensors in a 160-byte arena
        for v, off in offsets.items():
            p.values[v].allocation_info.memory_offset = off
        p.non_const_buffer_sizes = [0, 160]
        lifetimes = compute_lifetimes(p)
        try:
            verify_plan(lifetimes, offsets, 160, permits=overlap_permits(p, lifetimes))
            python_ok = True
            shared += any(
                a.overlaps(b) and abs(offsets[a.value] - offsets[b.value]) < 32
                for a in lifetimes
                for b in lifetimes
                if a.value < b.value
            )
        except PlanVerificationError:
            python_ok = False
        proc = _run(fast_runner, prog, tmp_path, "--load-only")
        assert proc.returncode in (0, 3), proc.stderr
        if proc.returncode == 3:
            assert "two planned tensors" in proc.stderr, proc.stderr
        assert (proc.returncode == 0) == python_ok, (case, offsets, proc.stderr)
        verdicts.append(python_ok)
    assert 5 <= sum(verdicts) <= 35  # both kinds of placement were tried
    assert shared >= 3  # and accepted overlaps among them
