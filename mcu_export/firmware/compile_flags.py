"""Compile flags per source of a firmware project, read from codegen/firmware/compile_flags.toml.

Every source gets the flags CMakeLists.txt.j2 gives the whole target (CPU, C standard, debug info, sections,
warnings), then those of the first `[[set]]` of the table whose `project` folder holds it (`project = ""`, the
last set, holds everything), then its own entry in that set's `files`, if any. The table is data, not code,
beside the template that renders it: it is part of the sources' fingerprint (mcu_export/firmware/fingerprint.py),
so changing a flag rebuilds every firmware that `mcu-export run` would otherwise reuse.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

from mcu_export.assets import asset_dir
from mcu_export.errors import UsageError

TABLE = "firmware/compile_flags.toml"  # under codegen/


@dataclass(frozen=True)
class SourceSet:
    name: str
    project: str  # the folder of the project holding the set's sources ("" = every source)
    flags: Tuple[str, ...]
    files: Dict[str, Tuple[str, ...]]  # path below `project` -> flags after the set's
    tree: Optional[str] = None  # where mcu-export keeps the same files (asset folder[/sub-folder]), if it does

    def holds(self, path: str) -> bool:
        return not self.project or path.startswith(self.project + "/")

    def relative(self, path: str) -> str:
        return path[len(self.project) + 1 :] if self.project else path


@functools.lru_cache(maxsize=1)
def sets() -> Tuple[SourceSet, ...]:
    path = asset_dir("codegen") / TABLE
    with open(path, "rb") as f:
        table = tomllib.load(f)
    out = []
    for entry in table.get("set", []):
        unknown = set(entry) - {"name", "project", "flags", "files", "tree"}
        if unknown:
            raise UsageError(f"{path}: set {entry.get('name')!r} has unknown keys {sorted(unknown)}")
        out.append(
            SourceSet(
                name=entry["name"],
                project=entry["project"].rstrip("/"),
                flags=tuple(entry.get("flags", ())),
                files={k: tuple(v) for k, v in entry.get("files", {}).items()},
                tree=entry.get("tree"),
            )
        )
    if not out or out[-1].project:
        raise UsageError(f'{path}: the last set must hold every other source (project = "")')
    return tuple(out)


def source_set(path: str) -> SourceSet:
    """The set a project path belongs to: the first whose folder holds it."""
    return next(s for s in sets() if s.holds(path))


def flags_for(path: str) -> Tuple[str, ...]:
    """The flags of one source (project path), after the target-wide ones."""
    s = source_set(path)
    return s.flags + s.files.get(s.relative(path), ())


def grouped(sources: Iterable[str]) -> List[Tuple[Tuple[str, ...], List[str]]]:
    """(flags, the sources taking them) for the template: one group per distinct flag list, in first-seen order."""
    groups: Dict[Tuple[str, ...], List[str]] = {}
    for src in sources:
        groups.setdefault(flags_for(src), []).append(src)
    return [(flags, srcs) for flags, srcs in groups.items() if flags]
