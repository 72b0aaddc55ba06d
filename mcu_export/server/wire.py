"""Messages between a client and the server: JSON objects, each a 4-byte big-endian length and the UTF-8 text.
A command's request carries the client's stdin, stdout and stderr as SCM_RIGHTS descriptors on its first byte."""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import List, Optional, Tuple

_MAX = 16 << 20  # an environment of many megabytes is not a request


def send(sock: socket.socket, message: dict) -> None:
    data = json.dumps(message).encode()
    sock.sendall(struct.pack(">I", len(data)) + data)


def _exactly(sock: socket.socket, size: int) -> Optional[bytes]:
    chunks, got = [], 0
    while got < size:
        chunk = sock.recv(size - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def receive(sock: socket.socket) -> Optional[dict]:
    """The next message, or None when the peer closed the connection."""
    head = _exactly(sock, 4)
    if head is None:
        return None
    (size,) = struct.unpack(">I", head)
    if size > _MAX:
        raise ValueError(f"a message of {size} bytes")
    body = _exactly(sock, size)
    return None if body is None else json.loads(body)


def send_request(sock: socket.socket, message: dict, fds: List[int]) -> None:
    socket.send_fds(sock, [b"R"], fds)
    send(sock, message)


def receive_request(sock: socket.socket) -> Tuple[Optional[dict], List[int]]:
    """A request and the descriptors it carried (none for {"op": "status"} and {"op": "stop"})."""
    marker, fds, _flags, _addr = socket.recv_fds(sock, 1, 3)
    if marker != b"R":
        for fd in fds:
            os.close(fd)
        return None, []
    return receive(sock), fds
