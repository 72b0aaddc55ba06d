"""The CMSIS-NN sources a firmware needs: ours (cmsis_nn_kernels/) or an installed CMSIS-NN.

Both are one function per file, so the files a model needs are found by symbols: start from the
`arm_*` functions its cortex_m kernels call, add the file that defines each, then whatever that file
calls, until nothing new appears. Only those files are copied into the project.

An installed CMSIS-NN is a source tree or a CMSIS pack folder: PATH/Include/arm_nnfunctions.h and
PATH/Source/**.c (Arm's CMSIS-NN needs nothing else since v4.1: Include/Internal/arm_nn_compiler.h
replaces CMSIS-Core). Functions it lacks (arm_quantized_activation_s8: CMSIS-NN has no int8 lookup-table
op) still come from ours. `find_cmsis_nn` locates an installed pack offline, through cmsis-pack-manager.
"""

from __future__ import annotations

import os
import re
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple, Union

from mcu_export.assets import asset_dir
from mcu_export.errors import UsageError

PROJECT_DIR = "cmsis_nn"
PACK_NAME = "CMSIS-NN"

# A definition starts a line: return type, then the name and its parameter list (prototypes in headers
# are not scanned; a prototype in a .c file only adds a file, never loses one).
_DEFINITION = re.compile(r"^[A-Za-z_][\w \t*]*?\b(arm_\w+)\s*\(", re.M)
_CALL = re.compile(r"\b(arm_\w+)\s*\(")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _code(path: Path) -> str:
    return _COMMENT.sub(" ", path.read_text(errors="replace"))


@dataclass
class Library:
    """A CMSIS-NN flavour: where its headers are, and which .c file defines each function."""

    name: str
    include_dir: Path
    sources: List[Path]
    defines: Dict[str, Path] = field(default_factory=dict)

    def __post_init__(self):
        for src in self.sources:
            for name in _DEFINITION.findall(_code(src)):
                self.defines.setdefault(name, src)


def ours() -> Library:
    root = asset_dir("cmsis_nn_kernels")
    return Library("mcu-export", root / "include", sorted(root.glob("*.c")))


def installed(path: Union[str, Path]) -> Library:
    """An installed CMSIS-NN at `path` (source tree or pack folder); UsageError naming what is missing."""
    root = Path(path).expanduser()
    header = root / "Include" / "arm_nnfunctions.h"
    if not header.is_file():
        raise UsageError(
            f"no CMSIS-NN at {root}: {header} is missing (expected PATH/Include/arm_nnfunctions.h and PATH/Source/**.c)"
        )
    sources = sorted((root / "Source").rglob("*.c"))
    if not sources:
        raise UsageError(f"no CMSIS-NN sources under {root / 'Source'}")
    return Library(f"CMSIS-NN at {root}", root / "Include", sources)


def needed_sources(roots: Iterable[str], libraries: List[Library]) -> List[Tuple[Library, Path]]:
    """(library, file) for every function reachable from `roots`, each taken from the first library that
    defines it. Names no library defines (inline helpers in headers, macros) are left to the compiler."""
    chosen: Dict[Path, Library] = {}
    pending, seen = list(roots), set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        lib = next((l for l in libraries if name in l.defines), None)
        if lib is None:
            continue
        src = lib.defines[name]
        if src not in chosen:
            chosen[src] = lib
            pending.extend(_CALL.findall(_code(src)))
    return [(lib, src) for src, lib in sorted(chosen.items(), key=lambda kv: str(kv[0]))]


def called_functions(kernel_files: Iterable[Path]) -> List[str]:
    """The arm_* functions the given runtime kernel sources call."""
    names = set()
    for path in kernel_files:
        names.update(_CALL.findall(_code(path)))
    return sorted(names)


def calls_in(code: str) -> List[str]:
    """The arm_* functions a C source text calls (e.g. a generated one that is not a file yet)."""
    return sorted(set(_CALL.findall(_COMMENT.sub(" ", code))))


def project_files(
    kernel_files: Iterable[Path], cmsis_nn: Optional[Union[str, Path]] = None, extra_roots: Iterable[str] = ()
) -> Tuple[Dict[str, Path], List[str]]:
    """(project path -> source, include dirs) of the CMSIS-NN part of a firmware whose cortex_m kernels are
    `kernel_files` (and that calls `extra_roots` from elsewhere, e.g. generated model code): ours by
    default, else the installed CMSIS-NN at `cmsis_nn` with ours filling its gaps."""
    kernel_files = list(kernel_files)
    if not kernel_files:
        return {}, []
    own = ours()
    if cmsis_nn is None:
        libraries, header_root = [own], own.include_dir
    else:
        libraries = [installed(cmsis_nn), own]
        header_root = libraries[0].include_dir
    files: Dict[str, Path] = {}
    for header in sorted(header_root.rglob("*.h")):
        files[f"{PROJECT_DIR}/include/{header.relative_to(header_root).as_posix()}"] = header
    for lib, src in needed_sources([*called_functions(kernel_files), *extra_roots], libraries):
        # the installed library's files keep their Source/ sub-path; ours (a gap filler) go to src/
        rel = src.relative_to(lib.include_dir.parent / "Source") if lib is not own else src.name
        files[f"{PROJECT_DIR}/{'src' if lib is own else 'Source'}/{Path(rel).as_posix()}"] = src
    return files, [f"{PROJECT_DIR}/include"]


# ---- locating an installed CMSIS-NN pack ------------------------------------------------------------


def _pack_roots() -> List[Path]:
    """Where CMSIS packs live by default: $CMSIS_PACK_ROOT (CMSIS-Toolbox), its Linux default, and
    cmsis-pack-manager's own cache folder."""
    roots = []
    if os.environ.get("CMSIS_PACK_ROOT"):
        roots.append(Path(os.environ["CMSIS_PACK_ROOT"]))
    roots.append(Path.home() / ".cache" / "arm" / "packs")
    try:
        from appdirs import user_data_dir

        roots.append(Path(user_data_dir("cmsis-pack-manager")))
    except ImportError:
        pass
    return roots


def _pdsc_version(pdsc: Path) -> Tuple[int, ...]:
    """The newest <release version="..."> of a pack description, as a tuple (unparsable: ())."""
    try:
        releases = ET.parse(pdsc).getroot().find("releases")
    except ET.ParseError:
        return ()
    versions = [r.get("version", "") for r in (releases if releases is not None else [])]
    parsed = [tuple(int(p) for p in re.findall(r"\d+", v)[:3]) for v in versions if v]
    return max(parsed, default=())


def _is_valid_pack(pdsc: Path) -> bool:
    """cmsis-pack-manager parses the description offline (into a throw-away index)."""
    from cmsis_pack_manager import Cache

    with tempfile.TemporaryDirectory(prefix="mx-cmsis-pack-") as tmp:
        try:
            Cache(True, False, json_path=tmp, data_path=tmp).add_pack_from_path(str(pdsc))
        except Exception:  # cmsis-pack-manager raises a bare Exception with the parser's message
            return False
    return True


def find_cmsis_nn(pack_root: Optional[Union[str, Path]] = None) -> Optional[Path]:
    """The newest installed ARM.CMSIS-NN pack folder (holding Include/arm_nnfunctions.h and Source/) under
    `pack_root`, or under the default pack folders when None; None when there is none."""
    roots = [Path(pack_root)] if pack_root is not None else _pack_roots()
    found = []
    for root in roots:
        if not root.is_dir():
            continue
        for pdsc in root.rglob(f"ARM.{PACK_NAME}*.pdsc"):
            folder = pdsc.parent
            if (
                (folder / "Include" / "arm_nnfunctions.h").is_file()
                and (folder / "Source").is_dir()
                and _is_valid_pack(pdsc)
            ):
                found.append((_pdsc_version(pdsc), str(folder)))
    return Path(max(found)[1]) if found else None
