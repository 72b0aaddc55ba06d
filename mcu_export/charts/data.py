"""What `--chart` shows: the per-op times of one invoke and the memory plan of the program that ran, in the
report's own types (report.data.Profile, report.plan.MemoryPlan), so that the report's figures draw them. Built
from a serial `Profile` (ticks) or a simulator `ModelRun` (instructions per op, NPU cycles at delegate calls)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from mcu_export.errors import UsageError
from mcu_export.report.data import OpTime, Profile, profile_of_run
from mcu_export.report.plan import MemoryPlan


@dataclass
class ChartData:
    title: str
    profile: Optional[Profile]  # None, or no op with a figure: no per-op panel
    plan: Optional[MemoryPlan] = None  # None: no timeline
    notes: List[str] = field(default_factory=list)  # said on the page: what is missing and why


def _check_same_program(profile, plan: MemoryPlan) -> None:
    """The device profiles whatever model is active; a timeline of another program would be a wrong chart."""
    if profile.ops and len(profile.ops) != plan.instructions:  # the device reports every instruction of its model
        raise UsageError(f"the profile has {len(profile.ops)} instructions, the program {plan.instructions}: "
                         "is --program the model loaded on the device?")  # fmt: skip
    for o in profile.ops:
        if o.index >= plan.instructions:
            raise UsageError(f"the profile has instruction {o.index}, the program only {plan.instructions}: "
                             "is --program the model loaded on the device?")  # fmt: skip
        name = o.name or o.kind
        if o.kind in ("kernel", "fused") and plan.ops.get(o.index, name) != name:
            raise UsageError(f"instruction {o.index} is {name} on the device but {plan.ops[o.index]} in the "
                             "program: is --program the model loaded on the device?")  # fmt: skip


def from_profile(profile, plan: Optional[MemoryPlan] = None, title: str = "serial profile") -> ChartData:
    """From `SerialClient.profile()`: SysTick ticks per instruction and of the whole invoke (one clock for
    kernels and delegate calls: a delegate's ticks are the CPU's wait for the NPU)."""
    if plan is not None:
        _check_same_program(profile, plan)
    ops = [OpTime(o.index, o.name or o.kind, "ticks", o.ticks) for o in profile.ops]
    notes = [] if plan else ["no memory plan: pass the program (--program OUT) for the arena timeline"]
    device = Profile("serial device", "serial", ops, None, profile.total_ticks or None, None)
    return ChartData(title, device, plan, notes)


def from_run(run, plan: MemoryPlan, title: str = "", npu: Optional[Dict] = None) -> ChartData:
    """From a `ModelRun`: instructions per kernel call where the target counted them (the icount plugin), and
    at each delegate call the NPU's cycles (npu: runners.report.npu_report), as the report reads last_run.json."""
    from mcu_export.runners.report import run_json

    notes = []
    if run.instructions_per_inference is None:
        hint = " (`mcu-export serial profile --chart` gives ticks per op)" if run.target == "serial" else ""
        notes.append(f"{run.target} runs count no instructions per op: only the arena timeline is shown{hint}")
    return ChartData(title or f"{run.board} ({run.target})", profile_of_run(run_json(run, npu), plan), plan, notes)
