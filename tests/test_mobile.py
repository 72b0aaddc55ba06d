"""The runtime core on mobile hosts without their SDKs (mcu_export.mobile): the four static libraries built by
clang-16 alone and inspected (object format from the file headers, exported symbols from llvm-nm-16), and the
Android aarch64 core run under qemu-aarch64 on the MNIST MLP with outputs equal, byte for byte, to the x86_64
host runtime's."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from example_models import exported, model_and_inputs  # tests/support, on sys.path via conftest
from mcu_export import mobile
from mcu_export.assets import asset_dir

ANDROID64 = "aarch64-linux-android21"
# triple: (ELF class and e_machine) or (Mach-O cputype and LC_BUILD_VERSION platform)
EXPECTED = {
    "aarch64-linux-android21": ("ELF", 2, 183),  # ELFCLASS64, EM_AARCH64
    "armv7a-linux-androideabi21": ("ELF", 1, 40),  # ELFCLASS32, EM_ARM
    "arm64-apple-ios15": ("Mach-O", 0x0100000C, 2),  # CPU_TYPE_ARM64, PLATFORM_IOS
    "arm64-apple-ios15-simulator": ("Mach-O", 0x0100000C, 7),  # PLATFORM_IOSSIMULATOR
}
API = ("mx_program_init", "mx_program_method_meta", "mx_program_arena_size", "mx_method_load", "mx_method_execute")
SUPPORT = Path(__file__).parent / "support"


def _need(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    _need(mobile.CLANG, mobile.LLVM_AR)
    out = tmp_path_factory.mktemp("mobile")
    return {lib.parent.name: lib for lib in mobile.build_all(out, say=lambda line: None)}


def _headers(obj: bytes):
    if obj[:4] == b"\x7fELF":
        return ("ELF", obj[4], struct.unpack_from("<H", obj, 18)[0])
    assert obj[:4] == b"\xcf\xfa\xed\xfe", "neither ELF nor 64-bit little-endian Mach-O"
    cputype, _, _, ncmds = struct.unpack_from("<iiII", obj, 4)
    pos, platforms = 32, []
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", obj, pos)
        if cmd == mobile.LC_BUILD_VERSION:
            platforms.append(struct.unpack_from("<I", obj, pos + 8)[0])
        pos += size
    assert len(platforms) == 1, platforms
    return ("Mach-O", cputype, platforms[0])


@pytest.mark.slow
@pytest.mark.parametrize("triple", list(EXPECTED))
def test_library_objects_have_the_triples_format(libraries, triple):
    data = libraries[triple].read_bytes()
    members = dict(mobile.archive_members(data))
    assert {f"{src.stem}.o" for src in mobile.core_sources()} == set(members)
    for name, obj in members.items():
        assert _headers(obj) == EXPECTED[triple], name
    # the archive kind each platform's linker reads: GNU symbol table "/" or Darwin's "__.SYMDEF"
    first = data[8:24].decode().rstrip()
    if EXPECTED[triple][0] == "ELF":
        assert first == "/"
    else:
        assert first.startswith("#1/") and data[68:77] == b"__.SYMDEF"


@pytest.mark.slow
@pytest.mark.parametrize("triple", list(EXPECTED))
def test_library_exports_the_runtime_api_and_needs_only_the_c_library(libraries, triple):
    _need("llvm-nm-16")
    nm = lambda *flags: subprocess.run(  # noqa: E731
        ["llvm-nm-16", *flags, "--format=just-symbols", str(libraries[triple])],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout.split()
    prefix = "_" if EXPECTED[triple][0] == "Mach-O" else ""
    defined = set(nm("--defined-only", "--extern-only"))
    assert {prefix + name for name in API} <= defined
    # what an app links besides: the C library's string functions (and on Darwin, where clang protects the
    # stack by default, libSystem's stack guard), the kernel table the model build renders, and on 32-bit ARM
    # the EABI helpers from compiler-rt (the NDK and Xcode link all of these by default)
    outside = {s[len(prefix) :] for s in set(nm("--undefined-only")) - defined}
    libc = {"memcpy", "memset", "memcmp", "strcmp", "__stack_chk_fail", "__stack_chk_guard"}
    table = {"mx_kernel_table", "mx_kernel_table_len", "mx_kernel_arg_bounds", "mx_fusions", "mx_fusion_count"}
    table |= {"mx_backend_table", "mx_backend_table_len", "mx_delegates"}
    assert {s for s in outside if not s.startswith("__aeabi_")} <= libc | table


def test_a_missing_tool_is_one_line_naming_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert mobile.main([str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err]
    assert "'clang-16' not found: install clang-16 (Debian: apt-get install clang-16)" in err


def _model_data(pte: Path, inputs: Path) -> str:
    """C source of mx_model_pte and mx_model_input: the files' bytes, 16-byte aligned, with end symbols."""
    parts = []
    for symbol, path in (("mx_model_pte", pte), ("mx_model_input", inputs)):
        parts += [".balign 16", f".globl {symbol}", f"{symbol}:", f'.incbin "{path}"', f".globl {symbol}_end"]
        parts += [f"{symbol}_end:"]
    return '__asm__(".section .rodata\\n' + "\\n".join(p.replace('"', '\\"') for p in parts) + '\\n.text\\n");\n'


@pytest.mark.slow
def test_android_aarch64_core_under_qemu_equals_the_x86_64_host_runtime(libraries, tmp_path):
    _need("ld.lld-16", "qemu-aarch64", "cmake", "ninja")
    from mcu_export.firmware.model_project import kernel_sources, model_ops
    from mcu_export.host_runtime import render_kernel_table
    from mcu_export.runners import run_program_bytes

    artifact = exported("mnist_mlp")
    _, (example,) = model_and_inputs("mnist_mlp")
    x = np.random.default_rng(0).standard_normal(tuple(example.shape)).astype(np.float32)
    (expected,) = run_program_bytes(artifact.pte, [x], "host")

    ops = model_ops(artifact.program.execution_plan[0])
    (tmp_path / "model.pte").write_bytes(artifact.pte)
    (tmp_path / "input.bin").write_bytes(x.tobytes())
    (tmp_path / "kernel_table.c").write_text(render_kernel_table(ops))
    (tmp_path / "model_data.c").write_text(_model_data(tmp_path / "model.pte", tmp_path / "input.bin"))
    sources = [src for src in kernel_sources(ops).values() if src.suffix == ".c"]
    sources += [tmp_path / "kernel_table.c", tmp_path / "model_data.c", SUPPORT / "mobile_linux_main.c"]
    portable = asset_dir("runtime_c") / "kernels" / "portable"
    objects = mobile.compile_objects(ANDROID64, sources, tmp_path / "obj", ["-I", str(portable)])
    program = tmp_path / "mx_mobile_run"
    link = subprocess.run(
        ["ld.lld-16", "-static", "-nostdlib", "--gc-sections", "-e", "_start", "-o", str(program)]
        + [str(o) for o in objects]
        + [str(libraries[ANDROID64])],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert link.returncode == 0, link.stdout

    run = subprocess.run(["qemu-aarch64", str(program)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert run.returncode == 0, run.stderr.decode()
    assert run.stdout == expected.astype(np.float32).tobytes()
