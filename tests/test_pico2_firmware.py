"""Model firmware for the Pico 2, checked the way the RP2350 will see it (nothing here can run it): the UF2 as the
boot ROM's USB drive parses it (RP2350-E10 block first, then the image's blocks, contiguous 256-byte pages equal to
the ELF's loadable bytes), the IMAGE_DEF block found as the boot ROM scans for it, the vector table at the start of
flash, every section in the memory it must live in, the bring-up and DWT tick drivers linked, a `.ramfunc`
function stored in flash but run from SRAM; and, on QEMU's Cortex-M33, both tick drivers and the model firmware's
ending without a debugger."""

import shutil
import struct

import pytest

from mcu_export import api, examples
from mcu_export.boards import load_board
from mcu_export.firmware import uf2
from mcu_export.firmware.build import build_project, render_project
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.flow import build_for_board
from mcu_export.firmware.model_project import build_model_firmware, project_of
from mcu_export.firmware.qemu import run_qemu

pytestmark = [
    pytest.mark.skipif(
        any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "cmake", "ninja")),
        reason="needs gcc-arm-none-eabi, cmake and ninja",
    ),
    pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"),
]

FLASH = range(0x10000000, 0x10000000 + 0x400000)
SRAM = range(0x20000000, 0x20000000 + 0x82000)
RP2350_ARM_S, ABSOLUTE = 0xE48BFF59, 0xE48BFF57
BLOCK_START, BLOCK_END = 0xFFFFDED3, 0xAB123579


@pytest.fixture(scope="module")
def model_fw(tmp_path_factory):
    out = api.export_spec(examples.spec("mnist_mlp"), quantize="int8", board="pico2").save(
        tmp_path_factory.mktemp("mnist_pico2")
    )
    return build_for_board(out, "pico2")


def image_blocks(result):
    """The UF2's blocks after the RP2350-E10 block, checked against it on the way."""
    blocks = list(uf2.read_uf2(result.uf2.read_bytes()))
    e10, rest = blocks[0], blocks[1:]
    assert (e10.family_id, e10.address, e10.number, e10.count) == (ABSOLUTE, 0x10FFFF00, 0, 2)
    assert e10.flags == uf2.FLAG_FAMILY_ID_PRESENT | uf2.FLAG_EXTENSION_TAGS_PRESENT and e10.payload == b"\xef" * 256
    assert e10.extension[:8] == struct.pack("<II", 0x9957E304, 0), "RP2 ignore-block tag, then the end of the tags"
    return rest


def test_uf2_blocks_are_the_elf_loadable_bytes(model_fw):
    blocks = image_blocks(model_fw)
    assert len(model_fw.uf2.read_bytes()) == 512 * (len(blocks) + 1)
    for i, b in enumerate(blocks):
        assert (b.flags, b.family_id, len(b.payload)) == (0x2000, RP2350_ARM_S, 256)
        assert (b.number, b.count, b.address) == (i, len(blocks), FLASH.start + 256 * i)
    image = b"".join(b.payload for b in blocks)
    segments = [s for s in Elf(model_fw.elf).segments() if s.data]
    end = max(s.paddr + len(s.data) for s in segments)
    assert len(blocks) == (end - FLASH.start + 255) // 256, "no block beyond the last loadable byte"
    for s in segments:
        assert s.paddr in FLASH and s.paddr + len(s.data) - 1 in FLASH, f"segment at 0x{s.paddr:x} loads outside flash"
        at = s.paddr - FLASH.start
        assert image[at : at + len(s.data)] == s.data, f"UF2 bytes differ from the segment loaded at 0x{s.paddr:x}"


def parse_block(image, at):
    """A PICOBIN block as the boot ROM reads it (RP2350 datasheet 5.9.1): items up to LAST, a link, the end marker."""
    words = lambda i, n: struct.unpack_from(f"<{n}I", image, at + 4 * i)  # noqa: E731
    assert words(0, 1)[0] == BLOCK_START
    items, i = {}, 1
    while True:
        (header,) = words(i, 1)
        kind = header & 0xFF
        if kind == 0xFF:  # LAST: a 2-byte size of the items before it, in words
            assert (header >> 8) & 0xFFFF == i - 1, "LAST item's size must cover the items before it"
            break
        size = (header >> 8) & 0xFF if not kind & 0x80 else (header >> 8) & 0xFFFF
        items[kind] = words(i, size)
        i += size
    link, end = words(i + 1, 2)
    assert end == BLOCK_END
    return items, link, 4 * (i + 3)


def test_image_def_found_as_the_boot_rom_scans(model_fw):
    image = model_fw.bin.read_bytes()
    starts = [at for at in range(0, 4096, 4) if struct.unpack_from("<I", image, at)[0] == BLOCK_START]
    assert len(starts) == 1, "exactly one block starts in the first 4 KiB"
    items, link, size = parse_block(image, starts[0])
    assert starts[0] + size <= 4096 and link == 0, "whole block in the first 4 KiB; the loop of blocks is itself"
    (image_type,) = items[0x42]  # IMAGE_TYPE, 1 word: flags in the top half
    flags = image_type >> 16
    assert image_type & 0xFFFF == 0x0142
    assert flags & 0xF == 1, "EXE"
    assert (flags >> 4) & 3 == 2, "Secure"
    assert (flags >> 8) & 7 == 0, "Arm"
    assert (flags >> 12) & 7 == 1, "RP2350"
    assert not flags & 0x8000, "not try-before-you-buy"


def test_vector_table_at_the_start_of_flash(model_fw):
    elf = Elf(model_fw.elf)
    syms = elf.symbols()
    vectors = struct.unpack_from("<16I", model_fw.bin.read_bytes(), 0)
    sp, reset = vectors[0], vectors[1]
    assert elf.sections[".vectors"].addr == FLASH.start
    assert sp in SRAM or sp == SRAM.stop, "initial SP inside SRAM"
    assert sp % 8 == 0 and sp == syms["__mx_stack_top"].value
    assert reset & 1 and (reset & ~1) in FLASH and reset == syms["mx_reset_handler"].value
    assert vectors[15] == syms["mx_systick_handler"].value, "SysTick samples CYCCNT"
    for v in vectors[2:]:
        assert v == 0 or (v & 1 and (v & ~1) in FLASH), f"vector 0x{v:x} not Thumb code in flash"


def test_sections_in_flash_and_sram(model_fw):
    elf = Elf(model_fw.elf)
    syms = elf.symbols()
    placed = {name: s for name, s in elf.sections.items() if s.allocated and s.size}
    in_flash = [n for n in placed if n in (".vectors", ".text", ".rodata", ".ARM.exidx") or n.startswith(".mx_model")]
    in_sram = [n for n in placed if n in (".data", ".bss", ".stack") or n.startswith(".mx_arena")]
    assert {".vectors", ".text", ".rodata", ".bss", ".stack"} <= set(placed) and any(
        n.startswith(".mx_arena") for n in in_sram
    )
    assert set(in_flash) | set(in_sram) == set(placed), f"unexpected sections: {set(placed) - set(in_flash + in_sram)}"
    for name in in_flash:
        s = placed[name]
        assert s.addr in FLASH and s.addr + s.size - 1 in FLASH, name
    for name in in_sram:
        s = placed[name]
        assert s.addr in SRAM and s.addr + s.size - 1 in SRAM, name
    assert syms["__mx_data_load"].value in FLASH, ".data's initial values are stored in flash"


def test_bring_up_and_dwt_ticks_are_linked(model_fw):
    text = model_fw.map.read_text()
    for obj in ("platform_rp2350.c.obj", "clocks.c.obj", "resets.c.obj", "gpio_uart.c.obj", "ticks_dwt.c.obj"):
        assert obj in text, f"{obj} not linked"
    assert "systick.c.obj" not in text.replace("ticks_dwt", "")
    syms = Elf(model_fw.elf).symbols()
    for name in ("mx_soc_init", "mx_rp2350_clocks_init", "mx_rp2350_uart0_pins_init", "mx_platform_ticks"):
        assert name in syms and syms[name].address in FLASH
    for name in ("malloc", "_sbrk", "printf"):
        assert name not in syms


RAMFUNC_APP = r"""
#include "mx_platform.h"
MX_RAMFUNC int mx_ram_add(int a, int b) { return a + b; }
int main(void) { return mx_ram_add(1, (int)mx_platform_ticks()); }
"""


def test_ramfunc_stored_in_flash_runs_from_sram(tmp_path):
    result = build_project(render_project(load_board("pico2"), tmp_path / "p", {"app/main.c": RAMFUNC_APP}))
    elf = Elf(result.elf)
    syms = elf.symbols()
    fn, data = syms["mx_ram_add"], elf.sections[".data"]
    assert fn.address in SRAM and data.addr <= fn.address < data.addr + data.size, "runs from SRAM, inside .data"
    load = syms["__mx_data_load"].value + (fn.address - syms["__mx_data_start"].value)
    assert load in FLASH, "stored in flash, copied with .data by the reset handler"
    code = elf.section_bytes(".data")[fn.address - data.addr :][: fn.size]
    image = result.bin.read_bytes()
    assert image[load - FLASH.start :][: fn.size] == code, (
        "the flash image holds the function's code at its load address"
    )
    veneers = [n for n, s in syms.items() if "mx_ram_add" in n and "veneer" in n and s.address in FLASH]
    assert veneers, "calls from flash reach SRAM through a long-branch veneer"


TICKS_APP = r"""
#include "mx_platform.h"
int main(void) {
  uint64_t first = mx_platform_ticks(); /* right after mx_platform_init: the counter may not have loaded yet */
  for (volatile int i = 0; i < 100000; i++) {
  }
  uint64_t later = mx_platform_ticks();
  mx_platform_puts("ticks ");
  mx_platform_put_dec((int32_t)(later - first));
  mx_platform_puts("\n");
  return later > first && later - first < (1u << 24) ? 0 : 3;
}
"""


@pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm")
@pytest.mark.parametrize("ticks", ["systick", "dwt"])
def test_tick_drivers_on_qemus_m33(tmp_path, ticks):
    """The Pico 2's CPU under QEMU (mps2-an505) with either tick driver. QEMU models no CYCCNT: the DWT driver sees
    it stand still, says so, and counts with SysTick. Ticks read right after init must not be 2^24 off."""
    src = load_board("mps2-an505").path
    for folder in ("cortex_m", "include"):
        shutil.copytree(src.parent / folder, tmp_path / folder)
    text = src.read_text().replace('"cortex_m/systick.c", ', "") + f'\n[ticks]\nkind = "{ticks}"\n'
    (tmp_path / "mps2-an505.toml").write_text(text)
    board = load_board("mps2-an505", directory=tmp_path)
    result = build_project(render_project(board, tmp_path / "p", {"app/main.c": TICKS_APP}))
    run = run_qemu(board, result.elf, timeout=30, check_errors=False)
    assert run.exit_code == 0, run.uart_text
    assert ("DWT CYCCNT does not count here" in run.uart_text) == (ticks == "dwt")


def test_uf2_writer_pages_and_e10_block():
    data = uf2.to_uf2(bytes(range(256)) * 2 + b"\x01", 0x10000000, RP2350_ARM_S, abs_block=0x10FFFF00)
    e10, *blocks = uf2.read_uf2(data)
    assert (e10.number, e10.count, e10.family_id) == (0, 2, ABSOLUTE)
    assert [(b.number, b.count, b.address) for b in blocks] == [(i, 3, 0x10000000 + 256 * i) for i in range(3)]
    assert blocks[2].payload == b"\x01" + bytes(255), "the last page is padded with zeros"
    (only,) = uf2.read_uf2(uf2.to_uf2(b"\x01", 0x10000000, RP2350_ARM_S))  # no E10 block unless asked
    assert (only.family_id, only.flags) == (RP2350_ARM_S, uf2.FLAG_FAMILY_ID_PRESENT)
    with pytest.raises(ValueError, match="not 256-byte aligned"):
        uf2.to_uf2(b"\x01", 0x10000080, RP2350_ARM_S)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm")
def test_model_firmware_without_a_debugger_reports_and_sleeps(model_fw, tmp_path):
    """The Pico 2's host-less ending, on QEMU's M33 (whose DHCSR reads no debugger, as the Pico 2 on USB power does):
    mps2-an505 with the Pico 2's semihost_attached.c and exit_loop.c runs the same model firmware; the input file is
    there, but no debugger is to serve it, so main reports an I/O error, prints the exit code and sleeps."""
    src = load_board("mps2-an505").path
    for folder in ("cortex_m", "include"):
        shutil.copytree(src.parent / folder, tmp_path / folder)
    text = src.read_text().replace('"cortex_m/exit_semihosting.c"', '"cortex_m/exit_loop.c"')
    text = text.replace('"cortex_m/semihosting.c",', '"cortex_m/semihosting.c", "cortex_m/semihost_attached.c",')
    (tmp_path / "mps2-an505.toml").write_text(text)
    board = load_board("mps2-an505", directory=tmp_path)
    out = project_of(model_fw).parent.parent  # the export folder: OUT/firmware/pico2/
    build = build_model_firmware(out, board)
    (tmp_path / "in0.bin").write_bytes(bytes(4 * 784))
    run = run_qemu(board, build.elf, semihosting_dir=tmp_path, timeout=5, check_errors=False)
    assert run.timed_out, "exit_loop sleeps: nothing waits for an exit status"
    assert "mx: io error: cannot open in0.bin" in run.uart_text and "mx: exit 2" in run.uart_text, run.uart_text
