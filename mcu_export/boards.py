"""Boards as data: one TOML file per board in `boards/` (format in boards/README.md).

`load_board(name)` reads and checks a file and returns a frozen `Board` (firmware for a microcontroller)
or `HostBoard` (programs run by the C runtime on this machine, a file with a [host] table); nothing else
in mcu_export looks at a board's name to decide anything — everything board-specific is a field here.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from mcu_export.assets import asset_dir
from mcu_export.board_types import (  # noqa: F401 (re-exported: the records are part of this module's API)
    Board,
    BoardFileError,
    Compiler,
    Cpu,
    Flash,
    FvpSim,
    HostBoard,
    MemoryRegion,
    QemuSim,
    Sections,
    Uart,
)
from mcu_export.errors import UsageError

COMPILERS = ("gcc", "clang")
UART_KINDS = ("cmsdk", "pl011")
FLASH_METHODS = ("none", "uf2", "pyocd")  # how `mcu-export flash` writes a board (mcu_export/flash/)
OUTPUT_FORMATS = ("elf", "bin", "uf2")
SECTION_KEYS = ("vectors", "text", "rodata", "data", "bss", "stack")
# [ticks].kind → the driver of mx_platform_ticks, added to the board's sources (relative to boards/).
TICK_DRIVERS = {"systick": "cortex_m/systick.c", "dwt": "cortex_m/ticks_dwt.c"}
NPU_DRIVEN = ("ethos-u55-", "ethos-u65-", "ethos-u85-")  # the NPUs boards/ethosu/'s driver runs


def boards_dir() -> Path:
    return asset_dir("boards")


def list_boards(directory: Optional[Path] = None) -> Tuple[str, ...]:
    directory = Path(directory) if directory is not None else boards_dir()
    return tuple(sorted(p.stem for p in directory.glob("*.toml")))


def load_board(name: Union[str, Board, HostBoard], directory: Optional[Path] = None) -> Union[Board, HostBoard]:
    """The board named `name` from its file; a board already loaded is returned as it is."""
    if not isinstance(name, str):
        return name
    directory = Path(directory) if directory is not None else boards_dir()
    path = directory / f"{name}.toml"
    if not path.is_file():
        valid = ", ".join(list_boards(directory))
        raise UsageError(f"unknown board '{name}' (valid: {valid})")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise BoardFileError(f"board file {path}: not valid TOML: {e}") from None
    reader = _Reader(path, data)
    return reader.host_board() if "host" in data else reader.board()


def load_firmware_board(board: Union[str, Board, HostBoard], directory: Optional[Path] = None) -> Board:
    """`board` (a name or a loaded board) for code that builds or runs firmware: a host board has none."""
    loaded = load_board(board, directory)
    if not isinstance(loaded, Board):
        raise UsageError(f"board '{loaded.name}' is a host board: it has no firmware")
    return loaded


class _Reader:
    """Reads fields with one-line errors that name the file and the dotted field."""

    def __init__(self, path: Path, data: Dict[str, Any]):
        self.path = path
        self.data = data

    def fail(self, where: str, what: str) -> BoardFileError:
        return BoardFileError(f"board file {self.path}: field '{where}': {what}")

    def get(self, table: Dict[str, Any], where: str, key: str, kind: type, default: Any = ...) -> Any:
        dotted = f"{where}.{key}" if where else key
        if key not in table:
            if default is ...:
                raise self.fail(dotted, "missing")
            return default
        value = table[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise self.fail(dotted, f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        return value

    def table(self, where: str) -> Dict[str, Any]:
        node = self.optional_table(where)
        if node is None:
            raise self.fail(where, "missing table")
        return node

    def optional_table(self, where: str) -> Optional[Dict[str, Any]]:
        node: Any = self.data
        for part in where.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None and not isinstance(node, dict):
            raise self.fail(where, "missing table")
        return node

    def strings(self, table: Dict[str, Any], where: str, key: str, default: Any = ...) -> Tuple[str, ...]:
        items = self.get(table, where, key, list, default)
        if not all(isinstance(i, str) for i in items):
            raise self.fail(f"{where}.{key}" if where else key, "expected a list of strings")
        return tuple(items)

    def choice(self, table: Dict[str, Any], where: str, key: str, choices: Sequence[str], default: Any = ...) -> str:
        value = self.get(table, where, key, str, default)
        if value not in choices:
            raise self.fail(f"{where}.{key}", f"{value!r} is not one of {', '.join(choices)}")
        return value

    def name(self) -> str:
        name = self.get(self.data, "", "name", str)
        if name != self.path.stem:
            raise self.fail("name", f"'{name}' differs from the file name '{self.path.stem}'")
        return name

    def host_board(self) -> HostBoard:
        from mcu_export.host_runtime import TARGETS

        return HostBoard(
            name=self.name(),
            description=self.get(self.data, "", "description", str),
            path=self.path,
            target=self.choice(self.table("host"), "host", "target", tuple(TARGETS)),
        )

    def board(self) -> Board:
        top = self.data
        name = self.name()
        memory = self.memory()
        names = {r.name for r in memory}
        stack_size = self.get(top, "", "stack_size", int)
        if stack_size <= 0 or stack_size % 8:
            raise self.fail("stack_size", "must be a positive multiple of 8")
        ticks = self.choice(self.optional_table("ticks") or {}, "ticks", "kind", tuple(TICK_DRIVERS), "systick")
        return Board(
            name=name,
            description=self.get(top, "", "description", str),
            path=self.path,
            cpu=self.cpu(),
            compiler=self.compiler(),
            memory=memory,
            sections=self.sections(names),
            stack_size=stack_size,
            uart=self.uart(),
            sources=self.sources(ticks),
            defines=self.defines(),
            flash=self.flash(),
            outputs=self.outputs(),
            qemu=self.qemu(),
            fvp=self.fvp(),
            npu=self.npu(top),
            npu_system_config=self.vela_section(top, "npu_system_config", "System_Config"),
            npu_memory_mode=self.vela_section(top, "npu_memory_mode", "Memory_Mode"),
            ticks=ticks,
            **self.npu_device(top, memory),
        )

    def npu_device(self, top, memory: Tuple[MemoryRegion, ...]) -> Dict[str, Any]:
        """npu_base, npu_irq, npu_reachable: all three or none, for an NPU our driver runs (U55/U65/U85), with at
        least one arena region and one model region the NPU reaches."""
        keys = ("npu_base", "npu_irq", "npu_reachable")
        given = [k for k in keys if k in top]
        if not given:
            return {}
        if len(given) != len(keys):
            missing = [k for k in keys if k not in top]
            raise self.fail(missing[0], f"missing: {', '.join(given)} needs {', '.join(missing)} as well")
        npu = self.get(top, "", "npu", str, None)
        if npu is None or not npu.startswith(NPU_DRIVEN):
            raise self.fail(
                "npu_base", f"the firmware drives an Ethos-U55, U65 or U85 only, and 'npu' is {npu!r}: leave npu_* out"
            )
        base = self.get(top, "", "npu_base", int)
        if base <= 0 or base % 16 or base >= 1 << 32:
            raise self.fail("npu_base", f"0x{base:x} is not a 16-byte aligned 32-bit address")
        irq = self.get(top, "", "npu_irq", int)
        if not 0 <= irq < 480:
            raise self.fail("npu_irq", f"{irq} is not an external interrupt number (0..479)")
        reachable = self.strings(top, "", "npu_reachable")
        names = {r.name for r in memory}
        for region in reachable:
            if region not in names:
                raise self.fail(
                    "npu_reachable", f"no memory region named '{region}' (have: {', '.join(sorted(names))})"
                )
        sections = self.table("sections")
        for key, default in (("arenas", []), ("model", [self.get(sections, "sections", "rodata", str)])):
            listed = self.strings(sections, "sections", key, default)
            if not set(listed) & set(reachable):
                raise self.fail(
                    "npu_reachable", f"none of [sections].{key} ({', '.join(listed) or 'none'}) is reachable by the NPU"
                )
        return dict(npu_base=base, npu_irq=irq, npu_reachable=reachable)

    def vela_section(self, top, key: str, kind: str) -> Optional[str]:
        """A name of Vela's Arm/vela.ini ([System_Config.X] or [Memory_Mode.X]), checked when the board loads."""
        from mcu_export.ethosu.vela import vela_ini_sections

        value = self.get(top, "", key, str, None)
        known = vela_ini_sections(kind)
        if value is not None and known and value not in known:
            raise self.fail(key, f"'{value}' is not a {kind} of Vela's Arm/vela.ini ({', '.join(known)})")
        return value

    def npu(self, top) -> Optional[str]:
        from mcu_export.ethosu.vela import ACCELERATORS

        npu = self.get(top, "", "npu", str, None)
        if npu is not None and npu not in ACCELERATORS:
            raise self.fail("npu", f"'{npu}' is not an Ethos-U configuration Vela knows ({', '.join(ACCELERATORS)})")
        return npu

    def cpu(self) -> Cpu:
        t = self.table("cpu")
        return Cpu(
            family=self.get(t, "cpu", "family", str),
            mcpu=self.get(t, "cpu", "mcpu", str),
            arch=self.get(t, "cpu", "arch", str),
            fpu=self.get(t, "cpu", "fpu", bool),
            dsp=self.get(t, "cpu", "dsp", bool),
            mve=self.get(t, "cpu", "mve", bool),
            float_abi=self.choice(t, "cpu", "float_abi", ("soft", "softfp", "hard")),
        )

    def compiler(self) -> Compiler:
        t = self.table("compiler")
        cflags = self.strings(t, "compiler", "cflags")
        return Compiler(
            kind=self.choice(t, "compiler", "kind", COMPILERS),
            cflags=cflags,
            multilib_flags=self.strings(t, "compiler", "multilib_flags", list(cflags)),
        )

    def memory(self) -> Tuple[MemoryRegion, ...]:
        items = self.data.get("memory")
        if not isinstance(items, list) or not items:
            raise self.fail("memory", "missing: at least one [[memory]] region")
        regions = []
        for i, t in enumerate(items):
            where = f"memory[{i}]"
            if not isinstance(t, dict):
                raise self.fail(where, "expected a table")
            attrs = self.get(t, where, "attrs", str)
            if not attrs or set(attrs) - set("rwx"):
                raise self.fail(f"{where}.attrs", f"{attrs!r} is not a combination of r, w, x")
            region = MemoryRegion(
                name=self.get(t, where, "name", str),
                origin=self.get(t, where, "origin", int),
                length=self.get(t, where, "length", int),
                attrs=attrs,
            )
            if region.length <= 0 or region.origin < 0 or region.origin + region.length > 1 << 32:
                raise self.fail(where, "origin/length outside the 32-bit address space")
            regions.append(region)
        seen = set()
        for i, r in enumerate(regions):
            if r.name in seen:
                raise self.fail(f"memory[{i}].name", f"duplicate region name '{r.name}'")
            seen.add(r.name)
        return tuple(regions)

    def sections(self, region_names: set) -> Sections:
        t = self.table("sections")
        values = {k: self.get(t, "sections", k, str) for k in SECTION_KEYS}
        values["data_load"] = self.get(t, "sections", "data_load", str, values["rodata"])
        arenas = self.strings(t, "sections", "arenas", [])
        model = self.strings(t, "sections", "model", [values["rodata"]])
        if not model:
            raise self.fail("sections.model", "expected at least one region")
        listed = [("arenas", a) for a in arenas] + [("model", m) for m in model]
        for key, region in list(values.items()) + listed:
            if region not in region_names:
                raise self.fail(
                    f"sections.{key}", f"no memory region named '{region}' (have: {', '.join(sorted(region_names))})"
                )
        return Sections(arenas=arenas, model=model, **values)

    def uart(self) -> Uart:
        t = self.table("uart")
        kind = self.choice(t, "uart", "kind", UART_KINDS)
        clock = self.get(t, "uart", "clock_hz", int, None)
        baud = self.get(t, "uart", "baud", int, None)
        if kind == "pl011" and (clock is None or baud is None):
            raise self.fail("uart", "a pl011 UART needs clock_hz and baud")
        return Uart(kind=kind, base=self.get(t, "uart", "base", int), clock_hz=clock, baud=baud)

    def sources(self, ticks: str) -> Tuple[str, ...]:
        t = self.table("c")
        sources = self.strings(t, "c", "sources")
        for s in sources:
            if not (self.path.parent / s).is_file():
                raise self.fail("c.sources", f"'{s}' does not exist under {self.path.parent}")
        other = [s for s in sources if s in TICK_DRIVERS.values() and s != TICK_DRIVERS[ticks]]
        if other:
            raise self.fail("c.sources", f"'{other[0]}' is another tick driver than [ticks] kind '{ticks}' adds")
        return sources if TICK_DRIVERS[ticks] in sources else sources + (TICK_DRIVERS[ticks],)

    def defines(self) -> Tuple[Tuple[str, str], ...]:
        t = self.table("c").get("defines", {})
        if not isinstance(t, dict):
            raise self.fail("c.defines", "expected a table")
        return tuple((k, str(v)) for k, v in t.items())

    def flash(self) -> Flash:
        t = self.table("flash")
        method = self.choice(t, "flash", "method", FLASH_METHODS)
        family = self.get(t, "flash", "uf2_family_id", int, None)
        if method == "uf2" and family is None:
            raise self.fail("flash.uf2_family_id", "missing (needed by method 'uf2')")
        abs_block = self.get(t, "flash", "uf2_abs_block", int, None)
        if abs_block is not None and abs_block % 256:
            raise self.fail("flash.uf2_abs_block", f"0x{abs_block:x} is not a 256-byte aligned address")
        board_id = self.get(t, "flash", "uf2_board_id", str, None)
        if method == "uf2" and board_id is None:
            raise self.fail("flash.uf2_board_id", "missing (needed by method 'uf2': it identifies the boot drive)")
        pyocd_target = self.get(t, "flash", "pyocd_target", str, None)
        if method == "pyocd" and pyocd_target is None:
            raise self.fail("flash.pyocd_target", "missing (needed by method 'pyocd')")
        slot_store = self.get(t, "flash", "slot_store", str, None)
        return Flash(
            method=method,
            uf2_family_id=family,
            uf2_abs_block=abs_block,
            uf2_board_id=board_id,
            picotool=self.get(t, "flash", "picotool", bool, False),
            pyocd_target=pyocd_target,
            slot_store=slot_store,
        )

    def outputs(self) -> Tuple[str, ...]:
        formats = self.strings(self.table("outputs"), "outputs", "formats")
        for f in formats:
            if f not in OUTPUT_FORMATS:
                raise self.fail("outputs.formats", f"{f!r} is not one of {', '.join(OUTPUT_FORMATS)}")
        if "uf2" in formats and ("bin" not in formats or self.data.get("flash", {}).get("uf2_family_id") is None):
            raise self.fail("outputs.formats", "'uf2' needs 'bin' and flash.uf2_family_id")
        return formats

    def qemu(self) -> Optional[QemuSim]:
        t = self.optional_table("simulators.qemu")
        if t is None:
            return None
        return QemuSim(
            machine=self.get(t, "simulators.qemu", "machine", str),
            extra_args=self.strings(t, "simulators.qemu", "extra_args", []),
        )

    def fvp(self) -> Optional[FvpSim]:
        t = self.optional_table("simulators.fvp")
        if t is None:
            return None
        return FvpSim(
            binary=self.get(t, "simulators.fvp", "binary", str),
            params=self.fvp_params(self.get(t, "simulators.fvp", "params", str)),
            semihosting_cwd_param=self.get(t, "simulators.fvp", "semihosting_cwd_param", str, None),
        )

    def fvp_params(self, name: str) -> Tuple[Tuple[str, str], ...]:
        """fvp/<name>: `key=value` lines, `#` comments (the FVP's own `-f` config-file format)."""
        path = asset_dir("fvp") / name
        if not path.is_file():
            raise self.fail("simulators.fvp.params", f"no parameter file {path}")
        params = []
        for number, line in enumerate(path.read_text().splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, eq, value = (part.strip() for part in line.partition("="))
            if not eq or not key:
                raise BoardFileError(f"FVP parameter file {path}:{number}: expected key=value, got {line!r}")
            params.append((key, value))
        return tuple(params)
