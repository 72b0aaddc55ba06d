"""The processed blob of an Ethos-U delegate, laid out as ExecuTorch's Arm backend writes it
(`executorch/backends/arm/arm_vela.py` in the 1.5.1 wheel, read by its VelaBinStream.cpp), so that .pte
files interoperate both ways.

A blob is a run of named blocks, in this order: `vela_bin_stream` (empty), `cmd_data` (the driver payload
Vela writes), `weight_data`, `scratch_size` (u32), `inputs`, `outputs`, `vela_end_stream` (empty). Each block
is a 32-byte header — the name NUL-padded to 16 bytes, the u32 length of the data, a u8 external flag (1: the
data is the key of named data stored elsewhere in the program), 11 reserved bytes — then the data,
zero-padded to a multiple of 16 bytes. `inputs`/`outputs` are an i32 count then, per tensor, nine i32: Vela's
6-D shape, the element size, the byte offset and the region (Vela's memory region number).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from mcu_export.errors import UsageError

BACKEND_ID = "EthosUBackend"  # BackendDelegate.id of ExecuTorch's Arm Ethos-U backend
BLOCKS = ("vela_bin_stream", "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", "vela_end_stream")
ALIGNMENT = 16
_HEADER = struct.Struct("<16sIB11s")
_IO = struct.Struct("<9i")
_SHAPE_DIMS = 6


class BlobError(UsageError):
    """A blob that does not follow the layout; the message names the block and what is wrong."""


@dataclass(frozen=True)
class IoRecord:
    shape: Tuple[int, int, int, int, int, int]  # Vela's 6-D shape
    elem_size: int
    offset: int  # byte offset in its region
    region: int  # Vela memory region (1: scratch, 2: fast scratch, by Vela's convention)


@dataclass
class VelaBlob:
    cmd_data: bytes
    weight_data: bytes
    scratch_size: int
    inputs: List[IoRecord] = field(default_factory=list)
    outputs: List[IoRecord] = field(default_factory=list)


@dataclass(frozen=True)
class Block:
    name: str
    offset: int  # of the data, from the start of the blob
    length: int  # unpadded
    external: bool


def _pad(n: int) -> int:
    return -n % ALIGNMENT


def pack_io(records: Sequence[IoRecord]) -> bytes:
    out = struct.pack("<i", len(records))
    for r in records:
        if len(r.shape) != _SHAPE_DIMS:
            raise BlobError(f"Ethos-U blob: an I/O shape must have {_SHAPE_DIMS} dims, got {list(r.shape)}")
        out += _IO.pack(*r.shape, r.elem_size, r.offset, r.region)
    return out


def pack(blob: VelaBlob) -> bytes:
    data: Dict[str, bytes] = {
        "vela_bin_stream": b"",
        "cmd_data": bytes(blob.cmd_data),
        "weight_data": bytes(blob.weight_data),
        "scratch_size": struct.pack("<I", blob.scratch_size),
        "inputs": pack_io(blob.inputs),
        "outputs": pack_io(blob.outputs),
        "vela_end_stream": b"",
    }
    parts = []
    for name in BLOCKS:
        payload = data[name]
        parts.append(_HEADER.pack(name.encode(), len(payload), 0, bytes(11)) + payload + bytes(_pad(len(payload))))
    return b"".join(parts)


def blocks(blob: bytes) -> List[Block]:
    """The blocks of a blob, checked against the layout (names, order, lengths inside the blob)."""
    found: List[Block] = []
    at = 0
    while at < len(blob):
        if len(blob) - at < _HEADER.size:
            raise BlobError(f"Ethos-U blob: {len(blob) - at} bytes after block {len(found)}, less than a header")
        raw_name, length, external, _ = _HEADER.unpack_from(blob, at)
        name = raw_name.split(b"\0", 1)[0].decode("ascii", errors="replace")
        start = at + _HEADER.size
        if length > len(blob) - start:
            raise BlobError(f"Ethos-U blob: block '{name}' claims {length} bytes, {len(blob) - start} remain")
        found.append(Block(name, start, length, external == 1))
        at = start + length + _pad(length)
    names = [b.name for b in found]
    if names != list(BLOCKS):
        raise BlobError(f"Ethos-U blob: blocks {names}, expected {list(BLOCKS)}")
    return found


def _unpack_io(name: str, data: bytes) -> List[IoRecord]:
    if len(data) < 4:
        raise BlobError(f"Ethos-U blob: block '{name}' is {len(data)} bytes, too short for its count")
    (count,) = struct.unpack_from("<i", data)
    if count < 0 or len(data) != 4 + count * _IO.size:
        raise BlobError(f"Ethos-U blob: block '{name}' holds {len(data)} bytes for {count} tensor records")
    records = []
    for i in range(count):
        v = _IO.unpack_from(data, 4 + i * _IO.size)
        records.append(IoRecord(tuple(v[:6]), v[6], v[7], v[8]))
    return records


def unpack(blob: bytes) -> VelaBlob:
    found = {b.name: b for b in blocks(blob)}
    external = [b.name for b in found.values() if b.external]
    if external:
        raise BlobError(f"Ethos-U blob: blocks {external} are stored outside the blob (named data): not supported")

    def data(name: str) -> bytes:
        b = found[name]
        return blob[b.offset : b.offset + b.length]

    scratch = data("scratch_size")
    if len(scratch) != 4:
        raise BlobError(f"Ethos-U blob: block 'scratch_size' is {len(scratch)} bytes, expected 4")
    return VelaBlob(
        cmd_data=data("cmd_data"),
        weight_data=data("weight_data"),
        scratch_size=struct.unpack("<I", scratch)[0],
        inputs=_unpack_io("inputs", data("inputs")),
        outputs=_unpack_io("outputs", data("outputs")),
    )
