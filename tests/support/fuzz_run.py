"""`make fuzz`: build mx_fuzz, make the seed corpus if it is missing, and run libFuzzer for a long run.

    python tests/support/fuzz_run.py [--runs N] [--jobs J] [--seeds GLOB] [--out DIR]

Everything goes under DIR (default out/fuzz, outside git): corpus/ the exported .pte seeds (kept: exporting
takes minutes), seeds/<selection>/ the chosen ones (`--seeds '*.fp32.pte'`, FUZZ_SEEDS) framed per mode,
work/<selection>/ what libFuzzer adds, findings/ crash-, timeout-, oom- and leak- files. The run is in fork
mode, so a finding is written and fuzzing goes on; the findings are then replayed and grouped by the
file:line they hit. Exit 1 when there are findings.
Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _p in (str(ROOT), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import fuzz_corpus  # noqa: E402
import fuzz_seeds  # noqa: E402

# What every run passes: a unit slower than 5 s is a hang to report; 2 GiB RSS is far above what the target's
# 64 MiB limit on a program's memory allows, so reaching it is a leak or a bug in the target.
LIBFUZZER_FLAGS = ["-timeout=5", "-rss_limit_mb=2048", "-print_final_stats=1"]
# Room for inserted bytes beyond the largest seed; libFuzzer would otherwise cap inputs at the largest seed.
MAX_LEN_SLACK = 4096
SANITIZER_ENV = {"UBSAN_OPTIONS": "print_stacktrace=1", "ASAN_OPTIONS": "detect_leaks=1"}


def say(msg: str) -> None:
    print(f"fuzz: {msg}", file=sys.stderr, flush=True)


def fuzz_command(
    fuzzer: Path, seeds: List[Path], work: Path, findings: Path, runs: int, jobs: int, dictionary: Path
) -> List[str]:
    max_len = max((p.stat().st_size for p in seeds), default=0) + MAX_LEN_SLACK
    cmd = [str(fuzzer), f"-runs={runs}", f"-max_len={max_len}", f"-artifact_prefix={findings}/", *LIBFUZZER_FLAGS]
    cmd.append(f"-dict={dictionary}")
    if jobs > 0:
        cmd += [f"-fork={jobs}", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
    return cmd + [str(work), str(seeds[0].parent)]


def write_dictionary(path: Path) -> Path:
    """libFuzzer's dictionary: every operator name and overload of the op table, and the backend ids mx_fuzz
    links, so a mutation can turn one operator into another in a single step."""
    from mcu_export.host_runtime import TEST_DELEGATE
    from mcu_export.ops.table import ALL_OPS

    words = sorted({op.name for op in ALL_OPS} | {op.overload for op in ALL_OPS if op.overload} | {TEST_DELEGATE.id})
    path.write_text("".join(f'"{w}"\n' for w in words))
    return path


def replay(fuzzer: Path, unit: Path) -> Tuple[str, str]:
    """(where, report) of one unit's replay: the sanitizer's first line's file:line (or the kind of
    finding), and its first report lines with the stack top."""
    env = dict(os.environ, **SANITIZER_ENV)
    try:
        proc = subprocess.run([str(fuzzer), str(unit)], capture_output=True, text=True, env=env, timeout=60)
    except subprocess.TimeoutExpired:
        return "timeout", "(runs over 60 s)"
    lines = proc.stderr.splitlines()
    keep = [ln for ln in lines if "ERROR:" in ln or "runtime error" in ln or ln.strip().startswith(("#0 ", "#1 "))]
    where = re.search(r"(\S+:\d+):\d+: runtime error|#0 0x[0-9a-f]+ in \S+ (\S+:\d+)", proc.stderr)
    return (where.group(1) or where.group(2) if where else "?"), "\n".join(keep[:4]) or "(did not reproduce)"


def main(argv=None) -> int:
    from mcu_export.host_runtime import build_fuzzer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=int(os.environ.get("FUZZ_RUNS", 10_000_000)))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("FUZZ_JOBS", 1)), help="0: no fork mode")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "fuzz")
    ap.add_argument("--seeds", default=os.environ.get("FUZZ_SEEDS", "*.pte"), help="which corpus files to fuzz")
    args = ap.parse_args(argv)

    say("building mx_fuzz (clang-16, libFuzzer, ASan, UBSan)")
    fuzzer = build_fuzzer()
    say(f"seed corpus in {args.out / 'corpus'} (exported only when missing)")
    programs = fuzz_corpus.main(args.out / "corpus")
    missing = fuzz_corpus.unreached(programs)
    say(f"{len(programs)} programs; op-table kernels not reached: {', '.join(missing) or 'none'}")
    chosen = [p for p in programs if p.match(args.seeds)]
    tag = args.seeds.replace("*", "all")  # a selection keeps its own framed seeds and its own work corpus
    seeds = fuzz_seeds.write_seeds(chosen, args.out / "seeds" / tag)
    work, findings = args.out / "work" / tag, args.out / "findings"
    work.mkdir(parents=True, exist_ok=True)
    findings.mkdir(parents=True, exist_ok=True)
    before = set(findings.iterdir())
    dictionary = write_dictionary(args.out / "ops.dict")
    cmd = fuzz_command(fuzzer, seeds, work, findings, args.runs, args.jobs, dictionary)
    say(f"running {args.runs} executions: {' '.join(cmd)}")
    subprocess.run(cmd, env=dict(os.environ, **SANITIZER_ENV))
    new = sorted(set(findings.iterdir()) - before)
    # Fork mode saves every crashing unit: one bug met many times is reported once, with its count.
    by_place: Dict[str, List[Tuple[Path, str]]] = {}
    for unit in new:
        where, report = replay(fuzzer, unit)
        by_place.setdefault(where, []).append((unit, report))
    for where, units in by_place.items():
        say(f"{where}: {len(units)} finding(s), e.g. {units[0][0]}:\n{units[0][1]}")
    say(f"{len(new)} new findings in {findings} (minimise: {fuzzer} -minimize_crash=1 -runs=10000 FILE)")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
