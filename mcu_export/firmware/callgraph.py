"""The call graph of a linked Cortex-M firmware image: each function's stack frame and what it calls.

Two sources, each for what it knows best:
- The linked ELF's disassembly (`arm-none-eabi-objdump -d`): every function the image holds, newlib's,
  libgcc's and naked/asm ones included, and every call as it is in the image (`bl`, a branch out of the
  function = a tail call, `blx rN`/`bx rN` = an indirect call); a frame read from the prologue (`push`,
  `vpush`, `stmdb sp!`, `sub sp, #N`, summed over the whole function: an upper bound even where shrink-wrapping
  puts pushes on several paths). `sub sp, rN` (alloca, a VLA) makes the frame dynamic.
- GCC's `-fcallgraph-info=su` files (`<object>.ci`, one per object, VCG): the frame GCC laid out (static,
  dynamic or dynamic,bounded) and the source location of each indirect call, which `fnkinds` turns into the
  prototypes that call can reach. Where both give a frame, the larger one counts.

Function pointers: a function is address-taken when its address (Thumb bit set) is a word of the image outside the
vector table and the embedded model (tables, `.data`'s initial values, literal pools), or is built by a
`movw`/`movt` pair. Exception handlers reached only from the vector table are roots, not pointer targets.
"""

from __future__ import annotations

import re
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

from mcu_export.errors import ToolchainError
from mcu_export.firmware.elf import Elf

OBJDUMP = "arm-none-eabi-objdump"
_FUNC_HEADER = re.compile(r"^([0-9a-f]+) <(.+)>:$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")  # 8-digit addresses start the line
_TARGET = re.compile(r"^([0-9a-f]+)(?:\s+<.*>)?$")
_BRANCH = re.compile(r"^(?:b|bl|cbz|cbnz|b(?:eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al))$")
_REG_LIST = re.compile(r"\{([^}]*)\}")
# Sections that hold no function pointers: the vector table (its handlers are roots) and the embedded .pte.
_NO_POINTERS = re.compile(r"^\.(vectors|mx_vectors|mx_model)")


@dataclass
class Function:
    name: str
    address: int
    size: int
    file: str = ""  # the source file of a static function ("" for a global one)
    frame: int = 0  # bytes this function's own frame takes, at most
    dynamic: bool = False  # a frame no static analysis bounds (alloca, VLA)
    calls: Set[int] = field(default_factory=set)  # addresses of the functions it calls (or tail-calls)
    indirect: bool = False  # it calls through a pointer
    gcc_frame: Optional[int] = None  # GCC's own figure, when an .ci file gave one


@dataclass(frozen=True)
class CiNode:
    name: str
    file: str  # the source file GCC compiled (the .ci graph's title)
    frame: int
    qualifier: str  # static, dynamic, dynamic,bounded
    indirect_sites: Tuple[str, ...]  # "file:line:col" of each indirect call
    local: bool = False  # a static function (GCC titles it "file:name")


def _reg_bytes(operands: str) -> int:
    """Bytes a register list takes on the stack: r/s registers 4, d registers 8 (ranges like d8-d15 too)."""
    m = _REG_LIST.search(operands)
    if not m:
        return 0
    total = 0
    for item in m.group(1).split(","):
        item = item.strip()
        if not item:
            continue
        size = 8 if item.startswith("d") else 4
        if "-" in item:
            lo, hi = (int(re.sub(r"\D", "", part)) for part in item.split("-"))
            total += size * (hi - lo + 1)
        else:
            total += size
    return total


def _sp_decrement(mnemonic: str, operands: str) -> Optional[int]:
    """Bytes one instruction moves sp down by (0 for none); None when by a register (dynamic)."""
    base = mnemonic.split(".")[0]
    ops = operands.split(";")[0].split("@")[0].strip()
    if base in ("push", "vpush") or (base in ("stmdb", "stmfd", "vstmdb") and ops.startswith("sp!")):
        return _reg_bytes(ops)
    if base in ("sub", "subw") and re.match(r"^sp,\s*(sp,\s*)?", ops):
        m = re.match(r"^sp,\s*(?:sp,\s*)?#(\d+)", ops)
        return int(m.group(1)) if m else None
    m = re.match(r"^[^\[]*\[sp,\s*#-(\d+)\]!", ops)  # str/strd with a pre-decremented sp
    if base in ("str", "strd", "vstr") and m:
        return int(m.group(1))
    return 0


def image_functions(path: Path) -> Dict[int, Function]:
    """One Function per address of a function symbol with a size (aliases share one, named after the first).
    Every symbol counts, local ones too: two files may each have a static function of one name. A local one
    carries its file (the STT_FILE symbol before it) to find its own .ci node."""
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    funcs: Dict[int, Function] = {}
    with open(path, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        if not isinstance(symtab, SymbolTableSection):
            raise ToolchainError(f"{path} has no symbol table: the stack analysis needs one")
        source = ""
        for sym in symtab.iter_symbols():
            kind, bind = sym["st_info"]["type"], sym["st_info"]["bind"]
            if kind == "STT_FILE":
                source = sym.name
            elif kind == "STT_FUNC" and sym["st_size"]:
                address = sym["st_value"] & ~1
                local = source if bind == "STB_LOCAL" else ""
                funcs.setdefault(address, Function(sym.name, address, sym["st_size"], file=local))
    return funcs


def _containing(starts: List[int], funcs: Dict[int, Function], address: int) -> Optional[Function]:
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= address:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return None
    f = funcs[starts[lo - 1]]
    return f if address < f.address + f.size else None


def disassemble(path: Path) -> str:
    try:
        proc = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True)
    except FileNotFoundError:
        raise ToolchainError(f"{OBJDUMP} not found (apt-get install binutils-arm-none-eabi)") from None
    if proc.returncode != 0:
        raise ToolchainError(f"{OBJDUMP} failed on {path}: {proc.stderr.strip()[:200]}")
    return proc.stdout


def read_image(path: Path, elf: Elf) -> Tuple[Dict[int, Function], Set[int]]:
    """(functions by address with frames and calls from the disassembly, addresses of address-taken functions)."""
    funcs = image_functions(path)
    starts = sorted(funcs)
    taken = _pointer_words(elf, funcs)
    current: Optional[Function] = None
    movw: Dict[str, int] = {}
    for line in disassemble(path).splitlines():
        m = _INSN.match(line)
        if not m:
            continue
        address, mnemonic, operands = int(m.group(1), 16), m.group(2), m.group(3)
        if current is None or not current.address <= address < current.address + current.size:
            current, movw = _containing(starts, funcs, address), {}
        if current is None or mnemonic.startswith("."):  # padding or literal data between functions
            continue
        _instruction(current, mnemonic, operands, starts, funcs, taken, movw)
    return funcs, taken


def _instruction(f: Function, mnemonic, operands, starts, funcs, taken: Set[int], movw: Dict[str, int]) -> None:
    dec = _sp_decrement(mnemonic, operands)
    if dec is None:
        f.dynamic = True
    else:
        f.frame += dec
    base = mnemonic.split(".")[0]
    if base in ("blx", "bx") and re.match(r"^(r\d+|ip|sl|fp)\b", operands):
        f.indirect = True
    elif _BRANCH.match(base):
        target = _TARGET.match(operands.split(",")[-1].strip())
        if target:
            dest = int(target.group(1), 16)
            if base == "bl" or not f.address <= dest < f.address + f.size:
                callee = _containing(starts, funcs, dest)
                if callee is not None and callee is not f:
                    f.calls.add(callee.address)
    elif base in ("movw", "movt"):
        reg, _, imm = operands.partition(",")
        value = int(imm.split("@")[0].strip().lstrip("#"), 0)
        if base == "movw":
            movw[reg] = value
        elif reg in movw and ((value << 16) | movw[reg]) - 1 in funcs:
            taken.add(((value << 16) | movw[reg]) - 1)


def _pointer_words(elf: Elf, funcs: Dict[int, Function]) -> Set[int]:
    """Functions whose Thumb address is an aligned word of a loaded section that may hold pointers."""
    thumb = {a | 1 for a in funcs}
    taken = set()
    for s in elf.sections.values():
        if not s.allocated or s.type == 8 or _NO_POINTERS.match(s.name):  # SHT_NOBITS holds no bytes
            continue
        data = elf.data[s.offset : s.offset + s.size]
        skew = (-s.addr) % 4
        for (word,) in struct.iter_unpack("<I", data[skew : skew + (len(data) - skew) // 4 * 4]):
            if word in thumb:
                taken.add(word & ~1)
    return taken


# ---- GCC's .ci files -----------------------------------------------------------------------------------

_CI_TITLE = re.compile(r'^graph: \{ title: "(.*)"')
_CI_NODE = re.compile(r'^node: \{ title: "([^"]+)" label: "[^"\\]*\\n[^"\\]*\\n(\d+) bytes \(([a-z,]+)\)"')
_CI_EDGE = re.compile(r'^edge: \{ sourcename: "([^"]+)" targetname: "__indirect_call" label: "([^"]+)"')


def read_ci(path: Path) -> List[CiNode]:
    """The functions one `-fcallgraph-info=su` file defines: GCC's frame and qualifier, indirect call sites."""
    title = path.name
    nodes: Dict[str, Tuple[int, str]] = {}
    sites: Dict[str, List[str]] = {}
    for line in path.read_text(errors="replace").splitlines():
        if m := _CI_TITLE.match(line):
            title = m.group(1)
        elif m := _CI_NODE.match(line):
            nodes[m.group(1)] = (int(m.group(2)), m.group(3))
        elif m := _CI_EDGE.match(line):
            sites.setdefault(m.group(1), []).append(m.group(2))
    return [
        CiNode(n.rsplit(":", 1)[-1], title, fr, q, tuple(sites.get(n, ())), local=":" in n)
        for n, (fr, q) in nodes.items()
    ]


def ci_files(build_dir: Path) -> Iterable[Path]:
    """The .ci files of the objects this build links: those build.ninja builds (a shared or reused tree also
    holds the objects of sources another project had), else every one in the tree."""
    ninja = build_dir / "build.ninja"
    if not ninja.is_file():
        return sorted(build_dir.rglob("*.ci"))
    objects = re.findall(r"^build (\S+)\.obj: C_COMPILER", ninja.read_text(), flags=re.M)
    if not objects:  # a generator writing other rule names: every file, as before
        return sorted(build_dir.rglob("*.ci"))
    return sorted(p for p in (build_dir / f"{o}.ci" for o in objects) if p.is_file())
