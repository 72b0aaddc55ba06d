"""Bounds-checked access to flatbuffer bytes, for reading files we did not write.

Every offset, vtable and vector length is checked against the buffer before use; a problem raises
PteFormatError naming `Table.field[index]`. Work is bounded by a byte budget proportional to the file
size: a file whose offsets point many times at the same large object (or back at themselves) is
rejected instead of making the reader loop or blow up memory. uoffsets are unsigned and point forward,
so the only way to revisit a position is a zero offset (rejected) or sharing (charged to the budget).
"""

from __future__ import annotations

import struct
from typing import List, Optional, Tuple

from mcu_export.errors import PteFormatError
from mcu_export.pte.fbs import slots

_SIZE = {"b": 1, "B": 1, "?": 1, "h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "Q": 8, "d": 8}


def fail(where: str, problem: str) -> PteFormatError:
    return PteFormatError(f"malformed .pte: {where}: {problem}")


class FlatView:
    def __init__(self, data: bytes, budget_factor: int = 4):
        self.data = data
        self.size = len(data)
        self.budget = budget_factor * self.size + 4096

    def spend(self, nbytes: int, where: str) -> None:
        self.budget -= nbytes
        if self.budget < 0:
            raise fail(where, "offsets revisit the same data too often (cyclic or shared offsets)")

    def scalar(self, fmt: str, pos: int, where: str):
        n = _SIZE[fmt]
        if pos < 0 or pos + n > self.size:
            raise fail(where, f"{n}-byte read at 0x{pos:x} past end of file (size 0x{self.size:x})")
        return struct.unpack_from("<" + fmt, self.data, pos)[0]

    def deref(self, pos: int, where: str) -> int:
        """Follow the uoffset stored at `pos`; the target must lie inside the buffer."""
        rel = self.scalar("I", pos, where)
        if rel == 0:
            raise fail(where, f"offset at 0x{pos:x} points at itself (cyclic)")
        target = pos + rel
        if target >= self.size:
            raise fail(where, f"offset 0x{target:x} past end of file (size 0x{self.size:x})")
        return target

    def table_at(self, pos: int, name: str, where: str) -> "Table":
        return Table(self, pos, name, where)

    def vector_at(self, pos: int, elem_size: int, where: str) -> Tuple[int, int]:
        """(start of elements, count) of the vector at `pos`, its bytes checked to be in the buffer."""
        n = self.scalar("I", pos, where)
        end = pos + 4 + n * elem_size
        if end > self.size:
            raise fail(
                where, f"vector of {n} x {elem_size} bytes at 0x{pos:x} runs past end of file (size 0x{self.size:x})"
            )
        self.spend(4 + n * elem_size, where)
        return pos + 4, n


class Table:
    def __init__(self, view: FlatView, pos: int, name: str, where: str):
        self.view, self.pos, self.name, self.where = view, pos, name, where
        self.slots = slots(name)
        soff = view.scalar("i", pos, where)
        vt = pos - soff
        if vt < 0 or vt + 4 > view.size:
            raise fail(where, f"{name} vtable at 0x{vt:x} outside the file (size 0x{view.size:x})")
        self.vt = vt
        self.vt_len = view.scalar("H", vt, where)
        self.obj_len = view.scalar("H", vt + 2, where)
        if self.vt_len < 4 or self.vt_len % 2 or vt + self.vt_len > view.size:
            raise fail(where, f"{name} vtable at 0x{vt:x} has bad length {self.vt_len}")
        if self.obj_len < 4 or pos + self.obj_len > view.size:
            raise fail(
                where, f"{name} table at 0x{pos:x} of {self.obj_len} bytes runs past end of file (size 0x{view.size:x})"
            )
        view.spend(self.obj_len, where)

    def _where(self, field: str, index: Optional[int] = None) -> str:
        return f"{self.name}.{field}" + (f"[{index}]" if index is not None else "")

    def field_pos(self, field: str, nbytes: int) -> Optional[int]:
        voff = 4 + 2 * self.slots[field]
        if voff + 2 > self.vt_len:
            return None
        off = self.view.scalar("H", self.vt + voff, self._where(field))
        if off == 0:
            return None
        # The field must lie in the file (every read below is bounds-checked), not within the vtable's declared
        # inline size: flatbuffers 25.2.10's Python builder (used by ExecuTorch's serializer here) shares vtables
        # between tables of different sizes, and flatbuffers' own verifier accepts such files too.
        return self.pos + off

    def scalar(self, field: str, fmt: str, default=0):
        pos = self.field_pos(field, _SIZE[fmt])
        return default if pos is None else self.view.scalar(fmt, pos, self._where(field))

    def ref(self, field: str) -> Optional[int]:
        pos = self.field_pos(field, 4)
        return None if pos is None else self.view.deref(pos, self._where(field))

    def table(self, field: str, name: str) -> Optional["Table"]:
        pos = self.ref(field)
        return None if pos is None else self.view.table_at(pos, name, self._where(field))

    def scalars(self, field: str, fmt: str) -> Optional[List]:
        pos = self.ref(field)
        if pos is None:
            return None
        start, n = self.view.vector_at(pos, _SIZE[fmt], self._where(field))
        return list(struct.unpack_from(f"<{n}{fmt}", self.view.data, start))

    def raw(self, field: str) -> Optional[bytes]:
        pos = self.ref(field)
        if pos is None:
            return None
        start, n = self.view.vector_at(pos, 1, self._where(field))
        return bytes(self.view.data[start : start + n])

    def string(self, field: str) -> Optional[str]:
        data = self.raw(field)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise fail(self._where(field), f"string is not UTF-8 ({e.reason} at byte {e.start})") from None

    def tables(self, field: str, name: str) -> Optional[List["Table"]]:
        pos = self.ref(field)
        if pos is None:
            return None
        start, n = self.view.vector_at(pos, 4, self._where(field))
        out = []
        for i in range(n):
            where = self._where(field, i)
            out.append(self.view.table_at(self.view.deref(start + 4 * i, where), name, where))
        return out
