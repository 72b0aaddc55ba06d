"""The forked child that runs one command: it takes on the client's stdin, stdout and stderr, folder, umask
and environment, runs `mcu-export ARGS` as the client would have in its own process, and sends the exit code."""

from __future__ import annotations

import io
import os
import signal
import socket
import sys
from typing import Callable, List

from mcu_export.server import wire
from mcu_export.server.where import ENV


def _stream(fd: int, write: bool):
    raw = io.FileIO(fd, "w" if write else "r", closefd=False)
    if not write:
        return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors="replace")
    return io.TextIOWrapper(
        io.BufferedWriter(raw), encoding="utf-8", errors="backslashreplace", line_buffering=True, write_through=True
    )


def _adopt(request: dict, fds: List[int]) -> None:
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    sys.stdin, sys.stdout, sys.stderr = _stream(0, False), _stream(1, True), _stream(2, True)
    os.chdir(request["cwd"])
    os.umask(int(request["umask"]))
    os.environ.clear()
    os.environ.update(request["env"])
    os.environ[ENV] = "off"  # the command runs here: it must not look for a server, nor start one


def _after_exit(work: List[Callable[[], None]], log: int) -> None:
    """The report, once the client has its exit code: the client's descriptors are let go first (a caller
    reading the command's output to its end must not wait for it), what it prints goes to the server's log."""
    null = os.open(os.devnull, os.O_RDWR)
    for target, fd in ((0, null), (1, log), (2, log)):
        os.dup2(fd, target)
    for job in work:
        try:
            job()
        except Exception as exc:  # noqa: BLE001  (the command has succeeded; this is the log's business)
            print(f"after the command: {type(exc).__name__}: {exc}")
    sys.stdout.flush()


def run(conn: socket.socket, request: dict, fds: List[int], threads: int) -> None:
    """Never returns: the child exits with the command's code (os._exit: the server's atexit work is not ours)."""
    code = 70
    log = os.dup(1)  # the server's log
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the client forwards its Ctrl-C here
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _adopt(request, fds)
        import torch

        torch.set_num_threads(threads)
        sys.argv = ["mcu-export", *request["argv"]]
        wire.send(conn, {"pid": os.getpid()})
        from mcu_export import cli

        cli.AFTER_EXIT = []
        try:
            code = cli.main(list(request["argv"]))
        except SystemExit as exc:  # --help and --version exit through argparse
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        sys.stdout.flush()
        sys.stderr.flush()
        wire.send(conn, {"exit": code})
        conn.close()
        _after_exit(cli.AFTER_EXIT, log)
    except BaseException as exc:  # noqa: BLE001  (whatever it is, the client gets a line, not a hang)
        try:
            os.write(2, f"mcu-export: internal error in the server's worker: {type(exc).__name__}: {exc}\n".encode())
        except OSError:
            pass
    finally:
        os._exit(code if 0 <= code < 256 else 70)
