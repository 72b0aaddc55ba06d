"""Progress of long steps (calibration batches, Vela subgraphs, firmware compiles, benchmark runs): one bar
redrawn in place on a terminal, a few plain lines elsewhere (CI logs keep the first, every tenth, the last).

A step reports itself through the same `progress(message)` callbacks as every other message, as a `Step`: a
str (its plain text, e.g. "calibrating 3/10") that also carries how far it is, so callers that only print
or collect strings need no change, and `Printer` draws it.
"""

from __future__ import annotations

import sys
from typing import Optional, TextIO

BAR_WIDTH = 24


class Step(str):
    """`what`: `done` of `total` (None: not known beforehand), with an optional note (the current item)."""

    what: str
    done: int
    total: Optional[int]
    note: str

    def __new__(cls, what: str, done: int, total: Optional[int] = None, note: str = "") -> "Step":
        text = f"{what} {done}/{total}" if total else f"{what} {done}"
        self = super().__new__(cls, f"{text}: {note}" if note else text)
        self.what, self.done, self.total, self.note = what, done, total, note
        return self

    @property
    def finished(self) -> bool:
        return self.total is not None and self.done >= self.total


def bar(step: Step, width: int = BAR_WIDTH) -> str:
    """`[########........] 12/50` (a count alone when the total is unknown)."""
    if not step.total:
        return f"{step.done}"
    filled = min(width, step.done * width // step.total)
    return f"[{'#' * filled}{'.' * (width - filled)}] {step.done}/{step.total}"


def worth_a_line(step: Step) -> bool:
    """Off a terminal: the first, the last, and one per tenth of the total (every step when there are <= 10)."""
    if step.done <= 1 or step.finished or not step.total or step.total <= 10:
        return True
    return step.done * 10 // step.total != (step.done - 1) * 10 // step.total


class Printer:
    """Prints progress messages as `prefix + message` lines on `stream` (default stderr). Steps redraw one line
    on a terminal (a plain message, or the step's end, finishes it); elsewhere they print `worth_a_line` ones."""

    def __init__(self, prefix: str, stream: Optional[TextIO] = None, tty: Optional[bool] = None):
        self.prefix = prefix
        self.stream = stream
        self.tty = tty
        self._open = False  # a bar is on screen without its newline

    def _out(self) -> TextIO:
        return self.stream or sys.stderr

    def _is_tty(self) -> bool:
        if self.tty is not None:
            return self.tty
        isatty = getattr(self._out(), "isatty", None)
        return bool(isatty and isatty())

    def __call__(self, message: str) -> None:
        out = self._out()
        if isinstance(message, Step) and self._is_tty():
            note = f" {message.note}" if message.note else ""
            line = f"{self.prefix}{message.what} {bar(message)}{note}"
            columns = 100
            out.write("\r" + line[:columns].ljust(columns))
            self._open = not message.finished
            if message.finished:
                out.write("\n")
            out.flush()
            return
        if isinstance(message, Step) and not worth_a_line(message):
            return
        if self._open:
            out.write("\n")
            self._open = False
        out.write(f"{self.prefix}{message}\n")
        out.flush()
