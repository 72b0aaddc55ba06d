"""The frozen records a board file becomes (mcu_export/boards.py reads and checks the files; boards/README.md is the
format): a `Board` for firmware on a microcontroller, a `HostBoard` for programs the C runtime runs here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Dict, Optional, Tuple

from mcu_export.errors import UsageError


class BoardFileError(UsageError):
    """A board file that does not parse or lacks a field; the message names the file and the field."""


@dataclass(frozen=True)
class Cpu:
    family: str  # selects boards/<family>/ C sources
    mcpu: str
    arch: str
    fpu: bool
    dsp: bool
    mve: bool
    float_abi: str

    @property
    def isa(self) -> str:
        """The int8 kernel path a build for this CPU compiles: CMSIS-NN's MVE, DSP or scalar code."""
        return "mve" if self.mve else "dsp" if self.dsp else "scalar"


@dataclass(frozen=True)
class Compiler:
    kind: str  # gcc | clang
    cflags: Tuple[str, ...]  # CPU flags for compiling and linking
    multilib_flags: Tuple[str, ...]  # flags that pick newlib's multilib with arm-none-eabi-gcc


@dataclass(frozen=True)
class MemoryRegion:
    name: str
    origin: int
    length: int
    attrs: str  # linker attributes: r, w, x

    @property
    def writable(self) -> bool:
        return "w" in self.attrs


@dataclass(frozen=True)
class Sections:
    vectors: str
    text: str
    rodata: str
    data: str
    data_load: str  # where .data's initial values are stored (defaults to rodata's region)
    bss: str
    stack: str
    arenas: Tuple[str, ...]
    model: Tuple[str, ...] = ()  # regions for the embedded .pte, first fit (defaults to the rodata region)


@dataclass(frozen=True)
class Uart:
    kind: str
    base: int
    clock_hz: Optional[int] = None
    baud: Optional[int] = None


@dataclass(frozen=True)
class QemuSim:
    machine: str
    extra_args: Tuple[str, ...] = ()


@dataclass(frozen=True)
class FvpSim:
    binary: str
    params: Tuple[Tuple[str, str], ...]
    semihosting_cwd_param: Optional[str] = None


@dataclass(frozen=True)
class Flash:
    method: str
    uf2_family_id: Optional[int] = None
    uf2_abs_block: Optional[int] = None  # RP2350-E10: where the UF2's leading "absolute" block points (uf2.py)
    uf2_board_id: Optional[str] = None  # the Board-ID in INFO_UF2.TXT of the board's boot drive
    picotool: bool = False  # `picotool load` can write it (RP2040/RP2350 in BOOTSEL mode)
    pyocd_target: Optional[str] = None  # pyocd's target name (builtin, or from a CMSIS pack) for a debug probe
    slot_store: Optional[str] = None  # serving firmware's model slots in the board's flash (C file under boards/)


@dataclass(frozen=True)
class HostBoard:
    name: str
    description: str
    path: Path
    target: str  # a host target of mcu_export.host_runtime: x86_64, aarch64
    firmware: ClassVar[bool] = False


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    path: Path
    cpu: Cpu
    compiler: Compiler
    memory: Tuple[MemoryRegion, ...]
    sections: Sections
    stack_size: int
    uart: Uart
    sources: Tuple[str, ...]  # relative to boards/, the [ticks] driver included
    defines: Tuple[Tuple[str, str], ...]  # extra -D for the board's C (UART ones are added from [uart])
    flash: Flash
    outputs: Tuple[str, ...]
    qemu: Optional[QemuSim] = None
    fvp: Optional[FvpSim] = None
    npu: Optional[str] = None  # a Vela accelerator configuration, e.g. ethos-u55-128
    npu_system_config: Optional[str] = None  # Vela's [System_Config.*] for this board (Arm/vela.ini)
    npu_memory_mode: Optional[str] = None  # Vela's [Memory_Mode.*]: which memories hold weights and scratch
    # The NPU as the firmware drives it (boards/ethosu/npu_platform.c); npu_base None: firmware has no NPU driver.
    npu_base: Optional[int] = None  # its registers' address as the CPU sees it
    npu_irq: Optional[int] = None  # its interrupt line (external IRQ number): the firmware waits for it
    npu_reachable: Tuple[str, ...] = ()  # memory regions its AXI ports reach: where its payload, weights, scratch go
    ticks: str = "systick"  # what mx_platform_ticks counts: SysTick (deterministic under QEMU -icount) or DWT CYCCNT
    firmware: ClassVar[bool] = True

    def region(self, name: str) -> MemoryRegion:
        for r in self.memory:
            if r.name == name:
                return r
        raise KeyError(name)

    @property
    def flash_bytes(self) -> int:
        return sum(r.length for r in self.memory if not r.writable)

    @property
    def ram_bytes(self) -> int:
        return sum(r.length for r in self.memory if r.writable)

    def c_defines(self) -> Dict[str, str]:
        """Every -D the board's C needs, from [uart] and [c].defines."""
        out = {"MX_UART_BASE": f"0x{self.uart.base:08x}u"}
        if self.uart.clock_hz is not None:
            out["MX_UART_CLOCK_HZ"] = f"{self.uart.clock_hz}u"
        if self.uart.baud is not None:
            out["MX_UART_BAUD"] = f"{self.uart.baud}u"
        out.update(dict(self.defines))
        return out
