"""Progress of long steps (mcu_export/progress.py): a bar redrawn in place on a terminal, a few plain lines in a
log; the firmware build's ninja steps and calibration batches report through it."""

from __future__ import annotations

import io

import torch

from mcu_export.firmware import build
from mcu_export.progress import Printer, Step, bar, worth_a_line


def test_bar_and_text():
    assert bar(Step("x", 6, 24), width=8) == "[##......] 6/24"
    assert bar(Step("x", 24, 24), width=8) == "[########] 24/24"
    assert bar(Step("x", 7)) == "7"  # the total unknown: a count
    assert str(Step("calibrating", 3, 10)) == "calibrating 3/10"
    assert str(Step("ninja", 2, 5, note="a.c.obj")) == "ninja 2/5: a.c.obj"


def test_a_log_gets_the_first_each_tenth_and_the_last():
    out = io.StringIO()
    say = Printer("p: ", out, tty=False)
    for k in range(1, 101):
        say(Step("step", k, 100))
    lines = out.getvalue().splitlines()
    assert lines[0] == "p: step 1/100" and lines[-1] == "p: step 100/100"
    assert len(lines) == 11 and all(worth_a_line(Step("s", k, 100)) == (k == 1 or k % 10 == 0) for k in range(1, 101))


def test_a_terminal_gets_one_line_redrawn_and_messages_after_it():
    out = io.StringIO()
    say = Printer("p: ", out, tty=True)
    say(Step("step", 1, 3))
    say(Step("step", 2, 3))
    say("a message in the middle")  # finishes the bar's line first
    say(Step("step", 3, 3))
    text = out.getvalue()
    assert text.count("\r") == 3 and text.count("\n") == 3  # the bar ended for the message, the message, the end
    assert "\np: a message in the middle\n" in text and "[" + "#" * 24 + "] 3/3" in text


def test_ninja_steps_become_a_bar(tmp_path, capsys):
    script = "printf '[1/3] Building C object CMakeFiles/f.dir/a.c.obj\\n[2/3] Building C object CMakeFiles/f.dir/b.c.obj\\n[3/3] Linking C firmware.elf\\n'"
    build._run_step(["sh", "-c", script], tmp_path, "build (ninja)", tmp_path / "log")
    err = capsys.readouterr().err.splitlines()  # not a terminal: a line per step (3 <= 10)
    assert err == [
        "mcu-export: build: building 1/3: a.c.obj",
        "mcu-export: build: building 2/3: b.c.obj",
        "mcu-export: build: building 3/3: Linking C firmware.elf",
    ]
    assert (tmp_path / "log").read_text().count("\n") == 3  # the log keeps ninja's own lines


def test_calibration_reports_each_batch():
    from mcu_export.int8.calibrate import run_calibration

    model = torch.nn.Linear(3, 2)
    x = (torch.zeros(1, 3),)
    seen = []
    count, _ = run_calibration(model, x, [x] * 4, say=seen.append)
    steps = [m for m in seen if isinstance(m, Step)]
    assert count == 4 and [(s.done, s.total) for s in steps] == [(1, 4), (2, 4), (3, 4), (4, 4)]
