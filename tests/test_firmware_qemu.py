"""Firmware built from the rendered project runs on QEMU: UART, semihosting files, exit codes, faults,
timeouts; pico2 gives a valid UF2 with its IMAGE_DEF; corstone-320 links for Cortex-M85 with clang-16."""

import shutil
import struct

import pytest

from mcu_export.boards import load_board
from mcu_export.errors import ToolchainError, UsageError
from mcu_export.firmware import uf2
from mcu_export.firmware.build import build_project, render_project
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.fvp import fvp_available, fvp_command, run_fvp
from mcu_export.firmware.qemu import run_qemu
from mcu_export.firmware.results import FirmwareFault, FirmwareTimeout
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

pytestmark = NEEDS_ARM_QEMU

QEMU_BOARDS = ["corstone-300", "mps2-an505", "mps2-an386"]

# One build serves every run: the first byte of in.bin picks what the app does.
APP = r"""
#include <stdint.h>
#include "mx_platform.h"

__attribute__((noinline)) void mx_app_fault(void) { __asm volatile("udf #7"); }

int main(void)
{
    uint8_t buf[256];
    mx_platform_puts("mx-app: hello from the board\n");
    int in = mx_semihost_open("in.bin", MX_SEMIHOST_MODE_RB);
    long n = in < 0 ? -1 : mx_semihost_flen(in);
    if (n < 2 || n > (long)sizeof buf || mx_semihost_read(in, buf, (size_t)n) != 0) {
        return 1;
    }
    mx_semihost_close(in);
    if (buf[0] == 'F') {
        mx_app_fault();
    }
    while (buf[0] == 'L') {
    }
    uint8_t *payload = buf + 2;
    long len = n - 2;
    for (long i = 0; i < len / 2; i++) {
        uint8_t t = payload[i];
        payload[i] = payload[len - 1 - i];
        payload[len - 1 - i] = t;
    }
    int out = mx_semihost_open("out.bin", MX_SEMIHOST_MODE_WB);
    if (out < 0 || mx_semihost_write(out, payload, (size_t)len) != 0) {
        return 2;
    }
    mx_semihost_close(out);
    mx_platform_puts("mx-app: reversed ");
    mx_platform_put_dec((int32_t)len);
    mx_platform_puts(" bytes, stack used ");
    mx_platform_put_dec((int32_t)mx_platform_stack_used());
    mx_platform_puts("\n");
    return buf[1];
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cache = {}

    def get(board):
        if board not in cache:
            project = render_project(board, tmp_path_factory.mktemp(board), {"app/main.c": APP})
            cache[board] = build_project(project)
        return cache[board]

    return get


def _run(board, elf, tmp_path, data, **kw):
    (tmp_path / "in.bin").write_bytes(data)
    return run_qemu(board, elf, semihosting_dir=tmp_path, **kw)


@pytest.mark.parametrize("board", QEMU_BOARDS)
def test_uart_semihosting_files_and_exit_code(board, built, tmp_path):
    payload = bytes(range(1, 200))
    result = _run(board, built(board).elf, tmp_path, b"T" + bytes([37]) + payload, timeout=10)
    assert result.exit_code == 37
    assert "mx-app: hello from the board" in result.uart_text
    assert f"reversed {len(payload)} bytes" in result.uart_text
    assert (tmp_path / "out.bin").read_bytes() == payload[::-1]
    # The same ELF, new input, another exit code: nothing is rebuilt.
    again = _run(board, built(board).elf, tmp_path, b"T\x05xyz", timeout=10)
    assert again.exit_code == 5 and (tmp_path / "out.bin").read_bytes() == b"zyx"


@pytest.mark.parametrize("board", QEMU_BOARDS)
def test_hard_fault_reports_registers(board, built, tmp_path):
    with pytest.raises(FirmwareFault) as err:
        _run(board, built(board).elf, tmp_path, b"F\x00", timeout=10)
    message = str(err.value)
    assert "CFSR=" in message and "PC=" in message and "in mx_app_fault" in message
    assert err.value.registers["CFSR"] & (1 << 16)  # UFSR.UNDEFINSTR: the udf
    fault_fn = Elf(built(board).elf).symbols()["mx_app_fault"]
    assert fault_fn.address <= err.value.registers["PC"] < fault_fn.address + fault_fn.size


@pytest.mark.parametrize("board", QEMU_BOARDS[:1])
@pytest.mark.slow
def test_infinite_loop_times_out(board, built, tmp_path):
    with pytest.raises(FirmwareTimeout, match=r"did not exit within 1 s"):
        _run(board, built(board).elf, tmp_path, b"L\x00", timeout=1.0)
    result = _run(board, built(board).elf, tmp_path, b"L\x00", timeout=0.5, check_errors=False)
    assert result.timed_out and result.exit_code is None and result.seconds < 3


@pytest.mark.parametrize("board", QEMU_BOARDS)
def test_nothing_pulls_malloc(board, built):
    text = built(board).map.read_text()
    assert "firmware.ld" in text or "mx_reset_handler" in text
    for name in ("malloc", "_sbrk", "_malloc_r", "printf"):
        assert name not in text, f"{name} appears in {board}'s map"


def test_pico2_uf2_and_image_def(tmp_path):
    board = load_board("pico2")
    result = build_project(render_project(board, tmp_path / "p", {"app/main.c": APP}))
    e10, *blocks = uf2.read_uf2(result.uf2.read_bytes())  # RP2350-E10's absolute-family block first
    assert (e10.family_id, e10.address) == (0xE48BFF57, 0x10FFFF00)
    image = result.bin.read_bytes()
    assert len(blocks) == (len(image) + 255) // 256
    for i, b in enumerate(blocks):
        assert b.flags & 0x2000 and b.family_id == 0xE48BFF59
        assert (b.number, b.count, b.address) == (i, len(blocks), 0x10000000 + 256 * i)
    assert b"".join(b.payload for b in blocks)[: len(image)] == image
    marker = struct.pack("<5I", 0xFFFFDED3, 0x10210142, 0x000001FF, 0, 0xAB123579)
    at = image.find(marker)
    assert 0 <= at and at + len(marker) <= 4096, "IMAGE_DEF must lie in the first 4 KiB of flash"
    assert struct.unpack_from("<I", image, 4)[0] == Elf(result.elf).symbols()["mx_reset_handler"].value


@pytest.mark.skipif(
    shutil.which("clang-16") is None or shutil.which("ld.lld-16") is None,
    reason="corstone-320 needs clang-16 and lld-16 (apt-get install clang-16 lld-16)",
)
def test_corstone320_links_for_cortex_m85_with_clang(tmp_path):
    result = build_project(render_project("corstone-320", tmp_path / "p", {"app/main.c": APP}))
    elf = Elf(result.elf)
    assert b"cortex-m85" in elf.section_bytes(".ARM.attributes")
    assert elf.sections[".vectors"].addr == 0x11000000
    assert "malloc" not in result.map.read_text()


def test_missing_toolchain_says_what_to_install(tmp_path, monkeypatch):
    project = render_project("mps2-an386", tmp_path / "p", {"app/main.c": APP})
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ToolchainError, match=r"apt-get install .*gcc-arm-none-eabi libnewlib-arm-none-eabi"):
        build_project(project)


def test_board_without_qemu_machine(tmp_path):
    with pytest.raises(UsageError, match="corstone-320.*no QEMU machine"):
        run_qemu("corstone-320", tmp_path / "x.elf")


def test_fvp_command_line(tmp_path):
    cmd = fvp_command(load_board("corstone-300"), tmp_path / "fw.elf", timeout=30, semihosting_dir=tmp_path)
    assert cmd[0] == "FVP_Corstone_SSE-300_Ethos-U55"
    params = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-C"]
    for expected in (
        "mps3_board.uart0.out_file=-",
        "mps3_board.visualisation.disable-visualisation=1",
        "cpu0.semihosting-enable=1",
        "ethosu.num_macs=128",
        f"cpu0.semihosting-cwd={tmp_path}",
    ):
        assert expected in params
    assert cmd[-4:] == ["-a", str((tmp_path / "fw.elf").resolve()), "--timelimit", "30"]
    c320 = fvp_command(load_board("corstone-320"), tmp_path / "fw.elf")
    assert c320[0] == "FVP_Corstone_SSE-320" and "mps4_board.subsystem.cpu0.semihosting-enable=1" in c320


def test_fvp_missing_binary_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolchainError, match="FVP_Corstone_SSE-300_Ethos-U55 is not on PATH"):
        run_fvp("corstone-300", tmp_path / "fw.elf")


@pytest.mark.skipif(
    not fvp_available(load_board("corstone-300")),
    reason="FVP_Corstone_SSE-300_Ethos-U55 is not on PATH (Arm FVPs cannot be downloaded here)",
)
def test_fvp_runs_the_same_elf(built, tmp_path):
    (tmp_path / "in.bin").write_bytes(b"T\x07abc")
    result = run_fvp("corstone-300", built("corstone-300").elf, semihosting_dir=tmp_path, timeout=60)
    assert result.exit_code == 7 and (tmp_path / "out.bin").read_bytes() == b"cba"
