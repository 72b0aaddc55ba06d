"""The warm server (mcu_export/server, issue 16): `export` and `run MODEL_SPEC` handed to a process that keeps
torch loaded give the same files and outputs as a run in the command's own process, with the same exit codes,
errors and Ctrl-C; a server is started after a command that found none, answers status, stops, and exits idle.
Real processes over a real Unix socket, in a folder of the test's own."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from cli_runner import ROOT, Result, assert_one_line_error

pytestmark = pytest.mark.slow

MODEL = """
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def factory():
    torch.manual_seed(0)
    return Net().eval(), (torch.randn(1, 1, 6, 6),)
"""
PAUSED = """

import time


def paused():
    time.sleep(3)
    return factory()
"""
SLOW = """
import time


def factory():
    time.sleep(60)
"""


def _env(folder, **extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", MCU_EXPORT_SERVER_DIR=str(folder))
    env.pop("CI", None)
    env.update(MCU_EXPORT_SERVER="on", **extra)
    return env


def _cli(env, cwd, *args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "mcu_export.cli", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _status(env, cwd):
    r = _cli(env, cwd, "server", "status")
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("server")
    folder = tmp / "srv"  # short: a Unix socket path has ~107 bytes
    (tmp / "net.py").write_text(MODEL)
    (tmp / "slow.py").write_text(SLOW)
    (tmp / "paused.py").write_text(MODEL + PAUSED)
    x = np.random.default_rng(3).standard_normal((1, 1, 6, 6)).astype(np.float32)
    np.save(tmp / "x.npy", x)
    env = _env(folder)
    yield tmp, env, {}
    _cli(env, tmp, "server", "stop")


def _run(env, tmp, out, *extra):
    args = ["run", "net.py:factory", "--board", "corstone-300", "--quantize", "int8", "--input", "x.npy"]
    return _cli(env, tmp, *args, "--out", out, "--output", f"{out}.npz", *extra)


def test_a_command_finding_no_server_runs_here_and_starts_one_for_the_next(work):
    tmp, env, _ = work
    assert "no server running" in _status(env, tmp)
    here = _run(env, tmp, "out_here")
    assert here.returncode == 0, here.stderr
    assert "started a warm server" in here.stderr
    work[2]["here"] = here.stdout
    r = _cli(env, tmp, "server", "start")  # waits until the one just started is warm; starts no second one
    assert r.returncode == 0, r.stderr
    status = _status(env, tmp)
    assert status.count("\n") == 1 and "current, 0 command(s)" in status, status


def test_the_server_gives_the_files_and_outputs_of_a_run_here(work):
    tmp, env, _ = work
    served = _run(env, tmp, "out_served")
    assert served.returncode == 0, served.stderr
    assert "started a warm server" not in served.stderr
    assert "current, 1 command(s)" in _status(env, tmp)  # it ran there, not here
    assert (tmp / "out_served" / "model.pte").read_bytes() == (tmp / "out_here" / "model.pte").read_bytes()
    for name in ("out_here", "out_served"):  # QEMU's outputs, bit for bit
        assert (tmp / name / "export.sha256").is_file()
    np.testing.assert_array_equal(
        np.load(tmp / "out_served.npz")["output_0"], np.load(tmp / "out_here.npz")["output_0"]
    )
    here_text = _same_text(work[2]["here"], "out_here").replace("wrote OUT/report.html\n", "")
    assert _same_text(served.stdout, "out_served") == here_text
    # The report comes after the result: the command's output has ended (this process read it to its end) and
    # the page follows, the same page a run here writes.
    assert "out_served/report.html follows" in served.stderr
    page = tmp / "out_served" / "report.html"
    deadline = time.monotonic() + 60
    while not page.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _same_text(page.read_text(), "out_served") == _same_text(
        (tmp / "out_here" / "report.html").read_text(), "out_here"
    )


def _same_text(text: str, out: str) -> str:
    """A command's output or page without its folder's name, wall-clock seconds and input digest."""
    text = re.sub(r'content="[0-9a-f]{64}"', "DIGEST", text)  # a report's inputs name their folder
    return re.sub(r"[0-9.]+ s\b", "S s", text.replace(out, "OUT"))


def test_errors_and_exit_codes_come_back_from_the_server(work):
    tmp, env, _ = work
    r = _cli(env, tmp, "run", "missing.py:factory", "--board", "corstone-300", "--input", "x.npy")
    assert_one_line_error(Result(r.returncode, r.stdout, r.stderr), "model file not found: missing.py")
    r = _cli(env, tmp, "export", "net.py:factory", "-o", "bad", "--board", "no-such-board")
    assert_one_line_error(Result(r.returncode, r.stdout, r.stderr), "no-such-board")
    assert "current, 3 command(s)" in _status(env, tmp)  # the run before, and these two


def test_ctrl_c_reaches_the_command_in_the_server(work):
    tmp, env, _ = work
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcu_export.cli", "run", "slow.py:factory", "--input", "x.npy"],
        cwd=tmp,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3)  # the worker is in factory()'s sleep
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "mcu-export: interrupted" in err, err
    assert time.monotonic() - started < 10
    time.sleep(1.5)  # the server reaps its worker each second
    assert "0 running" in _status(env, tmp)


def test_stop_waits_for_the_running_command_then_ends_the_server(work):
    """`server stop` returns once the server is gone, and a command it was running has finished, report page
    included (the server writes it after the result): nothing is left writing into the user's folders."""
    tmp, env, _ = work
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcu_export.cli", "export", "paused.py:paused", "-o", "out_paused"],
        cwd=tmp,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while "1 running" not in _status(env, tmp) and time.monotonic() < deadline:
        time.sleep(0.2)
    r = _cli(env, tmp, "server", "stop")
    assert r.returncode == 0 and "stopped 1 server(s)" in r.stdout, r.stdout + r.stderr
    assert "waiting for 1 running command(s)" in r.stdout
    assert (tmp / "out_paused" / "report.html").is_file() and (tmp / "out_paused" / "model.pte").is_file()
    assert not list((tmp / "srv").glob("*.sock"))
    assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    assert "no server running" in _status(env, tmp)


def test_an_idle_server_exits(tmp_path):
    env = _env(tmp_path / "srv", MCU_EXPORT_SERVER_IDLE="2")
    r = _cli(env, tmp_path, "server", "start")
    assert r.returncode == 0, r.stderr
    deadline = time.monotonic() + 20
    while "no server running" not in _status(env, tmp_path) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert "no server running" in _status(env, tmp_path)
    assert not list((tmp_path / "srv").glob("*.sock"))
