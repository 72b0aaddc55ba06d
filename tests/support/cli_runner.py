"""Run the `mcu-export` CLI in a subprocess, exactly as a user would (module entry, repo on the path)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def error_lines(self):
        return [line for line in self.err.splitlines() if line.strip()]


def cli(*args, cwd=None, timeout=300, env_path=None) -> Result:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    if env_path is not None:
        env["PATH"] = env_path
    proc = subprocess.run(
        [sys.executable, "-m", "mcu_export.cli", *map(str, args)],
        cwd=cwd or ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def assert_one_line_error(result: Result, *fragments: str) -> str:
    """Exit 2, no traceback, and a `mcu-export: error:` line naming what is wrong."""
    assert result.code == 2, (result.code, result.err)
    assert "Traceback" not in result.err, result.err
    errors = [line for line in result.error_lines if line.startswith("mcu-export: error:")]
    assert len(errors) == 1, result.err
    for fragment in fragments:
        assert fragment in errors[0], (fragment, errors[0])
    return errors[0]
