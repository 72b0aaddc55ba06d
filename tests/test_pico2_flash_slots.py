"""The Pico 2's model slots in flash (boards/rp2350/slot_store_flash.c). Nothing here runs an RP2350, so: the slot
store compiled for this machine against a fake boot ROM and a RAM "flash" (tests/support/rp2350_fake_flash.h,
rp2350_flash_harness.c) that enforce the real rules (the call order, interrupts off, whole sectors and pages, a
program only clears bits) and log every ROM call; and the slot store linked into pico2 firmware, whose ELF shows the
flash-writing function placed in SRAM and calling nothing in flash."""

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import torch

from mcu_export.boards import load_board

ROOT = Path(__file__).resolve().parents[1]
BOARDS, SUPPORT = ROOT / "boards", ROOT / "tests" / "support"
XIP, SRAM = 0x10000000, range(0x20000000, 0x20000000 + 0x82000)
SLOTS, SLOT = 0x300000, 0x80000


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("needs a host C compiler")
    exe = tmp_path_factory.mktemp("flash") / "harness"
    includes = [BOARDS / "rp2350", BOARDS / "include", ROOT / "runtime_c" / "serial", ROOT / "runtime_c" / "include"]
    cmd = [cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", *(f"-I{d}" for d in includes), f"-I{SUPPORT}"]
    cmd += ['-DMX_FLASH_ROM_FAKE="rp2350_fake_flash.h"', "-DMX_FLASH_SLOTS_OFFSET=0x300000u"]
    cmd += ["-DMX_FLASH_SLOT_BYTES=0x80000u", str(BOARDS / "rp2350" / "slot_store_flash.c")]
    harness = [str(SUPPORT / "rp2350_fake_flash.c"), str(SUPPORT / "rp2350_flash_harness.c")]
    subprocess.run([*cmd, *harness, "-o", str(exe)], check=True)

    def run(scenario):
        out = subprocess.run([str(exe), scenario], capture_output=True, text=True)
        assert out.returncode == 0 and "VIOLATION" not in out.stdout, out.stdout[-2000:]
        lines = out.stdout.splitlines()
        assert lines[0] == f"slots {SLOTS:#x} {SLOTS + SLOT:#x} {SLOT:#x}", "slot 0, slot 1, their size"
        assert lines[-1] == "irq 1", "interrupts back on afterwards"
        return lines[1:-1]

    return run


def operations(lines):
    """The ROM calls grouped per flash operation; each must be IF, EX, one erase or program, FC, XS."""
    ops, rom = [], [x for x in lines if re.match(r"(IF|EX|RE|RP|FC|XS)\b", x)]
    assert len(rom) % 5 == 0
    for i in range(0, len(rom), 5):
        seq = rom[i : i + 5]
        assert [s[:2] for s in seq[:2]] == ["IF", "EX"] and seq[3:] == ["FC", "XS"], seq
        assert seq[2][:2] in ("RE", "RP"), seq
        ops.append(seq[2].split())
    return ops


def test_erase_and_program_go_through_the_rom_in_order(harness):
    lines = harness("sequence")
    ops = operations(lines)
    erases, programs = ops[:8], ops[8:]
    slot1 = SLOTS + SLOT
    assert erases == [["RE", hex(slot1 + k * 0x10000), "0x10000", "0x10000", "0xd8"] for k in range(8)], (
        "slot 1 erased whole, 64 KiB (16 sectors) per call, D8h block erase allowed"
    )
    assert programs == [["RP", hex(slot1), "0x100"], ["RP", hex(slot1 + 0x100), "0x100"]], (
        "10 bytes at offset 250 straddle two pages: each programmed whole from the RAM page buffer"
    )
    assert "erase 0" in lines and "write 0" in lines


def test_programming_only_clears_bits_and_stays_in_the_slot(harness):
    lines = harness("bits")
    assert "write f0 0" in lines and "again f0 0" in lines, "a resent chunk (the same bytes) writes again"
    assert "write 0f -1" in lines, "bytes that need a 0 back to 1 fail the read-back check"
    assert "byte 0" in lines, "flash then holds f0 & 0f: programming cleared bits, set none"
    assert "write 00 0" in lines and "slot 2 -1 -1" in lines and "past end -1" in lines and "at end 0" in lines
    # the harness checks no byte outside the two slots changed (the "firmware" there is 0xA5)


def test_a_model_slot_written_through_the_store_reads_back(harness):
    lines = harness("model")
    assert lines[-3:] == ["header ok", "image ok", "rest erased 1"], lines[-3:]
    programs = [op for op in operations(lines) if op[0] == "RP"]
    assert all(SLOTS + SLOT <= int(op[1], 16) < SLOTS + 2 * SLOT for op in programs)


def test_missing_rom_functions_fail_erase_and_write(harness):
    assert harness("missing") == ["erase -1 write -1"]


def test_board_file_places_the_slots_after_the_firmware():
    board = load_board("pico2")
    defines = dict(board.defines)
    flash = board.region("flash")
    assert int(defines["MX_FLASH_SLOTS_OFFSET"].rstrip("u"), 16) == SLOTS == flash.length, "slots start where code ends"
    assert int(defines["MX_FLASH_SLOT_BYTES"].rstrip("u"), 16) == SLOT
    assert SLOTS + 2 * SLOT == 4 << 20, "the top of the 4 MiB flash"
    assert tomllib.loads(board.path.read_text())["flash"]["method"] == "uf2"


class Reshape(torch.nn.Module):
    def __init__(self, *shape):
        super().__init__()
        self.shape = shape

    def forward(self, x):
        return x.reshape(*self.shape)


@pytest.mark.slow
def test_serial_protocol_loads_models_into_the_flash_slots(tmp_path):
    """The device side of the serial protocol (runtime_c/serial/) with the real runtime over the flash slot store
    and the fake ROM: model A loaded and active after a reboot; B cut half way by a power cut (A still answers); a
    junk image whose CRC checks but which does not load is refused (A still answers); B loaded, then run from its
    slot after a reboot (tests/support/rp2350_flash_serial.c)."""
    from mcu_export import api
    from mcu_export.host_runtime import default_ops, render_kernel_table

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("needs a host C compiler")
    for name, shape in (("a", (2, 8)), ("b", (8, 2))):
        api.export(Reshape(*shape), (torch.ones(4, 4),)).save(tmp_path / name)
    ops = [o for o in default_ops() if (o.name, o.overload) == ("aten::view_copy", "out")]
    (tmp_path / "table.c").write_text(render_kernel_table(ops))
    rt = ROOT / "runtime_c"
    sources = [*(rt / "src").glob("*.c"), *(rt / "serial").glob("*.c"), *(rt / "kernels/portable/util").glob("*.c")]
    sources += [rt / "kernels/portable/mx_k_aten_view_copy_out.c", tmp_path / "table.c"]
    sources += [
        BOARDS / "rp2350/slot_store_flash.c",
        SUPPORT / "rp2350_fake_flash.c",
        SUPPORT / "rp2350_flash_serial.c",
    ]
    includes = [
        rt / "include",
        rt / "src",
        rt / "serial",
        rt / "kernels/portable",
        BOARDS / "rp2350",
        BOARDS / "include",
    ]
    exe = tmp_path / "device"
    cmd = [
        cc,
        "-std=c11",
        "-O1",
        *(f"-I{d}" for d in [*includes, SUPPORT]),
        '-DMX_FLASH_ROM_FAKE="rp2350_fake_flash.h"',
    ]
    subprocess.run([*cmd, *map(str, sources), "-o", str(exe), "-lm"], check=True)  # util helpers use libm
    run = subprocess.run([str(exe), str(tmp_path / "a/model.pte"), str(tmp_path / "b/model.pte")], capture_output=True)
    lines = run.stdout.decode().splitlines()
    assert run.returncode == 0 and "VIOLATION" not in run.stdout.decode(), lines
    cut = next(x for x in lines if x.startswith("B cut after"))
    assert lines == [
        "new active -1",
        "A begin 0 slot 0",
        "A end 0 slot 0",
        "reboot active 0",
        "B begin 0 slot 1",
        cut,
        "power cut active 0",
        "junk begin 0 slot 1",
        "junk end 0x102 slot 255",  # the runtime's "not a program" error: the header was never written
        "reboot active 0",
        "B begin 0 slot 1",
        "B end 0 slot 1",
        "reboot active 1",
        "set 0 invoke 0 get 0 output equals input 1",
        "irq 1",
    ]


SLOTS_APP = r"""
#include "mx_serial.h"
void mx_slot_store_open(mx_slot_store *store, uint8_t *ram, uint32_t slot_bytes);
int main(void) {
  static mx_slot_store store;
  static const uint8_t byte = 0x42;
  mx_slot_store_open(&store, 0, 0);
  if (store.erase(store.ctx, 1) != 0 || store.write(store.ctx, 1, 0, &byte, 1) != 0) return 1;
  return store.map(store.ctx, 1)[0] == byte ? 0 : 2;
}
"""


def _call_targets(objdump, elf, start, end):
    """Direct branch-with-link targets and the count of indirect calls in [start, end)."""
    text = subprocess.run(
        [objdump, "-d", "--section=.data", f"--start-address={start:#x}", f"--stop-address={end:#x}", str(elf)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    direct = [int(m, 16) for m in re.findall(r"\tblx?\s+(?:0x)?([0-9a-f]+)\b", text)]
    indirect = len(re.findall(r"\tblx\s+r\d+", text))
    return text, direct, indirect


@pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "arm-none-eabi-objdump", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, cmake and ninja",
)
def test_flash_writing_code_runs_from_sram_and_calls_nothing_in_flash(tmp_path):
    from mcu_export.firmware.build import build_project, render_project
    from mcu_export.firmware.elf import Elf

    runtime = ROOT / "runtime_c"
    app = {
        "app/main.c": SLOTS_APP,
        "app/slot_store_flash.c": BOARDS / "rp2350" / "slot_store_flash.c",
        "app/flash_rom.h": BOARDS / "rp2350" / "flash_rom.h",
        "app/serial/mx_serial.h": runtime / "serial" / "mx_serial.h",
        "app/serial/serial_errors.def": runtime / "serial" / "serial_errors.def",
    }
    app.update({f"app/include/mx/{p.name}": p for p in (runtime / "include" / "mx").iterdir()})
    project = render_project(load_board("pico2"), tmp_path / "p", app, include_dirs=["app/serial", "app/include"])
    result = build_project(project)
    elf = Elf(result.elf)
    syms = elf.symbols()
    (fn,) = [s for n, s in syms.items() if n.split(".")[0] == "flash_op"]  # GCC may clone it (flash_op.constprop.0)
    assert fn.address in SRAM and fn.size > 0, "flash_op runs from SRAM"
    data = elf.sections[".data"]
    assert data.addr <= fn.address < data.addr + data.size, "copied there with .data by the reset handler"
    assert syms["__mx_data_load"].value in range(XIP, XIP + SLOTS), "and stored in flash below the slots"
    # Every call it makes: direct ones must land in SRAM (and so, recursively, theirs); indirect ones are the ROM
    # functions through the pointers looked up before (IF, EX, RE or RP, FC, and the XIP setup copy).
    objdump = shutil.which("arm-none-eabi-objdump")
    seen, todo = set(), [(fn.address & ~1, (fn.address & ~1) + fn.size)]
    while todo:
        start, end = todo.pop()
        text, direct, indirect = _call_targets(objdump, result.elf, start, end)
        if start == fn.address & ~1:
            low = text.lower()
            assert "cpsid\ti" in low and "msr\tprimask" in low, "interrupts off and restored inline"
            words = [int(w, 16) for w in re.findall(r"\t\.word\t0x([0-9a-f]+)", text)]
            assert not [w for w in words if XIP <= w < XIP + (4 << 20)], "no flash address in its literal pool"
            assert indirect == 6, f"six calls through ROM pointers, found {indirect}:\n{text}"
        for target in direct:
            assert target in SRAM, f"a call from RAM-resident flash code to 0x{target:x}, outside SRAM:\n{text}"
            callee = next((s for s in syms.values() if s.address & ~1 == target and s.size), None)
            if callee and target not in seen:
                seen.add(target)
                todo.append((target, target + callee.size))
    slot_fns = [n for n in ("slots_erase", "slots_write", "mx_slot_store_open") if n in syms]
    assert slot_fns and all(syms[n].address in range(XIP, XIP + SLOTS) for n in slot_fns), "the rest runs from flash"

    # This project's real .uf2 through `mcu-export flash PROJECT --board pico2` onto a fake RP2350 boot drive.
    drive = tmp_path / "RP2350"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n")
    from mcu_export.flash import flash_command

    assert flash_command(project, board="pico2", drive_path=str(drive)) == 0
    assert (drive / "firmware.uf2").read_bytes() == result.uf2.read_bytes()


@pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, cmake and ninja",
)
@pytest.mark.slow
def test_serving_firmware_for_the_pico_2_keeps_its_models_in_flash(tmp_path):
    """`mcu-export build OUT --board pico2 --serve`: the board file's [flash].slot_store is the store, so the slots
    are the top 1 MiB of flash, mapped in place (no RAM copy), and the firmware stays below them."""
    from cli_runner import cli  # tests/support
    from mcu_export.firmware.elf import Elf

    result = cli("build", tmp_path, "--board", "pico2", "--serve", timeout=600)
    assert result.code == 0, result.err
    assert "model slots in flash (rp2350/slot_store_flash.c)" in result.out
    elf = Elf(tmp_path / "firmware" / "pico2-serial" / "artifacts" / "firmware.elf")
    syms = elf.symbols()
    assert syms["mx_serve_slot_ram"].size == 0 and syms["mx_serve_work"].address in SRAM
    (fn,) = [s for n, s in syms.items() if n.split(".")[0] == "flash_op"]
    assert fn.address in SRAM  # the store's flash writes run from RAM, as in the model firmware above
    assert syms["mx_slot_store_open"].address in range(XIP, XIP + SLOTS)
    loaded = [s for s in elf.sections.values() if s.allocated and s.addr in range(XIP, XIP + (4 << 20))]
    assert max(s.addr + s.size for s in loaded) <= XIP + SLOTS  # nothing of the firmware in the slots,
    assert syms["__mx_data_load"].value + elf.sections[".data"].size <= XIP + SLOTS  # .data's image included
