"""Shared checks of the int8 model tests: lower a small model with no fp32 fallback, run it on the host C
runtime and compare with the reference interpreter (bit for bit), with the fake-quantized PT2E graph
(within one output step) and with fp32 torch (cosine)."""

from __future__ import annotations

from typing import List, Sequence

import numpy as np
import torch

from mcu_export.int8.interpreter import run_reference
from mcu_export.int8.lower import match
from mcu_export.int8.pipeline import to_int8_program


def data(shape: Sequence[int], n: int, seed: int) -> List[tuple]:
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randn(tuple(shape), generator=gen),) for _ in range(n)]


def lower(model: torch.nn.Module, shape: Sequence[int], calib_batches: int = 16):
    """(program, quantized) of `model` in int8, calibrated on random batches; every op on an int8 kernel."""
    calib = data(shape, calib_batches, 1)
    program, info, _plan, quantized = to_int8_program(model.eval(), calib[0], calibrate=calib)
    assert info.fallbacks == [], info.fallbacks
    return program, quantized


def ops(program) -> List[str]:
    plan = program.execution_plan[0]
    return [plan.operators[i.op_index].qualified for i in plan.chains[0].instructions]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12))


def output_scale(quantized) -> float:
    out = next(n for n in quantized.ep.graph_module.graph.nodes if n.op == "output").args[0][0]
    return match.qparams(out).scale


def check_against_torch(model, program, quantized, shape, n: int = 4, min_cosine: float = 0.99) -> float:
    """Reference interpreter vs fp32 torch (cosine) and vs the fake-quantized graph (<= 1 output step for
    99 % of the values); returns the worst cosine."""
    scale = output_scale(quantized)
    worst, steps = 1.0, []
    for (x,) in data(shape, n, 2):
        ours = run_reference(program, [x])[0]
        worst = min(worst, cosine(ours, model(x).detach().numpy()))
        steps.append(np.abs(ours - quantized.converted(x).detach().numpy()).ravel() / scale)
    assert worst >= min_cosine, worst
    assert np.mean(np.concatenate(steps) <= 1.0 + 1e-3) > 0.99
    return worst


def cosine_only(model, program, shape, n: int = 4) -> float:
    """The worst cosine of the reference interpreter against fp32 torch (for ops whose int8 arithmetic is
    ours rather than a fake-quantized float op, where one output step against PT2E is not the contract)."""
    return min(cosine(run_reference(program, [x])[0], model(x).detach().numpy()) for (x,) in data(shape, n, 2))


def check_host_bit_exact(program, shape, n: int = 2) -> None:
    from mcu_export.pte.writer import write_program
    from mcu_export.runners import run_program_bytes

    pte = write_program(program)
    for (x,) in data(shape, n, 9):
        ours = run_reference(program, [x])[0]
        theirs = np.asarray(run_program_bytes(pte, [x.numpy()], board="host")[0])
        assert np.array_equal(theirs.view(np.uint32), ours.view(np.uint32))
