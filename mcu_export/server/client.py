"""The client side: hand a command to a warm server, start one, list and stop them. Nothing here imports torch."""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

from mcu_export.server import wire
from mcu_export.server.where import folder, key, make_folder, socket_path

PROG = "mcu-export"


def _connect(path: Path, timeout: float = 2.0) -> Optional[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:  # none there, or a dead server's socket
        sock.close()
        return None
    return sock


def _own_fds() -> List[int]:
    """stdin, stdout, stderr; /dev/null for one the caller closed."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            fds.append(os.open(os.devnull, os.O_RDWR))
    return fds


def run_in_server(argv: List[str]) -> Optional[int]:
    """The command's exit code, run by this key's warm server; None when there is none (run it here)."""
    sock = _connect(socket_path(key()))
    if sock is None:
        return None
    with sock:
        umask = os.umask(0)
        os.umask(umask)
        request = {"op": "run", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask}
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            wire.send_request(sock, request, _own_fds())
            started = wire.receive(sock)
        except OSError:
            return None
        if not started or "pid" not in started:
            return None  # the server is stopping: run it here
        sock.settimeout(None)
        return _wait(sock, int(started["pid"]))


def _wait(sock: socket.socket, pid: int) -> int:
    interrupted = False
    while True:
        try:
            done = wire.receive(sock)
            break
        except KeyboardInterrupt:  # Ctrl-C reaches this process, not the worker: pass it on, then kill
            try:
                os.kill(pid, signal.SIGKILL if interrupted else signal.SIGINT)
            except ProcessLookupError:
                return 130
            interrupted = True
    if done is None or "exit" not in done:
        print(f"{PROG}: error: the server's worker (pid {pid}) ended without an exit code", file=sys.stderr)
        return 70
    return int(done["exit"])


def _starting(server_key: str) -> bool:
    """A server for this key holds its lock file from start to exit."""
    try:
        with open(folder() / f"{server_key}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
    except BlockingIOError:
        return True
    except FileNotFoundError:
        return False


def spawn(environ: Optional[Dict[str, str]] = None) -> bool:
    """Start this key's server in the background (its log: KEY.log beside the socket) unless one is running or
    starting: whether one was started. `environ`: the command's environment as it started, for the key and the
    server (a command that imported torch has a few variables more)."""
    environ = dict(os.environ if environ is None else environ)
    server_key = key(environ)
    if _starting(server_key) or ask(socket_path(server_key), "status"):
        return False
    make_folder()
    with open(folder() / f"{server_key}.log", "ab") as log:
        subprocess.Popen(
            [sys.executable, "-m", "mcu_export.server.daemon", server_key],
            env=environ,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=str(folder()),
            start_new_session=True,  # not in the terminal's process group: the user's Ctrl-C is not for it
            close_fds=True,
        )
    return True


def wait_ready(timeout: float = 180.0) -> Optional[dict]:
    """This key's server's status once it listens (it warms up first), or None after `timeout` seconds."""
    path = socket_path(key())
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = ask(path, "status")
        if status:
            return {**status, "socket": str(path)}
        time.sleep(0.2)
    return None


def ask(path: Path, op: str) -> Optional[dict]:
    sock = _connect(path)
    if sock is None:
        return None
    with sock:
        try:
            wire.send_request(sock, {"op": op}, [])
            return wire.receive(sock)
        except OSError:
            return None


def servers() -> List[dict]:
    """Every server in the folder that answers, with `current` telling whether this mcu-export would use it."""
    if not folder().is_dir():
        return []
    current = key()
    found = []
    for path in sorted(folder().glob("*.sock")):
        status = ask(path, "status")
        if status:
            found.append({**status, "socket": str(path), "current": status.get("key") == current})
    return found


def stop_all(say=print, limit: float = 610.0) -> List[dict]:
    """Stop every server, and return once each has removed its socket: after its running commands finished."""
    stopped = []
    for server in servers():
        path = Path(server["socket"])
        inode = _inode(path)
        if not ask(path, "stop"):
            continue
        if server.get("running"):
            say(f"server {server['key']}: waiting for {server['running']} running command(s)")
        deadline = time.monotonic() + limit
        while inode is not None and _inode(path) == inode and time.monotonic() < deadline:
            time.sleep(0.05)
        stopped.append(server)
    return stopped


def _inode(path: Path) -> Optional[int]:
    """The socket file's inode: gone, or replaced by a new server's, the old server has exited."""
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None
