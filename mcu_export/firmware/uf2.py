"""UF2 writer (https://github.com/microsoft/uf2): 512-byte blocks, each carrying 256 bytes of the image at its flash
address.

Block layout (all little-endian words): magic 0x0A324655, magic 0x9E5D5157, flags, target address, payload size,
block number, block count, family id (flag 0x2000 set), 476 data bytes of which the first 256 are used (the RP2040
and RP2350 boot ROMs take 256-byte payloads only, one flash page each), and the closing magic 0x0AB16F30.

RP2350-E10 (RP2350 datasheet, errata): on A2 silicon a drag-and-drop fails when the flash holds a partition table.
With `abs_block` the file starts as picotool's `--abs-block` makes it: one block of the "absolute" family
(0xe48bff57) at that address, numbered 0 of 2 (a download of its own, so the image's own numbering is unchanged),
its 256 bytes 0xef, and the RP2 "ignore block" extension tag (flag 0x8000) so that the boot ROM writes nothing.
"""

from __future__ import annotations

import struct
from typing import Iterator, NamedTuple, Optional

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID_PRESENT = 0x00002000
FLAG_EXTENSION_TAGS_PRESENT = 0x00008000
EXTENSION_RP2_IGNORE_BLOCK = 0x9957E304  # tag: size 4, type 0x9957e3 (pico-sdk boot/uf2.h)
ABSOLUTE_FAMILY_ID = 0xE48BFF57
PAYLOAD = 256
DATA = 476
BLOCK = 512


def _block(flags: int, address: int, number: int, count: int, family_id: int, data: bytes) -> bytes:
    header = struct.pack("<8I", MAGIC_START0, MAGIC_START1, flags, address, PAYLOAD, number, count, family_id)
    return header + data.ljust(DATA, b"\0") + struct.pack("<I", MAGIC_END)


def e10_block(address: int) -> bytes:
    """The RP2350-E10 block (module docstring)."""
    data = b"\xef" * PAYLOAD + struct.pack("<I", EXTENSION_RP2_IGNORE_BLOCK)
    flags = FLAG_FAMILY_ID_PRESENT | FLAG_EXTENSION_TAGS_PRESENT
    return _block(flags, address, 0, 2, ABSOLUTE_FAMILY_ID, data)


def to_uf2(image: bytes, base_address: int, family_id: int, *, abs_block: Optional[int] = None) -> bytes:
    """`image` stored from `base_address` on (256-byte aligned: each block is one whole flash page)."""
    if base_address % PAYLOAD:
        raise ValueError(f"UF2 base address 0x{base_address:x} is not {PAYLOAD}-byte aligned")
    count = (len(image) + PAYLOAD - 1) // PAYLOAD
    blocks = [e10_block(abs_block)] if abs_block is not None else []
    for i in range(count):
        chunk = image[i * PAYLOAD : (i + 1) * PAYLOAD].ljust(PAYLOAD, b"\0")
        blocks.append(_block(FLAG_FAMILY_ID_PRESENT, base_address + i * PAYLOAD, i, count, family_id, chunk))
    return b"".join(blocks)


class Uf2Block(NamedTuple):
    flags: int
    address: int
    payload: bytes
    number: int
    count: int  # type: ignore[assignment]  # the UF2 field's name; shadows tuple.count, which nothing calls
    family_id: int
    extension: bytes = b""  # the data bytes after the payload when flag 0x8000 is set (extension tags)


def read_uf2(data: bytes) -> Iterator[Uf2Block]:
    """Parse and check every block (used by tests and to verify what we wrote)."""
    if len(data) % BLOCK:
        raise ValueError(f"UF2 size {len(data)} is not a multiple of {BLOCK}")
    for off in range(0, len(data), BLOCK):
        m0, m1, flags, addr, size, number, count, family = struct.unpack_from("<8I", data, off)
        (end,) = struct.unpack_from("<I", data, off + 508)
        if (m0, m1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise ValueError(f"UF2 block {off // BLOCK}: bad magic")
        if size > DATA:
            raise ValueError(f"UF2 block {off // BLOCK}: payload size {size}")
        tags = data[off + 32 + size : off + 32 + DATA] if flags & FLAG_EXTENSION_TAGS_PRESENT else b""
        yield Uf2Block(flags, addr, data[off + 32 : off + 32 + size], number, count, family, tags)
