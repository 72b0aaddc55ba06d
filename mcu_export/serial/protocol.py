"""The serial protocol's wire format (docs/serial-protocol.md), host side: SLIP (RFC 1055), frames with a
CRC-32, the command codes and the status texts. Pure functions; the client (client.py) does the I/O."""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

PROTOCOL_VERSION = 1
HEADER = struct.Struct("<BBH")  # command, flags, sequence
FLAG_RESPONSE = 0x01
FLAG_NAK = 0x02
FRAME_OVERHEAD = HEADER.size + 4  # header + CRC-32, before SLIP escaping and the two ENDs

END, ESC, ESC_END, ESC_ESC = 0xC0, 0xDB, 0xDC, 0xDD

COMMANDS = {
    "INFO": 0x01,
    "MODEL": 0x02,
    "LOAD_BEGIN": 0x03,
    "LOAD_CHUNK": 0x04,
    "LOAD_END": 0x05,
    "SET_INPUT": 0x06,
    "INVOKE": 0x07,
    "GET_OUTPUT": 0x08,
    "PROFILE": 0x09,
    "RESET": 0x0A,
}
COMMAND_NAMES = {code: name for name, code in COMMANDS.items()}

# status codes the client reacts to (serial_errors.def has them all)
BAD_CRC, TOO_SHORT, TOO_LARGE = 0x0501, 0x0502, 0x0503


def slip_encode(payload: bytes) -> bytes:
    """END, the payload with END and ESC escaped, END (the leading END flushes line noise, RFC 1055)."""
    body = payload.replace(bytes([ESC]), bytes([ESC, ESC_ESC])).replace(bytes([END]), bytes([ESC, ESC_END]))
    return bytes([END]) + body + bytes([END])


class SlipDecoder:
    """Feeds received bytes, returns the frames they complete (empty frames between ENDs are skipped)."""

    def __init__(self):
        self._buf = bytearray()
        self._escaped = False

    def feed(self, data: bytes) -> List[bytes]:
        frames = []
        for b in data:
            if b == END:
                if self._buf:
                    frames.append(bytes(self._buf))
                self._buf.clear()
                self._escaped = False
            elif b == ESC:
                self._escaped = True
            else:
                if self._escaped:
                    b = {ESC_END: END, ESC_ESC: ESC}.get(b, b)  # RFC 1055: anything else is kept as is
                    self._escaped = False
                self._buf.append(b)
        return frames


def encode_frame(command: int, seq: int, body: bytes = b"", flags: int = 0) -> bytes:
    """A request (or, in tests, a response) as it goes on the wire, SLIP-framed."""
    raw = HEADER.pack(command, flags, seq & 0xFFFF) + body
    return slip_encode(raw + struct.pack("<I", zlib.crc32(raw)))


@dataclass(frozen=True)
class Frame:
    command: int
    flags: int
    seq: int
    body: bytes

    @property
    def is_response(self) -> bool:
        return bool(self.flags & FLAG_RESPONSE)

    @property
    def is_nak(self) -> bool:
        return bool(self.flags & FLAG_NAK)


def decode_frame(raw: bytes) -> Optional[Frame]:
    """The frame in a SLIP payload, or None when it is too short or its CRC does not check."""
    if len(raw) < FRAME_OVERHEAD:
        return None
    (crc,) = struct.unpack_from("<I", raw, len(raw) - 4)
    if zlib.crc32(raw[:-4]) != crc:
        return None
    command, flags, seq = HEADER.unpack_from(raw)
    return Frame(command, flags, seq, raw[HEADER.size : -4])


_DEF_LINE = re.compile(r'^X\(\s*(\w+)\s*,\s*(0x[0-9a-fA-F]+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)', re.M)
_texts: Optional[Dict[int, Tuple[str, str]]] = None


def status_text(code: int) -> str:
    """The one-line text of a status: the protocol's (serial_errors.def) or the runtime's (errors.def)."""
    global _texts
    if _texts is None:
        from mcu_export.assets import asset_dir

        root = asset_dir("runtime_c")
        _texts = {}
        for path in (root / "include" / "mx" / "errors.def", root / "serial" / "serial_errors.def"):
            _texts.update({int(c, 16): (n, t) for n, c, t in _DEF_LINE.findall(path.read_text())})
    return _texts.get(code, ("", f"unknown status 0x{code:04x}"))[1]


class Reader:
    """Little-endian fields from a response body, in order."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise struct.error("body too short")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def string(self) -> str:
        return self.raw(self.take("B")).decode("utf-8", "replace")

    def op_name(self) -> str:
        """Two strings, name and overload, as "name.overload" (or the name alone)."""
        name, overload = self.string(), self.string()
        return f"{name}.{overload}" if overload else name

    def rest(self) -> bytes:
        return self.raw(len(self.data) - self.pos)
