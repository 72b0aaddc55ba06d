"""What the semantic mutants share: their source programs, the Mutant record and its registry, and the edits
several mutants make. The catalog registers into MUTANTS from pte_mutants_memory.py (constants written, plans
that alias, sizes and work without bound) and pte_mutants_kernels.py (what the kernels' checks refuse);
pte_mutants.py gathers them.

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Dict, List

import numpy as np
import torch

from mcu_export.pte import program as P
from pte_mutations import Edit

INT32_MAX, INT32_MIN = (1 << 31) - 1, -(1 << 31)


class Mixer(torch.nn.Module):
    """One of each operator the mutants aim at; the input is read again late (the skip add), so it is
    live while later intermediates are computed."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.fc = torch.nn.Linear(32, 6)

    def forward(self, x):
        a, b = torch.split(torch.relu(self.conv(x)), [4, 4], dim=1)
        s = a + b + x
        f = torch.nn.functional
        c = torch.cat([f.max_pool2d(s, 2), f.avg_pool2d(s, 2)], dim=1)
        return torch.softmax(self.fc(f.avg_pool2d(c, 2).flatten(1)), dim=-1)


@dataclass(frozen=True)
class Source:
    pte: bytes
    inputs: List[np.ndarray]  # in memory order (the programs' inputs are contiguous)


def _export(model, inputs, quantize) -> Source:
    """Planned apart (overlap=False): a mutant changes one thing, and a shape edit must not also void an overlap the
    plan relied on (tests/test_overlap.py holds overlapped plans to the loader)."""
    import mcu_export.api

    art = mcu_export.api.export(model, inputs, quantize=quantize, overlap=False)
    return Source(art.pte, [x.numpy() for x in inputs])


@functools.lru_cache(maxsize=None)
def sources() -> Dict[str, Source]:
    from example_models import model_and_inputs

    torch.manual_seed(0)
    mixer = (Mixer().eval(), (torch.randn(1, 4, 8, 8),))
    out = {"mixer-f32": _export(*mixer, None), "mixer-i8": _export(*mixer, "int8")}
    for name, short in (("mnist_mlp", "mlp"), ("kws_dscnn", "kws")):
        model, inputs = model_and_inputs(name)
        out[f"{short}-i8"] = _export(model, inputs, "int8")
    out["mlp-f32"] = _export(*model_and_inputs("mnist_mlp"), None)
    return out


@dataclass(frozen=True)
class Mutant:
    name: str
    source: str
    error: str  # the errors.def name it must end in
    edit: Callable[[Edit], None]

    def build(self, pte: bytes) -> bytes:
        e = Edit(pte)
        self.edit(e)
        return e.build()


MUTANTS: List[Mutant] = []


def mutant(source: str, error: str):
    def register(fn):
        MUTANTS.append(Mutant(fn.__name__.replace("_", "-"), source, error, fn))
        return fn

    return register


# ---- shared edits -------------------------------------------------------------------------------------


def out_to_const(e: Edit, op: str, name: str = "out", nth: int = 0) -> None:
    """The call's out (and its return, which repeats it) becomes a constant of the same type."""
    c = e.call(op, nth)
    old = e.arg(c, name)
    e.retarget(c, old, e.new_const_like(old))


def replace_everywhere(e: Edit, old: int, new: int) -> None:
    for ins in e.instructions:
        if isinstance(ins, P.KernelCall):
            e.retarget(ins, old, new)
    e.plan.inputs[:] = [new if i == old else i for i in e.plan.inputs]
    e.plan.outputs[:] = [new if i == old else i for i in e.plan.outputs]


def move_into_const(e: Edit) -> None:
    src = e.plan.inputs[0]
    e.instructions.insert(0, P.MoveCall(src, e.new_const_like(src)))
    if e.plan.chains[0].stacktrace is not None:
        e.plan.chains[0].stacktrace.insert(0, [])


def fill_const(e: Edit, op: str, name: str, value: int, nth: int = 0) -> None:
    index = e.arg(e.call(op, nth), name)
    e.set_const_data(index, np.full_like(e.const_array(index), value))


def fill_ints(e: Edit, op: str, name: str, value: int, nth: int = 0) -> None:
    c = e.call(op, nth)
    e.set_ints(c, name, [value] * len(e.items(c, name)))


def huge_pool(e: Edit, op: str, dtype, channels_last: bool, window: int = 400) -> None:
    """Pool over a [1, 1, 2w-1, 2w-1] input with a w x w window, stride 1: (w*w) * (w*w) window reads,
    2.56e10 for w = 400, from tensors of 0.6 M elements: the shapes are consistent, only the work is huge."""
    c = e.call(op)
    order = (0, 2, 3, 1) if channels_last else None
    side = 2 * window - 1
    e.retarget(
        c, e.arg(c, "input" if op.startswith("cortex_m") else "self"), e.new_planned([1, 1, side, side], dtype, order)
    )
    e.retarget(c, e.arg(c, "out"), e.new_planned([1, 1, window, window], dtype, order))
    if op == "aten::max_pool2d_with_indices.out":
        e.retarget(c, e.arg(c, "indices"), e.new_planned([1, 1, window, window], np.int64))
    e.set_ints(c, "kernel_size", [window, window])
    e.set_ints(c, "stride", [1, 1])
    e.set_ints(c, "padding", [0, 0])
