"""Linker map files -> `MapInfo`: output sections with their addresses and load addresses, and the input
sections (object or archive member, address, size) that fill them.

Two formats: GNU ld's (arm-none-eabi-gcc boards) and lld's tabular one (clang boards). What each looks
like, and the quirks handled here:

GNU ld
    Discarded input sections            <- input sections removed by --gc-sections
    Memory Configuration                <- the MEMORY regions (name, origin, length, attributes)
    Linker script and memory map
    .text           0x00000040      0x310                  <- output section at column 0
     .text.mx_reset_handler                                <- input section at column 1; a long name
                    0x00000054       0xac dir/startup.c.obj   puts address, size, file on the next line
     *fill*         0x000001ce        0x2                  <- alignment padding
     COMMON         0x20000100       0x10 foo.o            <- common symbols
     .text          0x000002a8       0xa8 /x/libc_nano.a(lib_a-memset.o)   <- archive member
    .data           0x20000000        0x4 load address 0x010001a8
    Input-spec lines (` *(.text .text.*)`), symbol lines (address then name) and assignments are skipped.

lld
         VMA      LMA     Size Align Out     In      Symbol
    12000000 12000000      3dc     8 .text                       <- text in the "Out" column
    12000000 12000000       f8     8         dir/startup.c.obj:(.text.mx_reset_handler)   <- "In"
    12000001 12000001       f8     1                 mx_reset_handler                     <- "Symbol"
    lld prints no padding: the gaps between input sections become synthetic `*fill*` pieces here, so
    that every output section is covered exactly (see `_cover`). Merged strings and generated tables
    come from `<internal>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, List, Optional, Tuple, Union

from mcu_export.errors import UsageError

FILL = "*fill*"
_ARCHIVE_MEMBER = re.compile(r"^(?P<archive>.*\.a)\((?P<member>[^()]*)\)$")


@dataclass(frozen=True)
class InputSection:
    name: str  # ".text.foo", "COMMON", or "*fill*" (padding; object is "")
    address: int
    size: int
    object: str  # as the linker names it: "dir/x.c.obj", "/lib/libc.a(memset.o)", "<internal>"
    synthetic: bool = False  # a gap this parser filled in (lld prints no padding)

    @property
    def is_fill(self) -> bool:
        return self.name == FILL

    @property
    def archive(self) -> Optional[str]:
        m = _ARCHIVE_MEMBER.match(self.object)
        return m.group("archive") if m else None

    @property
    def member(self) -> Optional[str]:
        m = _ARCHIVE_MEMBER.match(self.object)
        return m.group("member") if m else None


@dataclass
class OutputSection:
    name: str
    address: int
    size: int
    load_address: int  # equals address unless the map names another one
    inputs: List[InputSection] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryRegion:
    name: str
    origin: int
    length: int
    attrs: str


@dataclass(frozen=True)
class ArchivePull:
    """Why the linker took an archive member: `by` (an object or member) referred to `symbol`."""

    member: str  # "/lib/libgcc.a(_arm_addsubdf3.o)"
    by: str
    symbol: str


@dataclass
class MapInfo:
    format: str  # "gnu" or "lld"
    outputs: List[OutputSection]
    discarded: List[InputSection] = field(default_factory=list)
    memory: List[MemoryRegion] = field(default_factory=list)  # GNU maps only
    pulls: List[ArchivePull] = field(default_factory=list)  # GNU maps only

    def output(self, name: str) -> OutputSection:
        for o in self.outputs:
            if o.name == name:
                return o
        raise KeyError(name)

    def inputs(self) -> Iterator[Tuple[OutputSection, InputSection]]:
        for o in self.outputs:
            for i in o.inputs:
                yield o, i


def parse_map(source: Union[str, Path]) -> MapInfo:
    """Parse a map file given as a path or as its text (text is anything containing a newline)."""
    if isinstance(source, Path) or "\n" not in source:
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"linker map {path} does not exist")
        text = path.read_text(errors="replace")
    else:
        text = source
    lines = text.splitlines()
    header = next((l for l in lines if l.strip()), "")
    info = (
        _parse_lld(lines)
        if re.match(r"^\s*(VMA|Address)\s+(LMA\s+)?Size\s+Align\s+Out\s+In\s+Symbol", header)
        else _parse_gnu(lines)
    )
    for o in info.outputs:
        o.inputs = _cover(o)
    return info


def _cover(out: OutputSection) -> List[InputSection]:
    """The output section's pieces in address order with every gap filled by padding, so that the pieces'
    sizes add up to the section's size (the linker's own `*fill*` lines already do this for GNU maps;
    lld's maps, and assignments like `. += STACK_SIZE`, leave gaps)."""
    pieces = sorted(out.inputs, key=lambda i: i.address)
    end = out.address + out.size
    cursor = out.address
    covered: List[InputSection] = []
    for p in pieces:
        if p.size and p.address > cursor and cursor < end:
            gap_end = min(p.address, end)
            covered.append(InputSection(FILL, cursor, gap_end - cursor, "", synthetic=True))
        covered.append(p)
        if p.size:
            cursor = max(cursor, p.address + p.size)
    if cursor < end:
        covered.append(InputSection(FILL, cursor, end - cursor, "", synthetic=True))
    return covered


# ---- GNU ld ------------------------------------------------------------------------------------------

_HEX = r"0x[0-9a-fA-F]+"
# address, size, then optionally "load address X" (output sections) or a file name (input sections)
_ADDR_SIZE = re.compile(
    rf"^\s+(?P<addr>{_HEX})\s+(?P<size>{_HEX})(?:\s+load address (?P<load>{_HEX}))?(?:\s+(?P<rest>.*?))?\s*$"
)
_OUT_LINE = re.compile(rf"^(?P<name>[^\s*][^\s]*)(?P<tail>\s+{_HEX}\s+{_HEX}.*)?$")
_IN_LINE = re.compile(rf"^ (?P<name>[^\s]+)(?P<tail>\s+{_HEX}\s+{_HEX}.*)?$")
_MEMORY_ROW = re.compile(rf"^(?P<name>\S+)\s+(?P<origin>{_HEX})\s+(?P<length>{_HEX})(?:\s+(?P<attrs>\S+))?\s*$")
_GNU_KEYWORDS = (
    "LOAD ",
    "OUTPUT(",
    "START GROUP",
    "END GROUP",
    "OUTPUT_FORMAT",
    "TARGET(",
    "INPUT(",
    "ENTRY(",
    "SEARCH_DIR",
)


def _parse_gnu(lines: List[str]) -> MapInfo:
    info = MapInfo(format="gnu", outputs=[])
    part = ""
    current: Optional[OutputSection] = None
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped in (
            _PULLS,
            "Discarded input sections",
            "Memory Configuration",
            "Linker script and memory map",
            "Cross Reference Table",
            "Allocating common symbols",
        ):
            part, current = stripped, None  # parts not named below (--cref's table) are skipped
        elif part == _PULLS:
            i = _gnu_pull(info, lines, i)
        elif part == "Memory Configuration":
            m = _MEMORY_ROW.match(line)
            if m and m.group("name") != "*default*":
                info.memory.append(
                    MemoryRegion(
                        m.group("name"), int(m.group("origin"), 16), int(m.group("length"), 16), m.group("attrs") or ""
                    )
                )
        elif part in ("Discarded input sections", "Linker script and memory map"):
            i, current = _gnu_line(info, lines, i, current, discarded=part.startswith("Discarded"))
        i += 1
    return info


_PULLS = "Archive member included to satisfy reference by file (symbol)"
_PULL_REASON = re.compile(r"^(?P<by>.*\S)\s+\((?P<symbol>[^()]*)\)$")


def _gnu_pull(info: MapInfo, lines: List[str], i: int) -> int:
    """`archive(member)` at column 0, then `by (symbol)` after it or, for long names, on the next line."""
    line = lines[i]
    if not line or line[0].isspace():
        return i
    member, _, rest = line.strip().partition("  ")
    if not rest.strip() and i + 1 < len(lines) and lines[i + 1][:1].isspace():
        i, rest = i + 1, lines[i + 1]
    m = _PULL_REASON.match(rest.strip())
    if m:
        info.pulls.append(ArchivePull(member, m.group("by"), m.group("symbol")))
    return i


def _tail(lines: List[str], i: int, tail: Optional[str]) -> Tuple[Optional[re.Match], int]:
    """Address/size part of an entry: on the same line, or (long names) alone on the next line."""
    if tail:
        return _ADDR_SIZE.match(tail), i
    if i + 1 < len(lines):
        m = _ADDR_SIZE.match(lines[i + 1])
        if m:
            return m, i + 1
    return None, i


def _gnu_line(
    info: MapInfo, lines: List[str], i: int, current: Optional[OutputSection], discarded: bool
) -> Tuple[int, Optional[OutputSection]]:
    line = lines[i]
    if not line.strip() or line.startswith(_GNU_KEYWORDS):
        return i, current
    out = None if discarded else _OUT_LINE.match(line)
    if out:
        m, i = _tail(lines, i, out.group("tail"))
        addr = int(m.group("addr"), 16) if m else 0
        size = int(m.group("size"), 16) if m else 0
        load = int(m.group("load"), 16) if m and m.group("load") else addr
        section = OutputSection(out.group("name"), addr, size, load)
        info.outputs.append(section)
        return i, section
    inp = _IN_LINE.match(line)
    if not inp or inp.group("name").startswith(("*(", "KEEP(", "KEEP (", "SORT", "*")) and inp.group("name") != FILL:
        return i, current  # input-spec lines such as ` *(.text .text.*)`
    m, i = _tail(lines, i, inp.group("tail"))
    if m is None:
        return i, current  # a spec like ` foo.o(.text)` with no address: not a placed section
    piece = InputSection(
        inp.group("name"),
        int(m.group("addr"), 16),
        int(m.group("size"), 16),
        "" if inp.group("name") == FILL else (m.group("rest") or "").strip(),
    )
    if discarded:
        info.discarded.append(piece)
    elif current is not None:
        current.inputs.append(piece)
    return i, current


# ---- lld ---------------------------------------------------------------------------------------------

_LLD_INPUT = re.compile(r"^(?P<object>.*):\((?P<section>[^()]*)\)$")


def _parse_lld(lines: List[str]) -> MapInfo:
    header = next(l for l in lines if l.strip())
    col_out, col_in, col_sym = header.index("Out"), header.index(" In ") + 1, header.index("Symbol")
    numbers = len(header[:col_out].split())  # VMA LMA Size Align (older lld: Address Size Align)
    info = MapInfo(format="lld", outputs=[])
    current: Optional[OutputSection] = None
    for line in lines[lines.index(header) + 1 :]:
        fields = line[:col_out].split()
        if len(fields) != numbers or len(line) <= col_out:
            continue
        try:
            values = [int(f, 16) for f in fields]
        except ValueError:
            continue
        vma, size = values[0], values[-2]
        lma = values[1] if numbers == 4 else vma
        text = line[col_out:]
        indent = len(text) - len(text.lstrip())
        text = text.strip()
        column = col_out + indent
        if column < col_in:
            if "=" in text:  # top-level assignment such as `__x = LOADADDR(.data)`
                continue
            current = OutputSection(text, vma, size, lma)
            info.outputs.append(current)
        elif column < col_sym and current is not None:
            m = _LLD_INPUT.match(text)
            if m:  # anything else here is an assignment (`. += 0x4000`), covered as fill
                current.inputs.append(InputSection(m.group("section"), vma, size, m.group("object")))
    return info
