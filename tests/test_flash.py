"""`mcu-export flash` (mcu_export/flash/), run as a user runs it (a subprocess): the Pico 2's UF2 boot drive faked
by a folder with the INFO_UF2.TXT an RP2350 shows, picotool faked by a script on PATH that records its arguments,
and each missing drive, tool or probe ending in one line."""

import importlib.util
import stat
import sys
from pathlib import Path

import pytest

from cli_runner import cli
from mcu_export.firmware import uf2

# The RP2350 boot ROM's INFO_UF2.TXT with its default Model and Board-ID (datasheet 5.7.6; its source, pico-bootrom-rp2350:
# the template in src/nsboot/info_uf2_txt.h, the defaults in usb_virtual_disk.c). RP2040's is RP2040_INFO.
RP2350_INFO = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"
RP2040_INFO = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
HAS_PYOCD = importlib.util.find_spec("pyocd") is not None


@pytest.fixture
def out(tmp_path):
    """An export folder as `mcu-export build OUT --board pico2` leaves it (only the files flash reads)."""
    art = tmp_path / "out" / "firmware" / "pico2" / "artifacts"
    art.mkdir(parents=True)
    image = bytes(range(256)) * 40 + b"\x5a" * 77
    (art / "firmware.uf2").write_bytes(uf2.to_uf2(image, 0x10000000, 0xE48BFF59, abs_block=0x10FFFF00))
    (art / "firmware.elf").write_bytes(b"\x7fELF fake")
    return tmp_path / "out"


@pytest.fixture
def mounts(tmp_path, monkeypatch):
    """Mount points to search instead of this machine's (/media/$USER, ...)."""
    root = tmp_path / "media"
    root.mkdir()
    monkeypatch.setenv("MCU_EXPORT_UF2_MOUNTS", str(root))
    return root


def boot_drive(root: Path, name: str, info: str) -> Path:
    d = root / name
    d.mkdir()
    (d / "INFO_UF2.TXT").write_text(info)
    (d / "INDEX.HTM").write_text("<html></html>")
    return d


def bin_dir(tmp_path: Path, **scripts: str) -> str:
    """A PATH of one folder holding the given scripts (and nothing else: no real picotool can be found)."""
    d = tmp_path / "bin"
    d.mkdir(exist_ok=True)
    for name, text in scripts.items():
        (d / name).write_text(text)
        (d / name).chmod((d / name).stat().st_mode | stat.S_IXUSR)
    return str(d)


def one_line(result, *fragments):
    lines = result.error_lines
    assert result.code == 2 and len(lines) == 1, result.err
    assert "Traceback" not in result.err
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


def test_uf2_lands_on_the_mounted_rp2350_drive_byte_identical(out, mounts, tmp_path):
    boot_drive(mounts, "USBSTICK", RP2040_INFO)  # another board's drive is passed over
    drive = boot_drive(mounts, "RP2350", RP2350_INFO)
    r = cli("flash", out, "--board", "pico2", env_path=bin_dir(tmp_path))
    assert r.code == 0, r.err
    sent = out / "firmware" / "pico2" / "artifacts" / "firmware.uf2"
    assert (drive / "firmware.uf2").read_bytes() == sent.read_bytes()
    assert "one write and synced it (fsync)" in r.out and str(drive / "firmware.uf2") in r.out


def test_drive_given_with_its_path(out, tmp_path):
    drive = boot_drive(tmp_path, "somewhere", RP2350_INFO)
    uf2_file = out / "firmware" / "pico2" / "artifacts" / "firmware.uf2"
    r = cli("flash", uf2_file, "--board", "pico2", "--drive", drive)  # the .uf2 itself as OUT
    assert r.code == 0, r.err
    assert (drive / "firmware.uf2").read_bytes() == uf2_file.read_bytes()


def test_a_drive_of_another_board_is_refused_naming_it(out, tmp_path, mounts):
    other = boot_drive(tmp_path, "RPI-RP2", RP2040_INFO)
    one_line(cli("flash", out, "--board", "pico2", "--drive", other), "'RPI-RP2'", "not a RP2350", str(other))
    assert not (other / "firmware.uf2").exists()
    one_line(cli("flash", out, "--board", "pico2", "--drive", tmp_path), "not a UF2 boot drive", "INFO_UF2.TXT")
    boot_drive(mounts, "RPI-RP2", RP2040_INFO)
    line = one_line(cli("flash", out, "--board", "pico2", env_path=bin_dir(tmp_path)), "no RP2350 boot drive mounted")
    assert "UF2 drives of other boards: " in line and "(RPI-RP2)" in line


def test_two_rp2350_drives_need_a_choice(out, mounts, tmp_path):
    boot_drive(mounts, "RP2350", RP2350_INFO)
    boot_drive(mounts, "RP2350_1", RP2350_INFO)
    one_line(cli("flash", out, "--board", "pico2", env_path=bin_dir(tmp_path)), "2 RP2350 boot drives", "--drive")


def test_no_drive_and_no_picotool_is_one_line(out, mounts, tmp_path):
    line = one_line(cli("flash", out, "--board", "pico2", env_path=bin_dir(tmp_path)), "no RP2350 boot drive mounted")
    assert str(mounts) in line and "BOOTSEL" in line
    one_line(
        cli("flash", out, "--board", "pico2", "--with", "picotool", env_path=bin_dir(tmp_path)),
        "picotool is not on PATH",
    )


RECORDER = f"""#!{sys.executable}
import os, sys
with open(os.environ["PICOTOOL_LOG"], "w") as f:
    f.write("\\n".join(sys.argv[1:]))
"""
FAILING = """#!/bin/sh
echo "No accessible RP-series devices in BOOTSEL mode were found." >&2
exit 251
"""


def test_picotool_is_run_with_our_arguments(out, mounts, tmp_path, monkeypatch):
    """A real process: with no drive mounted and picotool on PATH, flash runs `picotool load -x -t elf ELF`."""
    log = tmp_path / "picotool.args"
    monkeypatch.setenv("PICOTOOL_LOG", str(log))
    r = cli("flash", out, "--board", "pico2", env_path=bin_dir(tmp_path, picotool=RECORDER))
    assert r.code == 0, r.err
    elf = out / "firmware" / "pico2" / "artifacts" / "firmware.elf"
    assert log.read_text().split("\n") == ["load", "-x", "-t", "elf", str(elf)]
    assert "picotool loaded" in r.out


def test_picotool_failing_is_one_line_with_its_words(out, mounts, tmp_path):
    r = cli("flash", out, "--board", "pico2", "--with", "picotool", env_path=bin_dir(tmp_path, picotool=FAILING))
    one_line(r, "picotool load failed: No accessible RP-series devices in BOOTSEL mode were found.", "BOOTSEL")


@pytest.mark.slow
def test_usage_errors(out, tmp_path):
    rp2040 = tmp_path / "rp2040.uf2"
    rp2040.write_bytes(uf2.to_uf2(b"\x01" * 300, 0x10000000, 0xE48BFF56))
    drive = boot_drive(tmp_path, "RP2350", RP2350_INFO)
    one_line(cli("flash", rp2040, "--board", "pico2", "--drive", drive), "family 0xe48bff56, not pico2's 0xe48bff59")
    assert not (drive / "rp2040.uf2").exists()
    project = tmp_path / "proj"
    (project / "board").mkdir(parents=True)
    (project / "board" / "mps2-an505.toml").write_text("")
    (project / "artifacts").mkdir()
    (project / "artifacts" / "firmware.elf").write_bytes(b"\x7fELF")
    one_line(cli("flash", project, "--board", "pico2", "--with", "pyocd"), "firmware for 'mps2-an505', not pico2")
    one_line(cli("flash", tmp_path / "nothing", "--board", "pico2"), "no firmware.uf2 for pico2", "mcu-export build")
    one_line(cli("flash", out, "--board", "mps2-an505", "--with", "drive"), "has no UF2 boot drive")
    one_line(cli("flash", out, "--board", "mps2-an505", "--with", "picotool"), "is not written by picotool")
    one_line(cli("flash", out, "--board", "corstone-300"), "no way to be flashed")
    one_line(cli("flash", out, "--board", "pico2", "--with", "jtag"), "expected one of drive, picotool, pyocd")


@pytest.fixture
def an505_out(tmp_path):
    art = tmp_path / "an505" / "firmware" / "mps2-an505" / "artifacts"
    art.mkdir(parents=True)
    (art / "firmware.elf").write_bytes(b"\x7fELF fake")
    return tmp_path / "an505"


def in_process(capsys, *args):
    """The CLI in this interpreter: pyocd is seen wherever this interpreter finds it (the extra, or PYTHONPATH)."""
    from cli_runner import Result
    from mcu_export.cli import main

    code = main([str(a) for a in args])
    got = capsys.readouterr()
    return Result(code, got.out, got.err)


def test_pyocd_absent_names_the_extra(an505_out, capsys, monkeypatch):
    for name in [m for m in sys.modules if m == "pyocd" or m.startswith("pyocd.")] + ["pyocd"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed: `import pyocd` raises ImportError
    one_line(in_process(capsys, "flash", an505_out, "--board", "mps2-an505"), "pyocd is not installed", "[flash]")


@pytest.mark.skipif(
    not HAS_PYOCD,
    reason="pyocd is not installed in this venv (the [flash] extra; the project's venv is not changed by tests)",
)
def test_pyocd_without_a_probe_is_one_line(an505_out, capsys):
    r = in_process(capsys, "flash", an505_out, "--board", "mps2-an505")
    one_line(r, "no debug probe connected")
    assert r.out == "", "nothing of pyocd's own on stdout"
    (an505_out / "firmware" / "pico2").symlink_to(an505_out / "firmware" / "mps2-an505")
    r = in_process(capsys, "flash", an505_out, "--board", "pico2", "--with", "pyocd", "--probe", "X1")
    one_line(r, "no probe X1 connected")


def test_tools_unknown_pack_line(monkeypatch):
    """The pack line, through the module (no CLI option takes a board directory): pyocd faked with no targets."""
    import types

    from mcu_export.errors import FlashError
    from mcu_export.flash import tools

    fake = {
        "pyocd": types.ModuleType("pyocd"),
        "pyocd.core": types.ModuleType("pyocd.core"),
        "pyocd.core.helpers": types.SimpleNamespace(ConnectHelper=None),
        "pyocd.core.session": types.SimpleNamespace(Session=None),
        "pyocd.flash": types.ModuleType("pyocd.flash"),
        "pyocd.flash.file_programmer": types.SimpleNamespace(FileProgrammer=None),
        "pyocd.target": types.SimpleNamespace(TARGET={}),
    }
    for name, module in fake.items():
        monkeypatch.setitem(sys.modules, name, module)
    with pytest.raises(FlashError, match=r"does not know target 'stm32h745xx'.*`pyocd pack install stm32h745xx`"):
        tools.pyocd_load(Path("fw.elf"), "stm32h745xx", None)


def test_usual_mount_points(monkeypatch):
    from mcu_export.flash import drive

    monkeypatch.delenv("MCU_EXPORT_UF2_MOUNTS", raising=False)
    monkeypatch.setenv("USER", "ada")
    roots = [str(r) for r in drive.mount_roots()]
    assert roots == ["/media/ada", "/run/media/ada", "/media", "/mnt", "/Volumes"]
