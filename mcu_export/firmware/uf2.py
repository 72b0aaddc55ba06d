"""UF2 writer: 512-byte blocks, each carrying 256 bytes of the image at its flash address.

Block layout (all little-endian words): magic 0x0A324655, magic 0x9E5D5157, flags, target address,
payload size, block number, block count, family id (flag 0x2000 set), 476 data bytes of which the
first 256 are used, and the closing magic 0x0AB16F30.
"""

from __future__ import annotations

import struct
from typing import Iterator, NamedTuple

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID_PRESENT = 0x00002000
PAYLOAD = 256
BLOCK = 512


def to_uf2(image: bytes, base_address: int, family_id: int) -> bytes:
    count = (len(image) + PAYLOAD - 1) // PAYLOAD
    blocks = []
    for i in range(count):
        chunk = image[i * PAYLOAD : (i + 1) * PAYLOAD].ljust(PAYLOAD, b"\0")
        header = struct.pack(
            "<8I",
            MAGIC_START0,
            MAGIC_START1,
            FLAG_FAMILY_ID_PRESENT,
            base_address + i * PAYLOAD,
            PAYLOAD,
            i,
            count,
            family_id,
        )
        blocks.append(header + chunk.ljust(476, b"\0") + struct.pack("<I", MAGIC_END))
    return b"".join(blocks)


class Uf2Block(NamedTuple):
    flags: int
    address: int
    payload: bytes
    number: int
    count: int  # type: ignore[assignment]  # the UF2 field's name; shadows tuple.count, which nothing calls
    family_id: int


def read_uf2(data: bytes) -> Iterator[Uf2Block]:
    """Parse and check every block (used by tests and to verify what we wrote)."""
    if len(data) % BLOCK:
        raise ValueError(f"UF2 size {len(data)} is not a multiple of {BLOCK}")
    for off in range(0, len(data), BLOCK):
        m0, m1, flags, addr, size, number, count, family = struct.unpack_from("<8I", data, off)
        (end,) = struct.unpack_from("<I", data, off + 508)
        if (m0, m1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise ValueError(f"UF2 block {off // BLOCK}: bad magic")
        if size > 476:
            raise ValueError(f"UF2 block {off // BLOCK}: payload size {size}")
        yield Uf2Block(flags, addr, data[off + 32 : off + 32 + size], number, count, family)
