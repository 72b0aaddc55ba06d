"""The libFuzzer target (runtime_c/fuzz/mx_fuzz.c) under ASan and UBSan: a fixed number of executions over a
small seed corpus ends with no crash, hang or leak; every found input kept in tests/fuzz_regressions/ and
every hand-made hostile program (tests/support/fuzz_handmade.py) loads or is refused with an error code.
`make fuzz` is the long run (tests/support/fuzz_run.py)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

import fuzz_corpus
import fuzz_handmade
import fuzz_seeds

# Every test needs mx_fuzz, a clang build of the whole runtime with coverage and sanitizers (~40 s on 2 busy
# cores): too long for the fast tier's two minutes, so the module runs in `make test` only.
pytestmark = pytest.mark.slow

REGRESSIONS = Path(__file__).resolve().parent / "fuzz_regressions"
ERRORS_DEF = Path(__file__).resolve().parents[1] / "runtime_c" / "include" / "mx" / "errors.def"
# Executions of the fixed run: 100000 took 28 s on one core here (3,500/s over the quick seeds), so 40000 is
# ~12 s besides the ~20 s of exporting those seeds (the test took 61 s with 60000 beside a fuzzing core).
FIXED_RUNS = 40000
ENV = dict(os.environ, MX_FUZZ_REPORT="1", UBSAN_OPTIONS="print_stacktrace=1")

# Found inputs whose bug is not fixed yet: replaying them still crashes (strict xfail: a fix turns the test
# into a failure, and the entry goes). Each names where it hits and who owns that code. None open: the two
# accumulator overflows are refused since the cortex_m kernels' load-time ranges (MX_ERR_ARITH_RANGE).
OPEN: dict = {}
# The refusal each found input must now meet: (stage, errors.def code).
REFUSED_WITH = {
    "method_input_is_a_constant": ("load", 0x0207),  # MX_ERR_CONSTANT_WRITE
    "quantized_linear_accumulator_overflow": ("load", 0x030B),  # MX_ERR_ARITH_RANGE
    "quantized_conv2d_1x1_accumulator_overflow": ("load", 0x030B),
}
# Hand-made programs whose refusal the loader does not give yet, as OPEN (all given since the loader's validation).
HOSTILE_OPEN: dict = {}
LINE = re.compile(r"mx_fuzz: (?:program (0x[0-9a-f]{4})|method \d+ load (0x[0-9a-f]{4}) execute (0x[0-9a-f]{4}|-))")


@pytest.fixture(scope="module")
def fuzzer() -> Path:
    from mcu_export.host_runtime import build_fuzzer

    return build_fuzzer()


def known_codes() -> set:
    return {int(c, 16) for c in re.findall(r"^X\(\w+,\s*(0x[0-9A-Fa-f]+)", ERRORS_DEF.read_text(), re.M)}


def replay(fuzzer: Path, unit: Path) -> list:
    """[(stage, code)] of one input's run; fails the test on a sanitizer report or an unknown code."""
    proc = subprocess.run([str(fuzzer), str(unit)], capture_output=True, text=True, env=ENV, timeout=120)
    assert proc.returncode == 0, f"{unit.name}:\n{proc.stderr[-3000:]}"
    # Only the first run's lines: libFuzzer may replay the input (see mx_fuzz.c), and the replay repeats them.
    first_run = proc.stderr.split("mx_fuzz: run 2\n")[0]
    assert "mx_fuzz: run 1\n" in first_run, proc.stderr[-2000:]
    results = []
    for m in LINE.finditer(first_run):
        program, load, execute = m.groups()
        if program:
            results.append(("program", int(program, 16)))
            continue
        results.append(("load", int(load, 16)))
        if execute != "-":
            results.append(("execute", int(execute, 16)))
    assert results, proc.stderr[-2000:]
    assert {code for _, code in results} <= known_codes()
    return results


def regression_params():
    files = sorted(p for p in REGRESSIONS.iterdir() if p.is_file() and p.suffix != ".md")
    return [
        pytest.param(p, marks=pytest.mark.xfail(reason=OPEN[p.stem], strict=True)) if p.stem in OPEN else p
        for p in files
    ]


@pytest.mark.parametrize("unit", regression_params(), ids=lambda p: p.stem)
def test_found_inputs_load_or_are_refused(fuzzer, unit):
    results = replay(fuzzer, unit)
    if unit.stem in REFUSED_WITH:
        assert [(stage, code) for stage, code in results if code != 0] == [REFUSED_WITH[unit.stem]]


def hostile_params():
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason=HOSTILE_OPEN[n], strict=True)) if n in HOSTILE_OPEN else n
        for n in fuzz_handmade.HOSTILE
    ]


@pytest.mark.parametrize("name", hostile_params())
def test_hostile_programs_are_refused_with_their_error(fuzzer, tmp_path, name):
    case = fuzz_handmade.HOSTILE[name]
    unit = tmp_path / name
    unit.write_bytes(fuzz_seeds.frame(case.make(), fuzz_seeds.MODE_ZERO_INPUTS))
    results = replay(fuzzer, unit)
    refusals = [(stage, code) for stage, code in results if code != 0]
    assert refusals == [(case.stage, case.code)]


def test_an_unknown_error_code_would_abort(fuzzer, tmp_path):
    """The frame alone (no program): refused by mx_program_init with a code of errors.def, not a crash."""
    unit = tmp_path / "empty"
    unit.write_bytes(fuzz_seeds.frame(b"", fuzz_seeds.MODE_LOAD))
    assert replay(fuzzer, unit) == [("program", 0x0101)]


def test_fixed_run_finds_nothing(fuzzer, tmp_path):
    programs = fuzz_corpus.main(tmp_path / "corpus", only=fuzz_corpus.QUICK)
    assert sorted(p.name for p in programs) == sorted(f"{s}.pte" for s in fuzz_corpus.QUICK)
    seeds = fuzz_seeds.write_seeds(programs, tmp_path / "seeds")
    findings, work = tmp_path / "findings", tmp_path / "work"
    findings.mkdir()
    work.mkdir()
    max_len = max(p.stat().st_size for p in seeds) + 4096
    cmd = [str(fuzzer), f"-runs={FIXED_RUNS}", "-seed=1", f"-max_len={max_len}", "-timeout=5"]
    cmd += ["-rss_limit_mb=2048", f"-artifact_prefix={findings}/", str(work), str(seeds[0].parent)]
    env = dict(os.environ, UBSAN_OPTIONS="print_stacktrace=1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"Done {FIXED_RUNS} runs" in proc.stderr
    assert list(findings.iterdir()) == []
