"""A .pte's bytes in three parts: weights (the constants, used in place), delegate blobs (the other segments),
and the program's metadata (everything else: the flatbuffer, the extended header, alignment before the
segments). `make bench`'s flash table reports the metadata against the weights."""

from __future__ import annotations

from typing import Dict

from mcu_export.pte.reader import read_program


def pte_parts(data: bytes) -> Dict[str, int]:
    """{"weights", "delegates", "metadata"} in bytes; they sum to len(data). Weights are the constant segment
    (its entries and the 16-byte alignment between them) or, for a program with inline constants, the
    constant buffers' storage."""
    prog = read_program(data)
    seg = prog.constant_segment
    const_index = seg.segment_index if seg is not None and seg.offsets else None
    if const_index is not None:
        weights = prog.segments[const_index].size
    else:
        weights = sum(len(b) for b in prog.constant_buffer)
    delegates = sum(s.size for i, s in enumerate(prog.segments) if i != const_index)
    delegates += sum(len(b) for b in prog.backend_delegate_data)
    return {"weights": weights, "delegates": delegates, "metadata": len(data) - weights - delegates}
