"""The Ethos-U55/U65 driver (see test_ethosu_driver.py): malformed payloads and bad arguments refused before
any register is touched, every error's message; the cases of both files again under ASan/UBSan, and the
device files built for the Cortex-M55."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ethosu_driver_harness import (  # tests/support
    DRIVER,
    ROOT,
    SANITIZE,
    STATUS,
    Buffer,
    E,
    Npu,
    build_lib,
    compile_payloads,
    pack,
    stream_offset,
    words,
)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build_lib(tmp_path_factory)


@pytest.fixture(scope="module")
def payloads():
    return compile_payloads()


# ---- malformed payloads and arguments: refused before any register is touched ----


def _malformed(cmd: bytes):
    ws, at = words(cmd), stream_offset(cmd) // 4
    stream = ws[at:]
    tag, nop = 0x31504F43, 5
    return {
        "empty": (b"", "PAYLOAD_SIZE"),
        "not-words": (cmd[:-1], "PAYLOAD_SIZE"),
        "bad-tag": (b"COP2" + cmd[4:], "TAG"),
        "optimizer-config-cut": (cmd[:12], "TRUNCATED"),
        "stream-past-the-end": (cmd[:-4], "STREAM_LENGTH"),
        "empty-stream": (pack([tag, nop, nop, 2, *stream]), "STREAM_LENGTH"),  # length 0
        "unknown-action": (pack([*ws[:4], 3, *ws[5:]]), "ACTION"),  # Vela's ReadAPB debug action
        "no-stream": (pack(ws[:7]), "STREAM_COUNT"),
        "two-streams": (pack([*ws, nop, nop, nop, 1 << 16 | 2, 0]), "STREAM_COUNT"),
        "arch-too-new": (pack([*ws[:3], 0x10200000, *ws[4:]]), "OPT_ARCH"),  # 1.2.0 on a 1.1.0 NPU
        "arch-major": (pack([*ws[:3], 0x20000000, *ws[4:]]), "OPT_ARCH"),
        "other-product": (pack([*ws[:2], ws[2] | 1 << 28, *ws[3:]]), "OPT_PRODUCT"),
        "cmd-stream-version": (pack([*ws[:2], ws[2] | 1 << 4, *ws[3:]]), "OPT_CONFIG"),
        "custom-dma": (pack([*ws[:2], ws[2] | 1 << 27, *ws[3:]]), "OPT_CONFIG"),
    }


def test_malformed_payloads_are_refused_without_touching_a_register(lib, payloads):
    cmd = payloads["ethos-u55-128"]
    npu = Npu(lib)
    assert npu.init() == 0
    for name, (data, error) in _malformed(cmd).items():
        npu.clear_log()
        got = npu.run(Buffer(data), size=len(data))
        assert (name, got) == (name, E[error])
        assert npu.writes() == [] and lib.mx_ethosu_ram_reads(npu.io, STATUS) == 0 and npu.seen == []
    # The SHRAM size is not compared (as in Arm's driver), the architecture patch level neither.
    ws = words(cmd)
    for ok in (pack([*ws[:2], ws[2] ^ 0x100, *ws[3:]]), pack([*ws[:3], ws[3] | 0xF0000, *ws[4:]])):
        assert npu.run(Buffer(ok)) == 0


def test_a_payload_for_another_configuration_is_refused(lib, payloads):
    npu = Npu(lib)  # a U55-128
    assert npu.init() == 0
    npu.clear_log()
    assert npu.run(Buffer(payloads["ethos-u55-256"])) == E["OPT_CONFIG"]
    assert npu.run(Buffer(payloads["ethos-u65-256"])) == E["OPT_PRODUCT"]
    assert npu.writes() == [] and npu.seen == []


def test_bad_addresses_and_arguments_are_refused_without_touching_a_register(lib, payloads):
    cmd = payloads["ethos-u55-128"]
    npu = Npu(lib)
    assert npu.init() == 0
    npu.clear_log()
    assert npu.run(Buffer(cmd, misalign=4)) == E["ALIGN"]
    assert npu.run(Buffer(cmd), bases=(0x60000000, 0x21000008)) == E["ALIGN"]
    buf = Buffer(cmd)
    assert npu.run(buf, bases=tuple(range(0, 16 * 9, 16))) == E["ARG"]  # 9 regions
    assert lib.mx_ethosu_run(npu.state, buf.address, buf.size, None, 1, 10) == E["ARG"]
    assert lib.mx_ethosu_run(npu.state, None, 4, None, 0, 10) == E["ARG"]
    assert lib.mx_ethosu_run(None, buf.address, buf.size, None, 0, 10) == E["ARG"]
    assert lib.mx_ethosu_init(None, npu.io, None) == E["ARG"]
    assert npu.writes() == [] and npu.seen == []
    npu32 = Npu(lib)
    assert npu32.init(npu32.config(address_bits=32)) == 0
    npu32.clear_log()
    low = Buffer(cmd)
    if low.address < 1 << 32:  # pragma: no cover (hosts whose heap sits below 4 GiB)
        assert npu32.run(low, bases=(1 << 32,)) == E["ADDRESS"]
    else:
        assert npu32.run(low) == E["ADDRESS"]
    assert npu32.writes() == []
    assert lib.mx_ethosu_run(npu.state, buf.address, buf.size, None, 0, 10) == 0  # no regions at all is allowed


def test_every_error_has_its_own_message(lib):
    messages = {code: lib.mx_ethosu_strerror(code).decode() for code in E.values()}
    assert len(set(messages.values())) == len(E) and all(messages.values())
    assert lib.mx_ethosu_strerror(-26).decode() == lib.mx_ethosu_strerror(5).decode() == "unknown error"
    assert "unknown error" not in messages.values()
    header = (DRIVER / "ethosu_driver.h").read_text()
    assert all(f"MX_ETHOSU_E_{name} = {code}," in header for name, code in E.items() if code)


# ---- builds ----


@pytest.mark.slow
@pytest.mark.skipif(SANITIZE, reason="this is the sanitized run")
def test_the_same_cases_under_asan_and_ubsan():
    runtime = subprocess.run(["cc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(runtime) or not os.path.exists(runtime):
        pytest.skip("cc has no libasan")
    env = dict(os.environ, MX_ETHOSU_SANITIZE="1", LD_PRELOAD=runtime, ASAN_OPTIONS="detect_leaks=0")
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    # -s: a sanitizer's report goes to stderr and the process ends; pytest must not be holding it.
    files = [str(Path(__file__).with_name(f"test_ethosu_driver{s}.py")) for s in ("", "_u85")] + [__file__]
    cmd = [sys.executable, "-m", "pytest", *files, "-q", "-s", "-p", "no:logging", "-p", "no:cacheprovider"]
    proc = subprocess.run([*cmd, "-m", "not slow"], cwd=ROOT, env=env, capture_output=True, text=True)
    tail = (proc.stdout + proc.stderr)[-3000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout and "ERROR: AddressSanitizer" not in tail and "runtime error" not in tail


DEVICE_FILES = ["ethosu_driver.c", "ethosu_u85.c", "ethosu_pmu.c", "ethosu_io_mmio.c"]


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs arm-none-eabi-gcc")
@pytest.mark.parametrize("source", DEVICE_FILES)
def test_the_device_files_build_for_the_cortex_m55(tmp_path, source):
    flags = ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-std=c11", "-Wall", "-Wextra", "-Werror"]
    obj = tmp_path / "out.o"
    proc = subprocess.run(
        ["arm-none-eabi-gcc", *flags, "-ffreestanding", "-Os", "-c", str(DRIVER / source), "-o", str(obj)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    undefined = subprocess.run(["arm-none-eabi-nm", "-u", str(obj)], capture_output=True, text=True).stdout.split()
    # No allocator, no libc beyond what a struct initialiser may call: only the io seam, memset, the U85 part and
    # the PMU's.
    u85 = {"mx_ethosu_u85_config_default", "mx_ethosu_u85_check_config", "mx_ethosu_u85_write_axi"}
    pmu = {"mx_ethosu_pmu_start", "mx_ethosu_pmu_stop"}
    assert set(undefined[1::2]) <= {"mx_ethosu_io_read", "mx_ethosu_io_write", "memset", *u85, *pmu}


@pytest.mark.skipif(shutil.which("clang-format-16") is None, reason="needs clang-format-16")
def test_the_driver_is_formatted():
    files = sorted(map(str, DRIVER.glob("*.[ch]")))
    proc = subprocess.run(
        ["clang-format-16", "--dry-run", "--Werror", *files], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
