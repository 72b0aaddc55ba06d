"""Firmware size accounting: where the flash and RAM of a build go, and whether a model fits a board.

`size_report(parse_map(...), board)` gives `report.json`'s `firmware` entry:
    flash = text + rodata + data's load image;   ram = data + bss + arenas + stack
each split into CATEGORIES, plus every memory region's use against its length.

Categories come from the folders of the generated firmware project (model_project.py copies runtime_c's
core to runtime/src/, the used kernels to runtime/kernels/, writes model/; build.py copies board/) and
from section names. The rules are the table
`RULES`, tried in order; the first match wins. Padding (`*fill*`) belongs to the piece it aligns (the next
one in its output section, else the previous one), and a section with nothing but padding (the stack)
takes its section's own category.

`estimate_demands` + `check_fit` run before the linker: the user reads "region dtcm needs N bytes (...),
has M: K bytes over" rather than ld's "region overflowed".
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union, cast

from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import UsageError
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.mapfile import InputSection, MapInfo, OutputSection

CATEGORIES = ("runtime", "kernels", "model_data", "arenas", "startup_libc", "stack", "other")


class FirmwareTooLarge(UsageError):
    """A model whose firmware needs more bytes in a memory region than the board has."""

    def __init__(self, message: str, board: str, overs: List[Tuple[str, int, int]]):
        super().__init__(message)
        self.board = board
        self.overs = overs  # (region, needed, length) for each region over


# ---- classification ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    category: str
    field: str  # "section": input or output section name; "object": the object's project path
    pattern: str
    data_only: bool  # only for non-code input sections (model/'s arrays, not model/main.c's code)
    why: str

    def matches(self, out: OutputSection, piece: InputSection) -> bool:
        if self.data_only and _is_code(piece.name or out.name):
            return False
        if self.field == "section":
            return any(re.search(self.pattern, n) for n in (piece.name, out.name) if n and n != "*fill*")
        return bool(piece.object) and re.search(self.pattern, _project_path(piece.object)) is not None


RULES: Tuple[Rule, ...] = (
    Rule("arenas", "section", r"^\.mx_arena(\.|$)", False, "planned arenas: firmware.ld's .mx_arena.<region>"),
    Rule("stack", "section", r"^\.stack$", False, "the main stack that firmware.ld reserves (painted at reset)"),
    Rule(
        "model_data",
        "section",
        r"(^|\.)mx_model(\.|$)",
        False,
        "the embedded .pte (firmware.ld's .mx_model.<region>, or .rodata.mx_model), used in place",
    ),
    # Kernels before the runtime: the model project copies them under runtime/kernels/.
    Rule("kernels", "object", r"(^|/)(kernels|cmsis_nn[^/]*)/", False, "portable and CMSIS-NN kernels, their util/"),
    Rule("runtime", "object", r"(^|/)runtime/", False, "the runtime core: runtime_c/src, copied to runtime/src/"),
    Rule("model_data", "object", r"(^|/)model/", True, "generated arrays: arenas, kernel table, meta pool"),
    Rule("startup_libc", "object", r"(^|/)board/", False, "startup, vectors, UART, semihosting (boards/<family>)"),
    Rule(
        "startup_libc",
        "object",
        r"(^|/)lib(c|c_nano|g|g_nano|m|gcc|nosys|clang_rt[^/]*)\.a\(",
        False,
        "newlib, libm, libgcc, compiler-rt archive members",
    ),
    Rule("startup_libc", "object", r"(^|/)crt[^/]*\.o$", False, "C runtime start files"),
    Rule("startup_libc", "object", r"^linker stubs$", False, "veneers and glue made by the linker"),
)


def _project_path(obj: str) -> str:
    """An object's path inside the project: CMake's `CMakeFiles/<target>.dir/` prefix removed."""
    at = obj.rfind(".dir/")
    return obj[at + 5 :] if at >= 0 and "(" not in obj[at:] else obj


def _short(obj: str) -> str:
    """`libgcc.a(_udivmoddi4.o)` or a project path, without the toolchain's or CMake's directories."""
    m = re.match(r"^(?:.*/)?([^/]+\.a\([^()]*\))$", obj)
    return m.group(1) if m else _project_path(obj)


def _is_code(section: str) -> bool:
    return section.startswith((".text", ".vectors", ".mx_vectors", ".glue", ".ARM.exidx", ".iplt", ".init", ".fini"))


def classify(out: OutputSection, piece: InputSection) -> str:
    for rule in RULES:
        if rule.matches(out, piece):
            return rule.category
    return "other"


def _section_category(out: OutputSection) -> str:
    return classify(out, InputSection("*fill*", out.address, out.size, ""))


def _piece_categories(out: OutputSection) -> List[Tuple[str, int]]:
    """(category, bytes) for each piece; padding goes with its neighbour."""
    pieces = out.inputs
    cats: List[Optional[str]] = [None if p.is_fill else classify(out, p) for p in pieces]
    for k in range(len(pieces)):
        if cats[k] is None:
            after = next((cats[j] for j in range(k + 1, len(pieces)) if not pieces[j].is_fill), None)
            before = next((cats[j] for j in range(k - 1, -1, -1) if not pieces[j].is_fill), None)
            cats[k] = after or before or _section_category(out)
    # Pieces may overlap in odd maps (e.g. relaxed sections): count each byte of the section once.
    end, cursor = out.address + out.size, out.address
    result: List[Tuple[str, int]] = []
    for cat, p in zip(cast(List[str], cats), pieces):  # every None was filled above
        lo, hi = max(p.address, cursor), min(p.address + p.size, end)
        if hi > lo:
            result.append((cat, hi - lo))
            cursor = hi
    covered = sum(n for _, n in result)
    if covered < out.size:
        result.append((_section_category(out), out.size - covered))
    return result


# ---- section kinds ------------------------------------------------------------------------------------

# Section kinds: code / rodata (flash), data (flash load image + RAM), nobits (RAM only), nonalloc.
# Used when no ELF is at hand; they agree with the flags GCC and clang give these sections (the vector
# table and .ARM.exidx are read-only data, not code). First match wins.
_KIND_BY_NAME = (
    (
        "nonalloc",
        r"^\.(debug|comment$|ARM\.attributes$|stab|gnu\.attributes$|gnu\.build\.attributes$|symtab$|"
        r"strtab$|shstrtab$|line$)|^/DISCARD/$",
    ),
    ("nobits", r"^\.(bss|sbss|tbss|noinit|stack|heap|mx_arena)(\.|$)|^COMMON$"),
    ("data", r"^\.(data|sdata|tdata|got|igot)(\.|$)"),
    ("code", r"^\.(text|glue|iplt|plt|init|fini)(\.|$)"),
    ("rodata", r"^\.(rodata|vectors|ARM\.exidx|ARM\.extab|mx_model|rel|init_array|fini_array|preinit_array)(\.|$)"),
)
_SHF_WRITE, _SHF_ALLOC, _SHF_EXEC, _SHT_NOBITS = 0x1, 0x2, 0x4, 8


def _kind_from_flags(flags: int, sh_type: int) -> str:
    if not flags & _SHF_ALLOC:
        return "nonalloc"
    if sh_type == _SHT_NOBITS:
        return "nobits"
    return "data" if flags & _SHF_WRITE else ("code" if flags & _SHF_EXEC else "rodata")


def _region_of(board: Board, address: int):
    for r in board.memory:
        if r.origin <= address < r.origin + r.length:
            return r
    return None


def _section_kind(out: OutputSection, board: Board, elf: Optional[Elf]) -> str:
    if elf is not None:
        s = elf.sections.get(out.name)
        return _kind_from_flags(s.flags, s.type) if s is not None else "nonalloc"
    for kind, pattern in _KIND_BY_NAME:
        if re.search(pattern, out.name):
            return kind
    region = _region_of(board, out.address)
    if region is None:
        return "nonalloc"
    if not region.writable:
        return "rodata"
    return "data" if out.load_address != out.address else "nobits"


# ---- the report ---------------------------------------------------------------------------------------


def size_report(map_info: MapInfo, board: Union[Board, str], elf: Union[None, str, Path, Elf] = None) -> dict:
    """`report.json`'s `firmware` entry. Section kinds come from the ELF's section flags when `elf` is
    given, else from section names (the names firmware.ld uses) and the board's regions."""
    board = load_firmware_board(board)
    elf = Elf(elf) if isinstance(elf, (str, Path)) else elf
    flash: Dict[str, Any] = {"total": 0, "text": 0, "rodata": 0, "data": 0, "categories": dict.fromkeys(CATEGORIES, 0)}
    ram: Dict[str, Any] = {
        "total": 0,
        "data": 0,
        "bss": 0,
        "arenas": 0,
        "stack": 0,
        "categories": dict.fromkeys(CATEGORIES, 0),
    }
    used = dict.fromkeys((r.name for r in board.memory), 0)
    sections, outside = [], []
    for out in map_info.outputs:
        kind = _section_kind(out, board, elf)
        if kind == "nonalloc" or out.size == 0:
            continue
        region, load_region = _region_of(board, out.address), _region_of(board, out.load_address)
        in_flash, in_ram = kind != "nobits", kind in ("data", "nobits")
        split = _piece_categories(out)
        for cat, n in split:
            if in_flash:
                flash["categories"][cat] += n
            if in_ram:
                ram["categories"][cat] += n
        if in_flash:
            flash["total"] += out.size
            flash[{"code": "text", "rodata": "rodata", "data": "data"}[kind]] += out.size
        if in_ram:
            ram["total"] += out.size
            ram_key = (
                "data" if kind == "data" else {"arenas": "arenas", "stack": "stack"}.get(_section_category(out), "bss")
            )
            ram[ram_key] += out.size
        for r in {region, load_region if kind != "nobits" else None} - {None}:
            used[r.name] += out.size
        if region is None:
            outside.append(out.name)
        sections.append(
            {
                "name": out.name,
                "kind": kind,
                "address": out.address,
                "load_address": out.load_address,
                "size": out.size,
                "region": region.name if region else None,
                "load_region": load_region.name if load_region and kind != "nobits" else None,
            }
        )
    ram["parts"] = ram_parts(ram["categories"])
    regions = []
    for r in board.memory:
        regions.append(
            {
                "name": r.name,
                "origin": r.origin,
                "length": r.length,
                "flash": not r.writable,
                "used": used[r.name],
                "free": r.length - used[r.name],
                "percent": round(100.0 * used[r.name] / r.length, 2),
            }
        )
    return {
        "board": board.name,
        "map_format": map_info.format,
        "flash_bytes": flash["total"],
        "ram_bytes": ram["total"],
        "flash": flash,
        "ram": ram,
        "regions": regions,
        "sections": sections,
        "outside_regions": outside,
        # Why each library member is in the image (GNU maps): what a libc/libgcc byte costs, and for whom.
        "pulled_in": [{"member": _short(p.member), "by": _short(p.by), "symbol": p.symbol} for p in map_info.pulls],
        "stack_size": board.stack_size,
        "stack_used_bytes": None,
    }  # filled by the runner from the firmware's stack painting


def ram_parts(categories: Mapping[str, int]) -> Dict[str, int]:
    """RAM as one figure's parts, which sum to ram.total: the planned arenas; the runtime's state (the
    metadata pool the loader carves, the program and method structs, runtime and kernel statics); the stack
    (the call-graph analysis' reservation, mcu_export/firmware/stack.py); startup and libc; the rest."""
    return {
        "arena": categories["arenas"],
        "runtime_metadata": categories["model_data"] + categories["runtime"] + categories["kernels"],
        "stack": categories["stack"],
        "startup_libc": categories["startup_libc"],
        "other": categories["other"],
    }


# ---- fitting a model to a board, before the linker ----------------------------------------------------


class Demands(dict):
    """region -> bytes, with `parts`: region -> {what: bytes} for the message of `check_fit`."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: Dict[str, Dict[str, int]] = {}

    def add(self, region: str, what: str, n: int) -> None:
        if n <= 0:
            return
        self[region] = self.get(region, 0) + n
        region_parts = self.parts.setdefault(region, {})
        region_parts[what] = region_parts.get(what, 0) + n

    @property
    def what(self) -> Dict[str, str]:
        return {r: " + ".join(f"{k} {v}" for k, v in p.items()) for r, p in self.parts.items()}


def estimate_demands(
    board: Union[Board, str],
    pte_bytes: int,
    arena_bytes_per_region: Mapping[str, int],
    code_bytes_estimate: Union[int, Mapping[str, int]] = 0,
    *,
    pte_region: Optional[str] = None,
) -> Demands:
    """Bytes per region that the firmware will need, from the board's section placement: each arena in its
    region, the stack in the stack region, code in the text region, and the .pte in `pte_region` (the
    region the project generator chose) or else the first of the board's model regions (`sections.model`,
    default the rodata region) where it fits beside the rest. code_bytes_estimate is an int (all in the
    text region) or `object_sizes(...)`'s dict (text, rodata, data, bss placed like the linker)."""
    board = load_firmware_board(board)
    s = board.sections
    d = Demands()
    if isinstance(code_bytes_estimate, Mapping):
        d.add(s.text, "code", code_bytes_estimate.get("text", 0))
        d.add(s.rodata, "rodata", code_bytes_estimate.get("rodata", 0))
        d.add(s.data_load, "data", code_bytes_estimate.get("data", 0))
        d.add(s.data, "data", code_bytes_estimate.get("data", 0))
        d.add(s.bss, "bss", code_bytes_estimate.get("bss", 0))
    else:
        d.add(s.text, "code", int(code_bytes_estimate))
    for region, n in arena_bytes_per_region.items():
        if region not in s.arenas:
            raise UsageError(
                f"board '{board.name}' has no arena region '{region}' (arena regions: {', '.join(s.arenas) or 'none'})"
            )
        d.add(region, "arena", n)
    d.add(s.stack, "stack", board.stack_size)
    d.add(pte_region or _first_fit(board, d, pte_bytes), "pte", pte_bytes)
    return d


def _first_fit(board: Board, taken: Mapping[str, int], n: int) -> str:
    candidates = tuple(getattr(board.sections, "model", ())) or (board.sections.rodata,)
    for region in candidates:
        if taken.get(region, 0) + n <= board.region(region).length:
            return region
    return candidates[0]  # fits nowhere: report it against the preferred region


def check_fit(board: Union[Board, str], demands: Mapping[str, int], what: Optional[Mapping[str, str]] = None) -> None:
    """Raise FirmwareTooLarge (one line) when a region's demand exceeds its length."""
    board = load_firmware_board(board)
    if what is None:
        what = getattr(demands, "what", {})
    names = [r.name for r in board.memory]
    for region in demands:
        if region not in names:
            raise UsageError(f"board '{board.name}' has no memory region '{region}' (regions: {', '.join(names)})")
    overs = [
        (r.name, demands[r.name], r.length) for r in board.memory if r.name in demands and demands[r.name] > r.length
    ]
    if not overs:
        return
    texts = []
    for region, need, length in overs:
        detail = f" ({what[region]})" if what.get(region) else ""
        texts.append(f"region {region} needs {need} bytes{detail}, has {length}: {need - length} bytes over")
    raise FirmwareTooLarge(f"model does not fit board '{board.name}': " + "; ".join(texts), board.name, overs)


# ---- compiled objects, before linking -----------------------------------------------------------------


def _elf_alloc_sizes(data: bytes, sizes: Dict[str, int]) -> None:
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        return  # not ELF32 little-endian (e.g. an archive's symbol index)
    (shoff,) = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    for k in range(shnum):
        _name, sh_type, flags, _addr, _off, size = struct.unpack_from("<6I", data, shoff + k * shentsize)
        kind = _kind_from_flags(flags, sh_type)
        if kind != "nonalloc":
            sizes[{"code": "text", "rodata": "rodata", "data": "data", "nobits": "bss"}[kind]] += size


def _archive_members(data: bytes) -> Iterable[bytes]:
    pos = 8  # after "!<arch>\n"
    while pos + 60 <= len(data):
        size = int(data[pos + 48 : pos + 58].decode().strip())
        yield data[pos + 60 : pos + 60 + size]
        pos += 60 + size + (size & 1)


def object_sizes(paths: Iterable[Union[str, Path]]) -> Dict[str, int]:
    """text / rodata / data / bss summed over compiled objects and archives (every member), from their
    ELF section headers. Before --gc-sections: an upper bound of what the linker keeps."""
    sizes = dict.fromkeys(("text", "rodata", "data", "bss"), 0)
    for p in paths:
        data = Path(p).read_bytes()
        if data.startswith(b"!<arch>\n"):
            for member in _archive_members(data):
                _elf_alloc_sizes(member, sizes)
        elif data[:4] == b"\x7fELF":
            _elf_alloc_sizes(data, sizes)
        else:
            raise UsageError(f"{p} is neither an ELF object nor an archive")
    return sizes


def object_code_bytes(paths: Iterable[Union[str, Path]]) -> int:
    """text + rodata + data of compiled objects/archives: what they add to flash, at most."""
    s = object_sizes(paths)
    return s["text"] + s["rodata"] + s["data"]


def code_bytes(sizes: Mapping[str, Any]) -> int:
    """Flash that is not the model's data (runtime, kernels, startup and libc), from a size report
    (report.json's firmware.<board>)."""
    return int(sizes["flash"]["total"]) - int(sizes["flash"]["categories"]["model_data"])
