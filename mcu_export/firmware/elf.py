"""The little of ELF32 (little-endian) the firmware tools need: section headers, loadable segments and symbols."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Union

from mcu_export.errors import ToolchainError


@dataclass(frozen=True)
class Section:
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int

    @property
    def allocated(self) -> bool:
        return bool(self.flags & 0x2)  # SHF_ALLOC


@dataclass(frozen=True)
class Segment:
    """A PT_LOAD program header: `data` is stored at `paddr` (the load address: flash for .data) and runs at `vaddr`."""

    vaddr: int
    paddr: int
    data: bytes
    memsz: int


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    size: int
    kind: int  # STT_*: 1 object, 2 function

    @property
    def address(self) -> int:
        """The symbol's address without the Thumb bit of function symbols."""
        return self.value & ~1 if self.kind == 2 else self.value


class Elf:
    def __init__(self, path: Union[str, Path]):
        self.path = Path(path)
        self.data = self.path.read_bytes()
        if self.data[:4] != b"\x7fELF" or self.data[4] != 1 or self.data[5] != 1:
            raise ToolchainError(f"{self.path}: not a little-endian 32-bit ELF file")
        (shoff,) = struct.unpack_from("<I", self.data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", self.data, 0x2E)
        raw = [struct.unpack_from("<10I", self.data, shoff + i * shentsize) for i in range(shnum)]
        names = raw[shstrndx]
        self.sections: Dict[str, Section] = {}
        self._raw = raw
        for h in raw:
            name = self._string(names[4], h[0])
            self.sections[name] = Section(name, h[1], h[2], h[3], h[4], h[5])

    def _string(self, table_offset: int, index: int) -> str:
        start = table_offset + index
        return self.data[start : self.data.index(b"\0", start)].decode()

    def symbols(self) -> Dict[str, Symbol]:
        out: Dict[str, Symbol] = {}
        for h in self._raw:
            if h[1] != 2:  # SHT_SYMTAB
                continue
            strtab = self._raw[h[6]][4]
            for off in range(h[4], h[4] + h[5], 16):
                name_i, value, size, info, _other, _shndx = struct.unpack_from("<IIIBBH", self.data, off)
                if name_i:
                    name = self._string(strtab, name_i)
                    out.setdefault(name, Symbol(name, value, size, info & 0xF))
        return out

    def segments(self) -> List[Segment]:
        (phoff,) = struct.unpack_from("<I", self.data, 0x1C)
        phentsize, phnum = struct.unpack_from("<HH", self.data, 0x2A)
        out = []
        for i in range(phnum):
            kind, offset, vaddr, paddr, filesz, memsz = struct.unpack_from("<6I", self.data, phoff + i * phentsize)
            if kind == 1:  # PT_LOAD
                out.append(Segment(vaddr, paddr, self.data[offset : offset + filesz], memsz))
        return out

    def section_bytes(self, name: str) -> bytes:
        s = self.sections[name]
        return self.data[s.offset : s.offset + s.size]


def symbolizer(elf: Union[str, Path]) -> Callable[[int], Optional[str]]:
    """PC → the name of the ELF function holding it (None outside every function), for fault reports."""
    functions = [s for s in Elf(elf).symbols().values() if s.kind == 2 and s.size]

    def name_of(pc: int) -> Optional[str]:
        for s in functions:
            if s.address <= pc < s.address + s.size:
                return s.name
        return None

    return name_of
