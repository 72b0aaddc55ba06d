"""Shared by the tests of int8 ops that used to fall back to fp32: export a small model with
`fallback=False`, run it on the host C runtime and on the reference interpreter (bit for bit equal), and
hold both to the fp32 model (cosine per output, calibrated on the inputs' distribution)."""

from __future__ import annotations

from typing import List, Sequence

import numpy as np
import torch

from mcu_export.api import Artifact, export
from mcu_export.int8.interpreter import run_reference


def batches(shapes: Sequence[Sequence[int]], n: int, seed: int) -> List[tuple]:
    gen = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(*s, generator=gen) for s in shapes) for _ in range(n)]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def export_int8(model: torch.nn.Module, shapes: Sequence[Sequence[int]], calib: int = 24) -> Artifact:
    model.eval()
    data = batches(shapes, calib, 1)
    return export(model, data[0], quantize="int8", calibrate=lambda: iter(data), fallback=False)


def check_int8(model: torch.nn.Module, shapes: Sequence[Sequence[int]], floor: float = 0.99, ops=()) -> Artifact:
    """Exports `model` in int8 without fallback; asserts host == reference bit for bit and cosine >= floor
    against fp32 torch on fresh inputs; `ops`: qualified op names the program must call."""
    artifact = export_int8(model, shapes)
    called = {op.qualified for op in artifact.program.method("forward").operators}
    for op in ops:
        assert op in called, f"{op} not in {sorted(called)}"
    assert artifact.report["int8"]["fallbacks"] == []
    for inputs in batches(shapes, 3, 7):
        host = artifact.run(*inputs)
        reference = run_reference(artifact.program, list(inputs))
        with torch.no_grad():
            expected = model(*inputs)
        expected = expected if isinstance(expected, (tuple, list)) else (expected,)
        assert len(host) == len(reference) == len(expected)
        for h, r, e in zip(host, reference, expected):
            assert h.dtype == r.dtype and h.shape == r.shape and np.array_equal(h, r)
            assert h.shape == tuple(e.shape)
            assert cosine(h, e.numpy()) >= floor, cosine(h, e.numpy())
    return artifact


def check_against_fake_quant(model: torch.nn.Module, shapes: Sequence[Sequence[int]], lsb: float = 1.0) -> None:
    """The reference interpreter's outputs against PT2E's fake-quantized model (quantize → float op →
    quantize, in torch): within `lsb` output steps for 99% of the elements, every output."""
    from mcu_export.int8.pipeline import to_int8_program

    model.eval()
    data = batches(shapes, 24, 1)
    program, _info, _plan, quantized = to_int8_program(model, data[0], calibrate=data)
    output_node = next(n for n in quantized.ep.graph.nodes if n.op == "output")
    steps = [float(d.args[1]) for d in output_node.args[0]]  # each output's dequantize: its scale
    for inputs in batches(shapes, 2, 7):
        ours = run_reference(program, list(inputs))
        with torch.no_grad():
            fake = quantized.converted(*inputs)
        fake = fake if isinstance(fake, (tuple, list)) else (fake,)
        for o, f, step in zip(ours, fake, steps):
            close = np.abs(o.astype(np.float64) - f.numpy()) <= step * lsb * 1.001
            assert close.mean() >= 0.99, (close.mean(), step)
