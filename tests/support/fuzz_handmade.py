"""Hand-made hostile programs that tests/test_fuzz.py replays through mx_fuzz beside the found ones in
tests/fuzz_regressions/: each breaks one rule of issue 12 on purpose, and names the error the runtime must
answer with (made at test time, so no blob a generator could make is kept in git).

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

from typing import Callable, Dict, NamedTuple

import numpy as np

from cortex_m_programs import OpProgram
from mcu_export.pte import program as P
from mcu_export.pte.writer import write_program

RELU = "aten::relu.out"
ADD = "aten::add.out"


class Hostile(NamedTuple):
    make: Callable[[], bytes]
    stage: str  # "program", "load" or "execute": where the refusal must come
    code: int  # the mx_error (runtime_c/include/mx/errors.def)


def _x() -> np.ndarray:
    return np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)


def constant_input() -> bytes:
    """The method's input is a constant: feeding it would write into the (read-only) program."""
    p = OpProgram(RELU)
    x = p.const(_x())
    p.inputs.append(x)
    return p.build([x], p.planned((2, 4), np.float32))


def constant_out() -> bytes:
    """A kernel's out tensor is a constant of the program."""
    p = OpProgram(RELU)
    x = p.input(_x())
    return p.build([x], p.const(np.zeros((2, 4), np.float32)))


def inputs_share_memory() -> bytes:
    """Two inputs, both live from the start, planned at the same arena offset."""
    p = OpProgram(ADD)
    x = p.input(_x())
    y = p.alias(x, (2, 4))
    p.inputs.append(y)
    return p.build([x, y, p.double(1.0)], p.planned((2, 4), np.float32))


def huge_arena() -> bytes:
    """An arena of 1 TiB: mx_fuzz refuses it (MX_ERR_TOO_LARGE) before allocating, as an embedder must."""
    p = OpProgram(RELU)
    x = p.input(_x())
    program = p.program([p.call(RELU, [x], p.planned((2, 4), np.float32))])
    program.execution_plan[0].non_const_buffer_sizes = [0, 1 << 40]
    return write_program(program)


def planned_offset_wraps() -> bytes:
    """The out tensor planned 16 bytes below 2**64: its end, offset + 32, wraps to 16, inside the arena's declared
    size; the loader once compared that wrapped end and placed the tensor 16 bytes before the arena."""
    p = OpProgram(RELU)
    x = p.input(_x())
    out = p.planned((2, 4), np.float32)
    p.values[out].allocation_info = P.AllocationDetails(1, (1 << 64) - 16)
    return p.build([x], out)


def truncated() -> bytes:
    p = OpProgram(RELU)
    x = p.input(_x())
    whole = p.build([x], p.planned((2, 4), np.float32))
    return whole[: len(whole) // 2]


# errors.def's codes, by name
TRUNCATED, TOO_LARGE, ARENA_TOO_SMALL, CONSTANT_WRITE, PLAN_OVERLAP = 0x0101, 0x0108, 0x0203, 0x0207, 0x0208

HOSTILE: Dict[str, Hostile] = {
    "constant_input": Hostile(constant_input, "load", CONSTANT_WRITE),
    "constant_out": Hostile(constant_out, "load", CONSTANT_WRITE),
    "inputs_share_memory": Hostile(inputs_share_memory, "load", PLAN_OVERLAP),
    "huge_arena": Hostile(huge_arena, "load", TOO_LARGE),
    "planned_offset_wraps": Hostile(planned_offset_wraps, "load", ARENA_TOO_SMALL),
    "truncated": Hostile(truncated, "program", TRUNCATED),
}
