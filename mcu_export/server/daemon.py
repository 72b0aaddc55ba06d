"""The server process: `python -m mcu_export.server.daemon KEY`, started by a client in the background.

One server per key (a lock file beside the socket): a second one started for the same key exits at once. It
warms up before it listens, so a client either finds a warm server or none. Each command is a forked worker;
the server itself never runs one. It exits after MCU_EXPORT_SERVER_IDLE seconds without a command (default
900), on {"op": "stop"}, or when its socket file is removed or replaced. Stopping, it takes no new command, waits
for the running ones, and removes its socket last.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import struct
import sys
import time
from pathlib import Path

from mcu_export.server import wire, worker
from mcu_export.server.where import idle_seconds, make_folder, socket_path

WORKER_LIMIT_S = 600.0  # how long a stopping server waits for its running commands


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


class Server:
    def __init__(self, key: str, threads: int, listener: socket.socket, path: Path, lock):
        self.key, self.threads, self.listener, self.path, self.lock = key, threads, listener, path, lock
        self.inode = path.stat().st_ino
        self.children: set = set()
        self.served = 0
        self.started = self.last = time.monotonic()

    def reap(self) -> None:
        for pid in list(self.children):
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                self.children.discard(pid)
                self.last = time.monotonic()

    def finish(self, limit: float = WORKER_LIMIT_S) -> None:
        """Wait for the running workers: a command finishes, report page included, before the server is gone."""
        deadline = time.monotonic() + limit
        if self.children:
            _say(f"waiting for {len(self.children)} running command(s)")
        while self.children and time.monotonic() < deadline:
            time.sleep(0.1)
            self.reap()

    def still_ours(self) -> bool:
        try:
            return self.path.stat().st_ino == self.inode
        except FileNotFoundError:
            return False

    def status(self) -> dict:
        now = time.monotonic()
        return {
            "pid": os.getpid(),
            "key": self.key,
            "served": self.served,
            "running": len(self.children),
            "up_s": round(now - self.started, 1),
            "idle_s": round(now - self.last, 1) if not self.children else 0.0,
        }

    def handle(self, conn: socket.socket) -> bool:
        """One connection; False when the server should stop."""
        if _peer_uid(conn) != os.getuid():
            return True
        request, fds = wire.receive_request(conn)
        op = (request or {}).get("op")
        if request is not None and op == "run" and len(fds) == 3:
            pid = os.fork()
            if pid == 0:
                self.listener.close()
                self.lock.close()
                worker.run(conn, request, fds, self.threads)
            self.children.add(pid)
            self.served += 1
            self.last = time.monotonic()
            _say(f"pid {pid}: mcu-export {' '.join(request['argv'])}")
        elif op in ("status", "stop"):
            wire.send(conn, self.status())
        for fd in fds:
            os.close(fd)
        return op != "stop"

    def serve(self) -> None:
        idle = idle_seconds()
        self.listener.settimeout(1.0)
        while True:
            self.reap()
            if not self.still_ours():
                return _say("socket removed or replaced: exiting")
            if not self.children and time.monotonic() - self.last > idle:
                return _say(f"idle for {idle:.0f} s: exiting")
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            with conn:
                conn.settimeout(10.0)
                try:
                    keep = self.handle(conn)
                except (OSError, ValueError) as exc:
                    _say(f"bad request: {exc}")
                    keep = True
            if not keep:
                return _say("stop requested: exiting")


def main(argv=None) -> int:
    key = (argv if argv is not None else sys.argv[1:])[0]
    folder = make_folder()
    path = socket_path(key)
    lock = open(folder / f"{key}.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # this key's server is already starting or running
    _say(f"server {key} (pid {os.getpid()}) warming up")
    from mcu_export.server.warm import warm_up

    threads = warm_up(say=_say)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C belongs to the client, not the server
    fresh = folder / f"{key}.{os.getpid()}.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(fresh))
    listener.listen(16)
    os.replace(fresh, path)  # clients see a listening, warm server or none at all
    _say(f"listening on {path}")
    server = Server(key, threads, listener, path, lock)
    try:
        server.serve()
        listener.close()  # no new command: a client's connect is refused and it runs the command itself
        server.finish()
    finally:
        listener.close()
        if server.still_ours():
            path.unlink()  # last: `server stop` waits for this, so a stopped server has nothing left running
    return 0


if __name__ == "__main__":
    sys.exit(main())
