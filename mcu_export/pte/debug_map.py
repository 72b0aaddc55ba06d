"""Per instruction, the line of the user's model it came from: report.json's `debug_map`, what ETRecord gives
ExecuTorch's tools, so that a profile row, a fault or `inspect` names `model.py:42 in Net.forward`.

One entry per instruction of `forward`'s chain: {index, op, node, torch_op, file, line, function, source}, the
last five None where torch recorded no stack trace (an input's quantize, an output copy); a delegate call also has
`covers`, the source of each call it replaced. The exporter fills
it from the graph (torch op, module class); a .pte alone gives less, from its chain's `stacktrace` (frames
as torch recorded them: no torch op, function without its class). No torch here: `inspect` and the runners
use it.
"""

from __future__ import annotations

import json
import os
import sysconfig
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from mcu_export.pte import program as P

_LIBRARY_DIRS = tuple(
    os.path.realpath(p) + os.sep
    for p in {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
)


def is_library(path: str) -> bool:
    """Inside Python's or an installed package's files (torch's nn.Conv2d.forward): not the user's line."""
    real = os.path.realpath(path)
    return real.startswith(_LIBRARY_DIRS) or f"{os.sep}torch{os.sep}" in real


def source_text(entry: Dict) -> Optional[str]:
    if entry.get("file") is None:
        return None
    return f"{os.path.basename(entry['file'])}:{entry['line']} in {entry['function']}"


def _entry(index: int, op: str, **where) -> Dict:
    entry = {"index": index, "op": op, "node": None, "torch_op": None, "file": None, "line": None, "function": None}
    entry.update(where)
    entry["source"] = source_text(entry)
    return entry


def from_lowering(infos: Sequence) -> List[Dict]:
    """From the builder's InstructionInfo list (mcu_export.lower.builder), in instruction order."""
    out = []
    for info in infos:
        src = getattr(info, "source", None)
        where = dict(file=src.frame.filename, line=src.frame.lineno, function=src.qualname) if src else {}
        entry = _entry(info.index, info.op, node=info.node, torch_op=info.torch_op, **where)
        if getattr(info, "covers", None):
            entry["covers"] = list(info.covers)  # a delegate call: every line of the calls it replaced
        out.append(entry)
    return out


def _op(plan: P.ExecutionPlan, ins: P.Instruction) -> str:
    if isinstance(ins, P.KernelCall):
        return plan.operators[ins.op_index].qualified
    if isinstance(ins, P.DelegateCall):
        return f"delegate:{plan.delegates[ins.delegate_index].id}"
    return {P.MoveCall: "move", P.JumpFalseCall: "jump_false"}.get(type(ins), "free")


def from_program(plan: P.ExecutionPlan) -> List[Dict]:
    """From a .pte's first chain and its stacktrace: the innermost frame outside installed libraries."""
    chain = plan.chains[0]
    traces = chain.stacktrace or [[] for _ in chain.instructions]
    out = []
    for i, (ins, frames) in enumerate(zip(chain.instructions, traces)):
        user = [f for f in frames if not is_library(f.filename)] or list(frames)
        where = dict(file=user[-1].filename, line=user[-1].lineno, function=user[-1].name) if user else {}
        out.append(_entry(i, _op(plan, ins), **where))
    return out


def load(pte_path: Path, plan: Optional[P.ExecutionPlan] = None) -> List[Dict]:
    """The debug map of an export: report.json's beside the .pte when it matches the .pte's instructions,
    else what the .pte itself records (`plan` when already read)."""
    if plan is None:
        from mcu_export.pte.reader import read_program_file

        plan = read_program_file(pte_path).method("forward")
    try:
        saved = json.loads(Path(pte_path).with_name("report.json").read_text()).get("debug_map")
    except (OSError, ValueError, AttributeError):
        saved = None
    ops = [_op(plan, ins) for ins in plan.chains[0].instructions]
    if isinstance(saved, list) and [e.get("op") for e in saved] == ops:
        return saved
    return from_program(plan)


def sources(entries: Sequence[Dict]) -> Dict[int, str]:
    """Instruction index → "model.py:42 in Net.forward", for the instructions that have one."""
    return {e["index"]: e["source"] for e in entries if e.get("source")}
