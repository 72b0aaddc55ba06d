"""Each op's KernelCall signature as the C side needs it: argument names and schema types, which arguments are
outs, how many values it returns. Read from signatures.json, so that building the kernel table (the host
runtime, firmware) and `mcu-export run|ops` need no torch (importing it costs 2 s). The file is generated
from torch's own schemas (`python -m mcu_export.ops.signatures`); tests/test_op_signatures.py checks it
against torch, so it cannot drift from `OpDef.schema()`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Tuple

if TYPE_CHECKING:
    from mcu_export.ops.table import OpDef

FILE = Path(__file__).with_name("signatures.json")


@dataclass(frozen=True)
class Arg:
    name: str
    type: str  # torch's type text, as str(argument.type): "Tensor", "List[int]", "Optional[Tensor]", ...
    out: bool  # written by the kernel: `Tensor(a!) out`


@dataclass(frozen=True)
class Signature:
    args: Tuple[Arg, ...]
    returns: int


def from_schema(schema) -> Signature:
    """A torch.FunctionSchema's signature."""
    args = tuple(Arg(a.name, str(a.type), a.alias_info is not None and a.alias_info.is_write) for a in schema.arguments)
    return Signature(args, len(schema.returns))


def _as_json(sig: Signature) -> dict:
    return {"args": [[a.name, a.type, a.out] for a in sig.args], "returns": sig.returns}


@functools.lru_cache(maxsize=1)
def _table() -> Dict[str, Signature]:
    raw = json.loads(FILE.read_text())
    return {
        q: Signature(tuple(Arg(n, t, bool(o)) for n, t, o in entry["args"]), int(entry["returns"]))
        for q, entry in raw.items()
    }


def signature(op: "OpDef") -> Signature:
    found = _table().get(op.qualified)
    if found is None:
        raise ValueError(
            f"{op.qualified} is not in {FILE.name}: regenerate it with `python -m mcu_export.ops.signatures`"
        )
    return found


def generate() -> str:
    """signatures.json's text, from torch's schemas of every op in the table."""
    from mcu_export.ops.table import ALL_OPS

    rows = sorted((op.qualified, json.dumps(_as_json(from_schema(op.schema())))) for op in ALL_OPS)
    return "{\n" + ",\n".join(f" {json.dumps(q)}: {entry}" for q, entry in rows) + "\n}\n"  # an op per line


if __name__ == "__main__":
    from mcu_export.atomic import write_bytes

    write_bytes(FILE, generate().encode())
    print(f"wrote {FILE}")
