"""Semantic mutants (tests/support/pte_mutants.py) executed by the sanitizer build of mx_run.

Each mutant is a well-formed program that means something the runtime must never do: write a constant,
let two live tensors share bytes, compute with quantization constants its integer arithmetic cannot hold,
work without bound. mx_run loads it and, should the load pass, executes it on an input: it must end in exit 3
with the one `mx_run: error:` line of the mutant's error and no sanitizer report, and none may run to
success. All mutants run once, in a thread pool (a module fixture); each test then reads its own result.
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import pte_mutants as MU  # noqa: E402  (tests/support, on sys.path via conftest)
from mcu_export import dtypes

# slow: the module fixture runs every mutant, whichever tests are picked (test_plan_validation.py is the fast tier's)
pytestmark = [pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"), pytest.mark.slow]

SAN_ENV = dict(
    os.environ,
    ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=99:allocator_may_return_null=1",
    UBSAN_OPTIONS="halt_on_error=1:exitcode=98:print_stacktrace=1",
)
# A mutant the loader fails to refuse may run for minutes (that is what MX_ERR_TOO_COSTLY prevents): cut it.
TIMEOUT_S = 15
SANITIZER_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer", "UndefinedBehaviorSanitizer")


@pytest.fixture(scope="module")
def san_runner():
    from mcu_export.host_runtime import build_host_runner

    return build_host_runner(sanitize=True)


@pytest.fixture(scope="module")
def error_texts(san_runner):
    """errors.def name -> its text, as mx_run prints it."""
    out = subprocess.run([str(san_runner), "--list-errors"], stdout=subprocess.PIPE, text=True, check=True).stdout
    return {name: text for _, name, text in (line.split(" ", 2) for line in out.splitlines())}


def input_args(folder: Path, source: MU.Source) -> list:
    args = []
    for i, x in enumerate(source.inputs):
        path = folder / f"in{i}.bin"
        path.write_bytes(np.ascontiguousarray(x).tobytes())
        shape = "x".join(str(s) for s in x.shape) or "scalar"
        args += ["--input", f"{int(dtypes.from_numpy(x.dtype))}:{shape}:{path}"]
    return args


def run_mutant(runner: Path, folder: Path, mutant: MU.Mutant):
    source = MU.sources()[mutant.source]
    path = folder / f"{mutant.name}.pte"
    path.write_bytes(mutant.build(source.pte))
    sub = folder / mutant.name
    sub.mkdir()
    cmd = [str(runner), str(path), *input_args(sub, source)]
    try:
        return subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=SAN_ENV, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return None


@pytest.fixture(scope="module")
def results(san_runner, tmp_path_factory):
    MU.sources()  # exported once, before the threads
    folder = tmp_path_factory.mktemp("mutants")
    with ThreadPoolExecutor(max_workers=4) as pool:
        procs = list(pool.map(lambda m: run_mutant(san_runner, folder, m), MU.MUTANTS))
    return {m.name: p for m, p in zip(MU.MUTANTS, procs)}


def test_the_sources_run(san_runner, tmp_path):
    """Unmutated, every source program executes: a mutant's failure is its mutation's."""
    for name, source in MU.sources().items():
        (tmp_path / f"{name}.pte").write_bytes(source.pte)
        folder = tmp_path / name
        folder.mkdir()
        proc = subprocess.run(
            [str(san_runner), str(tmp_path / f"{name}.pte"), *input_args(folder, source)],
            stderr=subprocess.PIPE,
            text=True,
            env=SAN_ENV,
            timeout=60,
        )
        assert proc.returncode == 0, f"{name}: {proc.stderr}"


def test_the_catalog():
    """40+ mutants over the operators the issue names, fp32 and int8, with distinct names."""
    names = [m.name for m in MU.MUTANTS]
    assert len(names) == len(set(names)) and len(names) >= 40
    assert {m.source for m in MU.MUTANTS} == set(MU.sources())


def plan_fault(pte: bytes) -> str:
    """What the planner's own verifier (the rule the loader enforces) says of a program's plan: "overlap",
    "outside" (a tensor past its arena) or "" (sound)."""
    from mcu_export.planner.lifetimes import compute_lifetimes
    from mcu_export.planner.permits import overlap_permits
    from mcu_export.planner.verify import PlanVerificationError, verify_plan
    from mcu_export.pte.reader import read_program

    plan = read_program(pte).execution_plan[0]
    lifetimes = compute_lifetimes(plan)
    offsets = {lt.value: plan.values[lt.value].allocation_info.memory_offset for lt in lifetimes}
    try:
        verify_plan(lifetimes, offsets, plan.non_const_buffer_sizes[1], permits=overlap_permits(plan, lifetimes))
    except PlanVerificationError as e:
        return "overlap" if "overlap" in str(e) else "outside"
    return ""


def test_only_the_overlap_mutants_alias():
    """Each mutant changes one thing: the planner's verifier finds two live tensors sharing bytes in the
    PLAN_OVERLAP mutants and in no other (a tensor past its arena only where a size is the fault)."""
    faults = {m.name: plan_fault(m.build(MU.sources()[m.source].pte)) for m in MU.MUTANTS}
    for m in MU.MUTANTS:
        want = {
            "MX_ERR_PLAN_OVERLAP": {"overlap"},
            "MX_ERR_ARENA_TOO_SMALL": {"outside"},
            "MX_ERR_TOO_LARGE": {"outside"},
        }
        assert faults[m.name] in want.get(m.error, {""}), (m.name, faults[m.name])


@pytest.mark.parametrize("mutant", MU.MUTANTS, ids=lambda m: m.name)
def test_mutant_is_refused(mutant, results, error_texts):
    proc = results[mutant.name]
    assert proc is not None, f"{mutant.name}: still running after {TIMEOUT_S} s (not refused)"
    marks = [m for m in SANITIZER_MARKS if m in proc.stderr]
    assert not marks and proc.returncode not in (98, 99), f"{mutant.name}: sanitizer: {proc.stderr[-3000:]}"
    assert proc.returncode != 0, f"{mutant.name}: ran to success"
    lines = proc.stderr.splitlines()
    want = f"mx_run: error: {error_texts[mutant.error]} ("
    assert proc.returncode == 3 and len(lines) == 1 and lines[0].startswith(want), (
        f"{mutant.name}: expected {mutant.error}, got exit {proc.returncode}: {proc.stderr.strip()[:400]}"
    )
