"""Board files: every one loads and is consistent; bad names and bad files fail with one clear line."""

import shutil

import pytest

from mcu_export.boards import BoardFileError, HostBoard, list_boards, load_board
from mcu_export.errors import UsageError

EXPECTED = ["corstone-300", "corstone-320", "mps2-an386", "mps2-an505", "pico2"]
HOSTS = ["host", "host-aarch64"]


def test_list_boards():
    assert list(list_boards()) == sorted(EXPECTED + HOSTS)


@pytest.mark.parametrize("name, target", [("host", "x86_64"), ("host-aarch64", "aarch64")])
def test_host_boards_run_without_firmware(name, target):
    from mcu_export.runners import runner_for

    b = load_board(name)
    assert isinstance(b, HostBoard) and not b.firmware and b.target == target and b.description
    assert runner_for(b).name == "host"


def test_default_target_is_the_boards_first_simulator():
    from mcu_export.runners import runner_for

    assert runner_for("corstone-300").name == "qemu" and runner_for("corstone-320").name == "fvp"
    with pytest.raises(UsageError, match="'corstone-320' does not run on qemu .it runs on: fvp."):
        runner_for("corstone-320", "qemu")
    with pytest.raises(UsageError, match="'pico2' has no target to run on here .* or a serial link: --sim serial"):
        runner_for("pico2")


@pytest.mark.parametrize("name", EXPECTED)
def test_every_board_loads_and_is_consistent(name):
    b = load_board(name)
    assert b.name == name and b.description and b.path.name == f"{name}.toml"
    names = [r.name for r in b.memory]
    s = b.sections
    for region in (s.vectors, s.text, s.rodata, s.data, s.data_load, s.bss, s.stack, *s.arenas):
        assert region in names
    for region in (s.data, s.bss, s.stack, *s.arenas):
        assert b.region(region).writable
    assert b.region(s.text).attrs.startswith("r") and "x" in b.region(s.text).attrs
    # No two regions overlap.
    spans = sorted((r.origin, r.origin + r.length) for r in b.memory)
    assert all(a[1] <= c[0] for a, c in zip(spans, spans[1:]))
    assert b.stack_size % 8 == 0 and b.stack_size <= b.region(s.stack).length
    assert b.compiler.kind in ("gcc", "clang") and f"-mcpu={b.cpu.mcpu}" in b.compiler.cflags
    assert all((b.path.parent / src).is_file() for src in b.sources)
    assert b.qemu is not None or b.fvp is not None or b.flash.method != "none"


def test_board_facts():
    c300, c320, an386, an505, pico = (load_board(n) for n in EXPECTED)
    assert (c300.cpu.mcpu, c300.cpu.mve, c300.qemu.machine, c300.fvp.binary) == (
        "cortex-m55",
        True,
        "mps3-an547",
        "FVP_Corstone_SSE-300_Ethos-U55",
    )
    assert c300.npu == "ethos-u55-128" and c300.uart.kind == "cmsdk"
    assert (c320.cpu.mcpu, c320.compiler.kind, c320.qemu, c320.fvp.binary) == (
        "cortex-m85",
        "clang",
        None,
        "FVP_Corstone_SSE-320",
    )
    assert (
        pico.region("flash").origin == 0x10000000 and pico.region("flash").length == 3 << 20
    )  # + 1 MiB of model slots
    assert pico.region("sram").origin == 0x20000000 and pico.region("sram").length == 520 << 10
    assert (pico.uart.kind, pico.uart.base, pico.flash.method, pico.flash.uf2_family_id) == (
        "pl011",
        0x40070000,
        "uf2",
        0xE48BFF59,
    )
    assert "rp2350/image_def.c" in pico.sources and pico.qemu is None
    # [ticks] adds its driver: DWT CYCCNT on the Pico 2; SysTick (deterministic under QEMU -icount) by default.
    assert pico.ticks == "dwt" and "cortex_m/ticks_dwt.c" in pico.sources and "cortex_m/systick.c" not in pico.sources
    assert an505.ticks == "systick" and an505.sources.count("cortex_m/systick.c") == 1
    assert pico.flash.uf2_abs_block == 0x10FFFF00 and an505.flash.uf2_abs_block is None
    assert (pico.flash.uf2_board_id, pico.flash.picotool, pico.flash.pyocd_target) == ("RP2350", True, "rp2350")
    assert (an505.flash.method, an505.flash.pyocd_target, an505.flash.picotool) == ("pyocd", "cortex_m", False)
    assert (an505.cpu.mcpu, an505.qemu.machine, an505.region("code").origin, an505.uart.base) == (
        "cortex-m33",
        "mps2-an505",
        0x10000000,
        0x50200000,
    )
    assert (an386.cpu.mcpu, an386.qemu.machine, an386.uart.base) == ("cortex-m4", "mps2-an386", 0x40004000)
    assert c300.c_defines()["MX_UART_BASE"] == "0x59303000u"
    assert pico.c_defines()["MX_UART_BAUD"] == "115200u"


def test_unknown_board_lists_the_valid_ones():
    with pytest.raises(UsageError) as err:
        load_board("pico3")
    assert str(err.value) == f"unknown board 'pico3' (valid: {', '.join(sorted(EXPECTED + HOSTS))})"


def _copy(tmp_path, name="mps2-an386"):
    src = load_board(name).path
    shutil.copytree(src.parent / "cortex_m", tmp_path / "cortex_m")
    dst = tmp_path / f"{name}.toml"
    dst.write_text(src.read_text())
    return dst


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda t: t.replace("origin = 0x20000000", 'origin = "0x20000000"'), "memory[1].origin"),
        (lambda t: t.replace('kind = "cmsdk"', 'kind = "16550"'), "uart.kind"),
        (lambda t: t.replace('mcpu = "cortex-m4"\n', ""), "cpu.mcpu"),
        (lambda t: t.replace('stack = "ram"', 'stack = "sram9"'), "sections.stack"),
        (lambda t: t.replace('"cortex_m/fault.c", ', '"cortex_m/nope.c", '), "c.sources"),
        (lambda t: t.replace("stack_size = 0x4000", "stack_size = 0x4001"), "stack_size"),
        (lambda t: t + '\n[ticks]\nkind = "rtc"\n', "ticks.kind"),
        (lambda t: t + '\n[ticks]\nkind = "dwt"\n', "c.sources"),  # lists systick.c, the other driver
    ],
)
def test_malformed_board_file_names_file_and_field(tmp_path, edit, field):
    path = _copy(tmp_path)
    path.write_text(edit(path.read_text()))
    with pytest.raises(BoardFileError) as err:
        load_board("mps2-an386", directory=tmp_path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and f"field '{field}'" in message


def test_invalid_toml_names_the_file(tmp_path):
    path = _copy(tmp_path)
    path.write_text(path.read_text() + "\n[cpu\n")
    with pytest.raises(BoardFileError, match=r"mps2-an386.toml: not valid TOML"):
        load_board("mps2-an386", directory=tmp_path)


def test_npu_and_its_vela_memory_settings_come_from_the_board_file(tmp_path):
    c300 = load_board("corstone-300")
    assert (c300.npu, c300.npu_system_config, c300.npu_memory_mode) == (
        "ethos-u55-128",
        "Ethos_U55_High_End_Embedded",
        "Shared_Sram",
    )
    path = _copy(tmp_path, "corstone-300")
    path.write_text(path.read_text().replace('npu = "ethos-u55-128"', 'npu = "ethos-u55-100"'))
    with pytest.raises(BoardFileError, match=r"field 'npu': 'ethos-u55-100' is not an Ethos-U configuration Vela"):
        load_board("corstone-300", tmp_path)
    path.write_text(load_board("corstone-300").path.read_text().replace('"Shared_Sram"', '"Shared_SRAM"'))
    with pytest.raises(BoardFileError, match=r"'npu_memory_mode': 'Shared_SRAM' is not a Memory_Mode of Vela's "):
        load_board("corstone-300", tmp_path)
