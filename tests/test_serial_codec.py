"""The serial protocol's codecs, fast: the device's CRC-32 and SLIP (runtime_c/serial/, compiled here into a
small harness) against zlib.crc32 and a SLIP codec written from RFC 1055's own routines, and the host's
codec (mcu_export/serial/protocol.py) against the same reference. The end-to-end tests on a pty are in
test_serial_device.py."""

from __future__ import annotations

import random
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from mcu_export.serial import protocol as p

ROOT = Path(__file__).resolve().parents[1]
SERIAL = ROOT / "runtime_c" / "serial"

# RFC 1055's special characters, and its send_packet / recv_packet as Python
RFC_END, RFC_ESC, RFC_ESC_END, RFC_ESC_ESC = 0o300, 0o333, 0o334, 0o335


def rfc1055_send(packet: bytes) -> bytes:
    out = bytearray([RFC_END])
    for c in packet:
        if c == RFC_END:
            out += bytes([RFC_ESC, RFC_ESC_END])
        elif c == RFC_ESC:
            out += bytes([RFC_ESC, RFC_ESC_ESC])
        else:
            out.append(c)
    out.append(RFC_END)
    return bytes(out)


def rfc1055_recv(stream: bytes):
    """Every non-empty packet in stream (recv_packet, called until the stream ends)."""
    packets, received, it = [], bytearray(), iter(stream)
    for c in it:
        if c == RFC_END:
            if received:
                packets.append(bytes(received))
                received = bytearray()
            continue
        if c == RFC_ESC:
            c = next(it, None)
            if c is None:
                break
            c = {RFC_ESC_END: RFC_END, RFC_ESC_ESC: RFC_ESC}.get(c, c)
        received.append(c)
    return packets


def samples():
    rng = random.Random(1055)
    yield b""
    yield bytes([0xC0])
    yield bytes([0xDB])
    yield bytes([0xDB, 0xDC, 0xC0, 0xDD, 0xDB, 0xDB])
    yield bytes(range(256))
    for n in (1, 7, 100, 511, 512, 513, 4000):
        yield bytes(rng.choice((0xC0, 0xDB, 0xDC, 0xDD, rng.randrange(256))) for _ in range(n))


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    exe = tmp_path_factory.mktemp("serial") / "harness"
    subprocess.run(
        [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", f"-I{ROOT / 'runtime_c' / 'include'}", f"-I{SERIAL}",
         str(ROOT / "tests" / "support" / "serial_codec_harness.c"), str(SERIAL / "crc32.c"), str(SERIAL / "slip.c"),
         "-o", str(exe)],
        check=True,
    )  # fmt: skip

    def run(mode: str, data: bytes) -> bytes:
        return subprocess.run([str(exe), mode], input=data, stdout=subprocess.PIPE, check=True).stdout

    return run


def test_device_crc32_is_zlibs(harness):
    for data in samples():
        assert int(harness("crc", data), 16) == zlib.crc32(data)
    assert harness("crc", b"123456789") == b"cbf43926\n"  # the CRC-32 check value


def test_device_slip_encoding_is_rfc1055(harness):
    for data in samples():
        assert bytes([RFC_END]) + harness("slip", data) + bytes([RFC_END]) == rfc1055_send(data)


def test_device_slip_decoding_is_rfc1055(harness):
    frames = [d for d in samples() if 0 < len(d) <= 512]
    stream = b"".join(rfc1055_send(d) for d in frames)
    out, got = harness("unslip", stream), []
    while out:
        n, overflow = struct.unpack_from("<HB", out)
        got.append(out[3 : 3 + n])
        assert not overflow
        out = out[3 + n :]
    assert got == rfc1055_recv(stream) == frames


def test_device_slip_refuses_to_overflow(harness):
    out = harness("unslip", rfc1055_send(bytes(600)) + rfc1055_send(b"next"))
    n, overflow = struct.unpack_from("<HB", out)
    assert (n, overflow) == (512, 1)  # stopped at its buffer, and said so
    assert out[3 + n :] == struct.pack("<HB", 4, 0) + b"next"  # the next frame is whole


def test_host_slip_is_rfc1055():
    decoder = p.SlipDecoder()
    for data in samples():
        assert p.slip_encode(data) == rfc1055_send(data)
        if data:
            stream = p.slip_encode(data)
            got = []
            for i in range(0, len(stream), 3):  # arrives in pieces
                got += decoder.feed(stream[i : i + 3])
            assert got == [data]


def test_frames_round_trip_and_corruption_is_caught():
    frame = p.encode_frame(p.COMMANDS["LOAD_CHUNK"], 0xBEEF, b"\xc0\xdb payload", flags=p.FLAG_RESPONSE)
    (raw,) = p.SlipDecoder().feed(frame)
    f = p.decode_frame(raw)
    assert (f.command, f.seq, f.body, f.is_response, f.is_nak) == (4, 0xBEEF, b"\xc0\xdb payload", True, False)
    assert raw[:4] == bytes([4, 1, 0xEF, 0xBE])  # command, flags, sequence LE
    assert struct.unpack("<I", raw[-4:])[0] == zlib.crc32(raw[:-4])
    for i in range(len(raw)):
        damaged = bytearray(raw)
        damaged[i] ^= 0x01
        assert p.decode_frame(bytes(damaged)) is None
    assert p.decode_frame(raw[:-1]) is None and p.decode_frame(raw[:7]) is None


def test_command_codes_and_status_texts_match_the_c_side():
    header = (SERIAL / "serial_internal.h").read_text()
    c_codes = {m[0]: int(m[1], 16) for m in re.findall(r"MX_CMD_(\w+) = (0x[0-9A-Fa-f]+)", header)}
    c_codes.pop("COUNT")
    assert c_codes == p.COMMANDS
    assert max(p.COMMANDS.values()) == len(p.COMMANDS)  # dense: frame.c dispatches through a table
    defs = re.findall(r'X\((\w+),\s*(0x[0-9A-Fa-f]+),\s*"([^"]+)"\)', (SERIAL / "serial_errors.def").read_text())
    assert defs and all(p.status_text(int(code, 16)) == text for _, code, text in defs)
    assert all(0x0500 <= int(code, 16) < 0x0600 for _, code, _ in defs)  # apart from the runtime's errors
    assert p.status_text(0x0301) == "an operator in the program has no kernel in this build"
    assert (p.BAD_CRC, p.TOO_SHORT, p.TOO_LARGE) == tuple(
        int(code, 16)
        for name, code, _ in defs
        if name in ("MX_SERIAL_BAD_CRC", "MX_SERIAL_TOO_SHORT", "MX_SERIAL_TOO_LARGE")
    )
