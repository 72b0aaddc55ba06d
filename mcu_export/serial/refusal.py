"""What the host adds to a device's refusal of a program it is loading: the device sends codes only (its error
body has room for an operator's name, and a delegate call has none), but the host has the .pte, so it can name the
delegate whose backend the firmware lacks (0x0309) and an Ethos-U delegate that wants the platform scratch that
serving firmware does not give (0x0202 from the backend's load-time check; mcu_export/firmware/serve_project.py)."""

from __future__ import annotations

from typing import Optional

BACKEND_MISSING = 0x0309
ARENA_MISSING = 0x0202


def _delegate_ids(image: bytes, instruction: int) -> list:
    """The ids of the delegates `instruction` calls (when it is a DelegateCall), else of every delegate of the
    program's forward method (the device may not say which call it refused)."""
    from mcu_export.pte import program as P
    from mcu_export.pte.reader import read_program

    try:
        plan = read_program(image).method("forward")
    except Exception:  # not a program the host can read: the device's line stays as it was
        return []
    instructions = plan.chains[0].instructions if plan.chains else []
    if 0 <= instruction < len(instructions):
        ins = instructions[instruction]
        if isinstance(ins, P.DelegateCall):
            return [plan.delegates[ins.delegate_index].id]
    return list(dict.fromkeys(d.id for d in plan.delegates))


def explain(image: bytes, status: int, instruction: int) -> Optional[str]:
    """One line for a LOAD_END refusal of `image` with `status` at `instruction` (-1: none), or None to keep the
    device's own."""
    if status == BACKEND_MISSING:
        ids = _delegate_ids(image, instruction)
        if not ids:
            return None
        names = ", ".join(f"'{i}'" for i in ids)
        return (
            f"device refused: delegate {names} has no backend in this firmware (build it with --serve on a board "
            "with an NPU, or export with --backend cortex-m)"
        )
    if status == ARENA_MISSING and "EthosUBackend" in _delegate_ids(image, instruction):
        return (
            "device refused: delegate 'EthosUBackend' is called without a scratch argument (an ExecuTorch-written "
            "program), and serving firmware has no platform scratch for it (export it with mcu-export)"
        )
    return None
