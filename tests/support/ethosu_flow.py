"""Helpers for the Ethos-U export tests: quantize once, lower to the CPU and to an NPU, and run both programs
in Python with the delegates on TOSA's reference model."""

from __future__ import annotations

import functools
from typing import List, Sequence

import numpy as np
import torch

from example_models import model_and_inputs  # tests/support
from mcu_export.ethosu.choice import NpuChoice
from mcu_export.ethosu.reference import tosa_delegate
from mcu_export.int8.interpreter import run_reference
from mcu_export.int8.pipeline import lower_quantized
from mcu_export.int8.prepare import quantize
from mcu_export.pte import program as pte


def calibration(inputs: Sequence[torch.Tensor], batches: int = 8, seed: int = 0) -> List[tuple]:
    gen = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(t.shape, generator=gen) for t in inputs) for _ in range(batches)]


@functools.lru_cache(maxsize=None)
def quantized_example(name: str):
    model, inputs = model_and_inputs(name)
    return quantize(model, inputs, calibration(inputs)), inputs


def lower(quantized, accelerator: str):
    """(program, info) of a quantized model on the CPU ("cortex-m") or with `accelerator`'s subgraphs."""
    npu = None if accelerator == "cortex-m" else NpuChoice(accelerator)
    program, info, _plan = lower_quantized(quantized, npu=npu)
    return program, info


def run_both(cpu_program, npu_program, npu_graphs, inputs) -> None:
    """The NPU program (delegates on TOSA's reference model) equals the CPU program bit for bit."""
    expected = run_reference(cpu_program, inputs)
    got = run_reference(npu_program, inputs, delegate=tosa_delegate(npu_graphs))
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(g, e)


def input_quantization(program: pte.Program):
    """(scale, zero point) of each model input, from the program's quantize calls (in input order)."""
    plan = program.method("forward")
    found = {}
    for instr in plan.chains[0].instructions:
        op = plan.operators[instr.op_index] if isinstance(instr, pte.KernelCall) else None
        if op is not None and op.name == "cortex_m::quantize_per_tensor" and instr.args[0] in plan.inputs:
            scale, zp = plan.values[instr.args[1]].double_val, plan.values[instr.args[2]].int_val
            found[instr.args[0]] = (scale, zp)
    return [found[i] for i in plan.inputs]


def inputs_for(program: pte.Program, shapes, kind: str, seed: int) -> List[torch.Tensor]:
    """Float inputs that quantize to chosen int8 values: "random" (anywhere in range), "saturating" (far
    outside it: every quantized input at -128 or 127), "ties" (alternating neighbours q, q + 1: averages and
    power-of-two requantizations land on halves)."""
    rng = np.random.default_rng(seed)
    out = []
    for (scale, zp), shape in zip(input_quantization(program), shapes):
        if kind == "saturating":
            q = rng.choice([-128, 127], size=shape)
            out.append(torch.from_numpy(((q - zp) * scale * 4.0).astype(np.float32)))
            continue
        if kind == "ties":
            base = int(rng.integers(-100, 100))
            q = base + (np.indices(shape).sum(axis=0) % 2)
        else:
            q = rng.integers(-128, 128, size=shape)
        out.append(torch.from_numpy(((q - zp) * scale).astype(np.float32)))
    return out
