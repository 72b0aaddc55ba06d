"""Everything the report shows, gathered from an export folder: OUT/report.json (the export's figures, the
int8 fallbacks, the NPU partitions and Vela's estimates, and `firmware.BOARD` sizes the builds add),
OUT/model.pte (the memory plan, the instructions and their source lines) and OUT/last_run.json (what the last
`mcu-export run OUT` measured)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from mcu_export.errors import UsageError
from mcu_export.firmware.sizes import CATEGORIES
from mcu_export.report.plan import MemoryPlan, load_plan
from mcu_export.report.program import Instruction, Overlap, instructions, overlaps, producers

LAST_RUN = "last_run.json"  # `mcu-export run OUT` writes it (runners/command.py): the report's profile


@dataclass(frozen=True)
class OpTime:
    index: int
    op: str
    unit: str  # "CPU", "NPU" or "ticks" (a serial device's SysTick: `serial profile --chart`)
    value: Optional[int]  # CPU instructions, NPU cycles, ticks; None: not measured on its own (fused into a call)
    source: str = "measured"  # for NPU cycles: "PMU" or "vela estimate"


@dataclass
class Profile:
    board: str
    target: str
    ops: List[OpTime]
    instructions: Optional[int]  # the whole inference, CPU
    ticks: Optional[int]
    stack_used: Optional[int]


@dataclass
class BoardSizes:
    board: str
    flash: Dict[str, int]  # category -> bytes (firmware.sizes.CATEGORIES, in that order)
    ram: Dict[str, int]
    flash_total: int
    ram_total: int
    stack_used: Optional[int] = None


@dataclass
class ReportData:
    out: Path
    title: str
    report: Dict
    plan: MemoryPlan
    producers: Dict[int, str]  # planned value -> the operator that writes it (the timeline's colour)
    instructions: List[Instruction]
    overlaps: List[Overlap]
    profile: Optional[Profile]
    sizes: List[BoardSizes]
    fallbacks: List[Dict] = field(default_factory=list)
    partitions: Optional[Dict] = None
    npu: Optional[Dict] = None
    notes: List[str] = field(default_factory=list)

    @property
    def summary(self) -> List[Tuple[str, str]]:
        r, mem = self.report, self.report.get("memory", {})
        rows = [
            ("model", str(r.get("model", "(Python API)"))),
            ("precision", "int8" if "int8" in r else "fp32"),
            ("model.pte", f"{r.get('pte_bytes', 0):,} bytes"),
            ("instructions", f"{r.get('instructions', self.plan.instructions):,} ({r.get('kernel_calls', 0)} kernel calls)"),
            ("arena", f"{mem.get('arena_bytes', 0):,} bytes (lower bound {mem.get('lower_bound_bytes', 0):,})"),
            ("weights and constants", f"{mem.get('constant_bytes', 0):,} bytes"),
        ]  # fmt: skip
        if mem.get("overlaps"):
            rows.append(("outs over their inputs", str(mem["overlaps"])))
        if "int8" in r:
            rows.append(("backend", str(r["int8"].get("backend"))))
        return rows


def _read_json(path: Path) -> Optional[Dict]:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} is not readable JSON ({exc})") from None


def profile_of_run(run: Dict, plan: MemoryPlan) -> Profile:
    """CPU instructions per kernel call where the target counted them; per delegate call the NPU cycles a PMU
    counted, else Vela's estimate for its subgraph. run: run.json's layout (runners.report.run_json)."""
    ops = [OpTime(o["index"], o["op"], "CPU", o.get("instructions")) for o in run.get("per_op", [])]
    npu = run.get("npu") or {}
    measured = {m["instruction"]: m for m in npu.get("measured", [])}
    estimated = {s["delegate"]: s["cycles_npu"] for s in npu.get("subgraphs", [])}
    for step, label in sorted(plan.delegates.items()):
        delegate = int(label.split()[1])
        if step in measured:
            ops.append(OpTime(step, label, "NPU", measured[step]["cycles"], measured[step].get("source", "PMU")))
        elif delegate in estimated:
            ops.append(OpTime(step, label, "NPU", estimated[delegate], npu.get("source", "vela estimate")))
    ops.sort(key=lambda o: o.index)
    return Profile(
        run.get("board", "?"),
        run.get("target", "?"),
        ops,
        run.get("instructions_per_inference"),
        run.get("ticks"),
        run.get("stack_used_bytes"),
    )


def _sizes(report: Dict) -> List[BoardSizes]:
    out = []
    for board, entry in sorted((report.get("firmware") or {}).items()):
        flash, ram = entry.get("flash") or {}, entry.get("ram") or {}
        if "categories" not in flash or "categories" not in ram:
            continue  # a serving firmware's entry or an older layout: nothing to split
        out.append(
            BoardSizes(
                board,
                {c: int(flash["categories"].get(c, 0)) for c in CATEGORIES},
                {c: int(ram["categories"].get(c, 0)) for c in CATEGORIES},
                int(flash.get("total", 0)),
                int(ram.get("total", 0)),
                entry.get("stack_used_bytes"),
            )
        )
    return out


def export_folder(out: Union[str, Path]) -> Path:
    out = Path(out)
    if not (out / "model.pte").is_file() or not (out / "report.json").is_file():
        raise UsageError(f"{out} is not an export folder (it needs model.pte and report.json: `mcu-export export`)")
    return out


def gather(out: Union[str, Path]) -> ReportData:
    from mcu_export.pte.reader import read_program_file

    out = export_folder(out)
    report = _read_json(out / "report.json") or {}
    plan = load_plan(out)
    from mcu_export.pte import debug_map

    method = read_program_file(out / "model.pte").method("forward")
    run = _read_json(out / LAST_RUN)
    notes = []
    profile = profile_of_run(run, plan) if run else None
    if profile is None:
        notes.append(f"no run yet: `mcu-export run {out} --board BOARD` records one ({LAST_RUN})")
    elif not any(o.unit == "CPU" and o.value is not None for o in profile.ops):
        notes.append(f"the last run ({profile.board}, {profile.target}) counted no instructions per op: a "
                     "simulator board (e.g. --board corstone-300) does")  # fmt: skip
    sizes = _sizes(report)
    if not sizes:
        notes.append(f"no firmware built yet: `mcu-export build {out} --board BOARD` adds its flash and RAM")
    title = Path(str(report.get("model") or out.resolve().name)).name  # "file.py:factory"
    return ReportData(
        out=out,
        title=title,
        report=report,
        plan=plan,
        producers=producers(plan),
        instructions=instructions(method, debug_map.load(out / "model.pte", method)),
        overlaps=overlaps(plan),
        profile=profile,
        sizes=sizes,
        fallbacks=list((report.get("int8") or {}).get("fallbacks", [])),
        partitions=report.get("partitions"),
        npu=report.get("npu"),
        notes=notes,
    )
