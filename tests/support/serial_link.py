"""A serial link on real ptys for the serial tests: the client opens one pty's slave path with pyserial,
mx_serial_device runs on another pty's slave, and a proxy thread copies bytes between the two masters,
where a test can damage them on the way (flip bits, drop bytes, cut the line) in either direction.

    client (pyserial) ─ slave A ═ master A ─ proxy ─ master B ═ slave B ─ mx_serial_device
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
import tty
from pathlib import Path
from typing import Callable, Optional

Fault = Callable[[bytes], bytes]  # bytes in → bytes passed on


class PtyLink:
    def __init__(self, device: Path, slots: Path, *, slot_bytes: int = 256 * 1024, work_bytes: int = 256 * 1024):
        self.device, self.slots = device, slots
        self.slot_bytes, self.work_bytes = slot_bytes, work_bytes
        self.to_device: Optional[Fault] = None
        self.to_host: Optional[Fault] = None
        self._host_master, host_slave = os.openpty()
        self._dev_master, dev_slave = os.openpty()
        for fd in (host_slave, dev_slave):
            tty.setraw(fd)  # no echo, no line editing before the two ends set their own modes
        self.port = os.ttyname(host_slave)
        self._dev_path = os.ttyname(dev_slave)
        self._keep = [host_slave, dev_slave]  # open, so that a master never reads EIO between users
        self._stop = False
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()
        self.proc: Optional[subprocess.Popen] = None
        self.start_device()

    def start_device(self) -> None:
        cmd = [
            str(self.device), "--port", self._dev_path, "--slots", str(self.slots),
            "--slot-bytes", str(self.slot_bytes), "--work-bytes", str(self.work_bytes),
        ]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE)

    def kill_device(self) -> None:
        """As a power cut: no chance to finish anything."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def _pump(self) -> None:
        pairs = {self._host_master: self._dev_master, self._dev_master: self._host_master}
        while not self._stop:
            ready, _, _ = select.select(list(pairs), [], [], 0.05)
            for src in ready:
                try:
                    data = os.read(src, 4096)
                except OSError:
                    continue
                towards_device = src == self._host_master
                fault = self.to_device if towards_device else self.to_host
                if fault is not None:
                    data = fault(data)
                if data:
                    os.write(pairs[src], data)

    def close(self) -> None:
        self.kill_device()
        self._stop = True
        self._thread.join()
        for fd in [self._host_master, self._dev_master, *self._keep]:
            os.close(fd)


def every_nth(n: int, damage: Callable[[bytearray, int], None]) -> Fault:
    """A fault that damages the n-th, 2n-th, ... chunk of bytes passing through (damage(buf, i) at a byte
    in the middle), so that retries have clean chunks in between."""
    count = [0]

    def fault(data: bytes) -> bytes:
        count[0] += 1
        if count[0] % n or len(data) < 2:
            return data
        buf = bytearray(data)
        damage(buf, len(buf) // 2)
        return bytes(buf)

    return fault


def every_nth_frame(n: int, damage: Callable[[bytearray, int], None]) -> Fault:
    """A fault that damages the first byte after the opening END of the n-th, 2n-th, ... frame passing, however
    the bytes are chunked (QEMU's UART on a TCP_NODELAY socket sends a byte a segment). Frames are counted by
    their END bytes: each side opens and closes every frame with one, and no damage touches an END."""
    state = {"ends": 0, "damaged": -1}

    def fault(data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            frame = state["ends"] // 2
            if byte != 0xC0 and frame % n == n - 1 and state["damaged"] != frame:
                state["damaged"] = frame
                one = bytearray([byte])
                damage(one, 0)
                out += one
                continue
            state["ends"] += byte == 0xC0
            out.append(byte)
        return bytes(out)

    return fault


def flip_bit(buf: bytearray, i: int) -> None:
    buf[i] ^= 0x10


def drop_byte(buf: bytearray, i: int) -> None:
    del buf[i]


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


class TcpProxy:
    """The socket counterpart of PtyLink's proxy, for a device that listens on TCP (QEMU's UART):

        client (pyserial socket://) ─ proxy ─ QEMU's -serial tcp:...,server=on

    Each connection to `url` is forwarded to a new connection to the target, bytes damaged on the way by
    to_device / to_host when set."""

    def __init__(self, target_port: int):
        import socket

        self.target_port = target_port
        self.to_device: Optional[Fault] = None
        self.to_host: Optional[Fault] = None
        self._server = socket.socket()
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(1)
        self._server.settimeout(0.05)
        self.url = f"socket://127.0.0.1:{self._server.getsockname()[1]}"
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        import socket

        while not self._stop:
            try:
                client, _ = self._server.accept()
            except OSError:
                continue
            with client, socket.create_connection(("127.0.0.1", self.target_port)) as device:
                self._pump(client, device)

    def _pump(self, client, device) -> None:
        pairs = {client: device, device: client}
        while not self._stop:
            ready, _, _ = select.select(list(pairs), [], [], 0.05)
            for src in ready:
                try:
                    data = src.recv(4096)
                except OSError:  # reset: the simulator was killed
                    return
                if not data:
                    return  # either end closed: drop both, wait for the next client
                fault = self.to_device if src is client else self.to_host
                data = fault(data) if fault is not None else data
                if data:
                    pairs[src].sendall(data)

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self._server.close()
