"""Shared by the runtime tests: small .pte programs made by ExecuTorch itself (so the C reader is not
checked only against our own writer), and a minimal flatbuffer walker that finds the byte position of a
field so tests can corrupt exactly that field.

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import functools
import struct
from typing import Optional, Tuple

import torch

# Field ids of program.fbs (a union takes two ids: type, then value).
PROGRAM_PLANS, PROGRAM_CONSTANT_BUFFER, PROGRAM_SEGMENTS, PROGRAM_CONSTANT_SEGMENT = 1, 2, 4, 5
PLAN_VALUES, PLAN_INPUTS, PLAN_OUTPUTS, PLAN_CHAINS, PLAN_OPERATORS, PLAN_BUFFER_SIZES = 2, 3, 4, 5, 6, 8
CHAIN_INSTRUCTIONS = 2
TENSOR_SIZES, TENSOR_DATA_BUFFER_IDX, TENSOR_ALLOCATION_INFO = 2, 5, 6
TAG_TENSOR, INSTR_KERNEL_CALL = 5, 1


class LinearReLU(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


class SmallConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


MODELS = {
    "linear_relu": (LinearReLU, (2, 4)),
    "small_conv": (SmallConv, (1, 3, 8, 8)),
}


@functools.lru_cache(maxsize=None)
def et_model(name: str) -> Tuple[torch.nn.Module, torch.Tensor, bytes]:
    """(module, example input, .pte bytes written by ExecuTorch's own exporter)."""
    from executorch import exir

    cls, shape = MODELS[name]
    torch.manual_seed(0)
    module = cls().eval()
    x = torch.randn(*shape)
    program = exir.to_edge(torch.export.export(module, (x,))).to_executorch()
    return module, x, bytes(program.buffer)


# ---- a minimal flatbuffer walker (positions only; the buffers come from ExecuTorch, so they are valid) ----


def u16(b, p):
    return struct.unpack_from("<H", b, p)[0]


def u32(b, p):
    return struct.unpack_from("<I", b, p)[0]


def i32(b, p):
    return struct.unpack_from("<i", b, p)[0]


def root(b) -> int:
    return u32(b, 0)


def field(b, table: int, fid: int) -> Optional[int]:
    """Byte position of field `fid` of the table at `table`, or None when absent."""
    vt = table - i32(b, table)
    slot = 4 + 2 * fid
    if slot >= u16(b, vt):
        return None
    fo = u16(b, vt + slot)
    return table + fo if fo else None


def deref(b, pos: int) -> int:
    return pos + u32(b, pos)


def vector(b, table: int, fid: int) -> Tuple[int, int]:
    """(position of the vector's length word, element count)."""
    v = deref(b, field(b, table, fid))
    return v, u32(b, v)


def vec_table(b, vec: int, i: int) -> int:
    return deref(b, vec + 4 + 4 * i)


def plan(b) -> int:
    vec, _ = vector(b, root(b), PROGRAM_PLANS)
    return vec_table(b, vec, 0)


def values(b):
    """[(index, union tag, value table)] of the first plan's EValues."""
    vec, n = vector(b, plan(b), PLAN_VALUES)
    out = []
    for i in range(n):
        ev = vec_table(b, vec, i)
        tag_pos = field(b, ev, 0)
        tag = b[tag_pos] if tag_pos is not None else 0
        out.append((i, tag, deref(b, field(b, ev, 1)) if tag else None))
    return out


def kernel_calls(b):
    """Kernel-call tables of chain 0, in order."""
    chains, _ = vector(b, plan(b), PLAN_CHAINS)
    vec, n = vector(b, vec_table(b, chains, 0), CHAIN_INSTRUCTIONS)
    calls = []
    for i in range(n):
        ins = vec_table(b, vec, i)
        if b[field(b, ins, 0)] == INSTR_KERNEL_CALL:
            calls.append(deref(b, field(b, ins, 1)))
    return calls


def put_u32(b: bytearray, pos: int, value: int) -> bytearray:
    struct.pack_into("<I", b, pos, value & 0xFFFFFFFF)
    return b
