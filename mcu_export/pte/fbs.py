"""A minimal reader of `.fbs` schema text: tables with their fields, unions, enums.

It serves two purposes: numbering the vtable slots that the writer and reader use from our own
`schema/program.fbs` (so the slot numbers live in one place, the schema), and letting a test compare
our schema with ExecuTorch's to catch drift. It understands only what the Program schema uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Tuple

SCHEMA_DIR = Path(__file__).with_name("schema")

_BLOCK = re.compile(r"\b(table|struct|union|enum)\s+(\w+)\s*(?::\s*(\w+))?\s*\{([^}]*)\}", re.S)
_FIELD = re.compile(r"(\w+)\s*:\s*([\w\[\]]+)")


@dataclass
class Schema:
    tables: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)  # name -> [(field, type)]
    unions: Dict[str, List[str]] = field(default_factory=dict)
    enums: Dict[str, Dict[str, int]] = field(default_factory=dict)
    file_identifier: str = ""


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def parse_fbs(text: str) -> Schema:
    text = _strip_comments(text)
    out = Schema()
    ident = re.search(r'file_identifier\s+"([^"]*)"', text)
    out.file_identifier = ident.group(1) if ident else ""
    for kind, name, _base, body in _BLOCK.findall(text):
        if kind in ("table", "struct"):
            fields = []
            for decl in body.split(";"):
                decl = re.sub(r"\([^)]*\)", "", decl)  # attributes such as (force_align: 16)
                m = _FIELD.search(decl)
                if m:
                    fields.append((m.group(1), m.group(2)))
            out.tables[name] = fields
        elif kind == "union":
            out.unions[name] = [m.strip() for m in body.split(",") if m.strip()]
        else:
            values: Dict[str, int] = {}
            nxt = 0
            for item in body.split(","):
                item = item.strip()
                if not item:
                    continue
                key, _, val = item.partition("=")
                nxt = int(val.strip(), 0) if val.strip() else nxt
                values[key.strip()] = nxt
                nxt += 1
            out.enums[name] = values
    return out


def parse_fbs_file(path: Path) -> Schema:
    """Parse a schema and the files it includes (relative to its folder)."""
    text = Path(path).read_text()
    merged = parse_fbs(text)
    for inc in re.findall(r'include\s+"([^"]+)"', _strip_comments(text)):
        sub = parse_fbs_file(Path(path).parent / inc)
        merged.tables.update(sub.tables)
        merged.unions.update(sub.unions)
        merged.enums.update(sub.enums)
    return merged


@lru_cache(maxsize=None)
def program_schema() -> Schema:
    return parse_fbs_file(SCHEMA_DIR / "program.fbs")


@lru_cache(maxsize=None)
def slots(table: str) -> Dict[str, int]:
    """Vtable slot of each field of `table`. A union field `f` takes two: `f_type` then `f`."""
    schema = program_schema()
    out: Dict[str, int] = {}
    n = 0
    for name, typ in schema.tables[table]:
        if typ in schema.unions:
            out[name + "_type"] = n
            n += 1
        out[name] = n
        n += 1
    return out
