"""The runtime core as static libraries for mobile hosts, without their SDKs: clang-16 and llvm-ar-16 alone.

The core (runtime_c/src, runtime_c/include) is C11 with no malloc and no stdio, so it compiles with
`-ffreestanding -nostdlibinc` against clang's own headers, plus runtime_c/mobile/string.h (C11's freestanding
headers have no <string.h>; an app's libc defines memcpy and the rest). One `libmx_runtime.a` per triple:

    python -m mcu_export.mobile OUT_DIR        # OUT_DIR/<triple>/libmx_runtime.a, for every triple below

Android's are ELF archives (the NDK's linker takes them), iOS's are Mach-O in Darwin archives (Xcode's).
With the NDK or Xcode installed, runtime_c/cmake/android.cmake and ios.cmake build the full host runner instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from mcu_export.assets import asset_dir
from mcu_export.errors import McuExportError, ToolchainError

# triple: the archive format llvm-ar writes for it (the platform linker's own)
TRIPLES: Dict[str, str] = {
    "aarch64-linux-android21": "gnu",
    "armv7a-linux-androideabi21": "gnu",
    "arm64-apple-ios15": "darwin",
    "arm64-apple-ios15-simulator": "darwin",
}
LIBRARY = "libmx_runtime.a"
CLANG = "clang-16"
LLVM_AR = "llvm-ar-16"
_INSTALL_HINT = {
    CLANG: "clang-16 (Debian: apt-get install clang-16)",
    LLVM_AR: "llvm-ar-16 (Debian: apt-get install llvm-16, which clang-16 brings along)",
}
# -ffp-contract=off: no fused multiply-adds, so float results are those of a host without FMA (x86_64).
# Android code is position independent (the NDK's default); Darwin's clang is PIC already.
_FLAGS = ["-std=c11", "-ffreestanding", "-nostdlibinc", "-O2", "-ffp-contract=off", "-ffunction-sections"]
_FLAGS += ["-fdata-sections", "-Wall", "-Wextra", "-Werror"]


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolchainError(f"'{name}' not found: install {_INSTALL_HINT.get(name, name)}")
    return path


def core_sources() -> List[Path]:
    """The core's C files, as the firmware projects take them (runtime_sources): every .c under runtime_c/src."""
    from mcu_export.firmware.model_project import RUNTIME_DIR, runtime_sources

    return [
        src for rel, src in runtime_sources().items() if rel.startswith(f"{RUNTIME_DIR}/src/") and src.suffix == ".c"
    ]


def compile_flags(triple: str) -> List[str]:
    runtime = asset_dir("runtime_c")
    flags = [f"--target={triple}", *_FLAGS, "-isystem", str(runtime / "mobile"), "-I", str(runtime / "include")]
    return flags + (["-fPIC"] if "android" in triple else [])


def compile_objects(triple: str, sources: Sequence[Path], out_dir: Path, extra: Sequence[str] = ()) -> List[Path]:
    """Objects of `sources` for `triple` in out_dir (named by source stem), compiled in parallel."""
    clang = require_tool(CLANG)
    out_dir.mkdir(parents=True, exist_ok=True)
    flags = compile_flags(triple) + list(extra)

    def one(src: Path) -> Path:
        obj = out_dir / f"{src.stem}.o"
        proc = subprocess.run(
            [clang, *flags, "-c", str(src), "-o", str(obj)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        if proc.returncode != 0:
            raise ToolchainError(f"{triple}: compiling {src.name} failed: {_first_error(proc.stdout)}")
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(one, sources))


def _first_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return next((line for line in lines if "error:" in line), lines[0] if lines else "no output")


def build_library(triple: str, out_dir: Path) -> Path:
    """out_dir/<triple>/libmx_runtime.a: the core compiled for `triple`."""
    ar = require_tool(LLVM_AR)
    folder = Path(out_dir) / triple
    objects = compile_objects(triple, core_sources(), folder / "obj")
    library = folder / LIBRARY
    library.unlink(missing_ok=True)  # llvm-ar adds to an existing archive; a stale member must not survive
    proc = subprocess.run(
        [ar, f"--format={TRIPLES[triple]}", "rcs", str(library), *map(str, objects)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if proc.returncode != 0:
        raise ToolchainError(f"{triple}: {LLVM_AR} failed: {_first_error(proc.stdout)}")
    shutil.rmtree(folder / "obj")
    return library


def archive_members(data: bytes) -> Iterator[Tuple[str, bytes]]:
    """(name, bytes) of each object in a GNU or Darwin (BSD) `ar` archive; the symbol tables are left out."""
    if not data.startswith(b"!<arch>\n"):
        raise ToolchainError("not an ar archive")
    pos, long_names = 8, b""
    while pos + 60 <= len(data):
        name = data[pos : pos + 16].decode().rstrip()
        size = int(data[pos + 48 : pos + 58].decode())
        body = data[pos + 60 : pos + 60 + size]
        pos += 60 + size + (size & 1)
        if name == "//":  # GNU: the names longer than 15 characters, each ending "/\n"
            long_names = body
            continue
        if name[:1] == "/" and name[1:].isdigit():  # GNU: "/offset" into that table
            name = long_names[int(name[1:]) :].split(b"/\n", 1)[0].decode()
        elif name.startswith("#1/"):  # Darwin: the name is the first N bytes of the body
            n = int(name[3:])
            name, body = body[:n].rstrip(b"\0").decode(), body[n:]
        if name in ("/", "/SYM64/") or name.startswith("__.SYMDEF"):
            continue
        yield name.rstrip("/"), body


_ELF_MACHINES = {183: "AArch64", 40: "ARM"}
_MACHO_PLATFORMS = {2: "iOS", 7: "iOS simulator"}
LC_BUILD_VERSION = 0x32


def object_format(obj: bytes) -> str:
    """'ELF64 AArch64', 'ELF32 ARM', 'Mach-O arm64 iOS', 'Mach-O arm64 iOS simulator', ... from the headers."""
    if obj[:4] == b"\x7fELF":
        bits = {1: "ELF32", 2: "ELF64"}.get(obj[4], "ELF?")
        (machine,) = struct.unpack_from("<H", obj, 18)
        return f"{bits} {_ELF_MACHINES.get(machine, f'machine {machine}')}"
    if obj[:4] == b"\xcf\xfa\xed\xfe":
        cputype, _, _, ncmds = struct.unpack_from("<iiII", obj, 4)
        arch = "arm64" if cputype == 0x0100000C else f"cputype {cputype:#x}"
        pos, platform = 32, "no build version"
        for _ in range(ncmds):
            cmd, size = struct.unpack_from("<II", obj, pos)
            if cmd == LC_BUILD_VERSION:
                (number,) = struct.unpack_from("<I", obj, pos + 8)
                platform = _MACHO_PLATFORMS.get(number, f"platform {number}")
            pos += size
        return f"Mach-O {arch} {platform}"
    return "unknown"


def build_all(out_dir: Path, triples: Sequence[str] = tuple(TRIPLES), say: Callable[[str], None] = print) -> List[Path]:
    for tool in (CLANG, LLVM_AR):
        require_tool(tool)  # before any work: a missing tool is the one line the user sees
    libraries = []
    for triple in triples:
        say(f"mcu-export: mobile: {triple}: compiling {len(core_sources())} core sources")
        library = build_library(triple, Path(out_dir))
        formats = sorted({object_format(body) for _, body in archive_members(library.read_bytes())})
        say(f"mcu-export: mobile: {triple}: {library} ({', '.join(formats)}, {library.stat().st_size} bytes)")
        libraries.append(library)
    return libraries


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mcu_export.mobile", description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, help="OUT_DIR/<triple>/libmx_runtime.a are written")
    parser.add_argument("--triple", action="append", choices=list(TRIPLES), help="only these (default: all)")
    args = parser.parse_args(argv)
    try:
        build_all(args.out_dir, args.triple or tuple(TRIPLES))
    except McuExportError as e:
        print(f"mcu-export: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
