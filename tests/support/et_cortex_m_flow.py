"""int8 .pte programs made by ExecuTorch's own Cortex-M flow (executorch.backends.cortex_m), for interop tests:
the flow itself is mcu_export/bench_et_cortex_m.py (the bench compares its memory plan with ours).

    case = et_case("conv_relu", "M55")
    case.pte            # the ExecuTorch program (bytes)
    case.inputs         # a fresh random batch (tensors, channels-last where 4-D), not used in calibration
    case.fake_quant     # the converted PT2E module's outputs on case.inputs (numpy, fp32): the expected numbers
    case.output_scales  # scale of each program output (its final cortex_m::dequantize_per_tensor)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Dict, List, Tuple

import numpy as np
import torch
from torch import nn

from mcu_export.bench_et_cortex_m import channels_last

CALIBRATION_BATCHES = 4


def _conv_relu():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()), [(1, 3, 8, 8)]


def _depthwise():
    # groups == C_in with C_out = 2 * C_in: depthwise with depth_multiplier 2, strided
    return nn.Conv2d(4, 8, 3, stride=2, padding=1, groups=4), [(1, 4, 9, 9)]


def _linear():
    return nn.Linear(20, 12), [(3, 20)]


class _Add(nn.Module):
    def forward(self, x, y):
        return x + y


class _Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x * 3.0, dim=-1)


def _add():
    return _Add(), [(1, 4, 5, 6), (1, 4, 5, 6)]


def _avg_pool():
    return nn.AvgPool2d(3, stride=2, padding=1), [(1, 6, 9, 9)]


def _max_pool():
    return nn.MaxPool2d(3, stride=2, padding=1), [(1, 6, 9, 9)]


def _softmax():
    return _Softmax(), [(2, 10)]


def _example(name: str) -> Callable:
    def make():
        from mcu_export import examples
        from mcu_export.model_spec import load_model

        model, inputs = load_model(examples.spec(name))
        return model, [tuple(x.shape) for x in inputs]

    return make


MODELS: Dict[str, Callable[[], Tuple[nn.Module, List[tuple]]]] = {
    "conv_relu": _conv_relu,
    "depthwise": _depthwise,
    "linear": _linear,
    "add": _add,
    "avg_pool": _avg_pool,
    "max_pool": _max_pool,
    "softmax": _softmax,
    "mnist_mlp": _example("mnist_mlp"),
    "kws_dscnn": _example("kws_dscnn"),
}
# mnist_mlp's inputs are pixel intensities in [0, 1); the rest take standard normal data.
UNIFORM_INPUTS = {"mnist_mlp"}


def _batch(shapes, gen, uniform) -> tuple:
    draw = torch.rand if uniform else torch.randn
    return tuple(channels_last(draw(s, generator=gen)) for s in shapes)


@dataclass
class EtCase:
    name: str
    cpu: str
    pte: bytes
    inputs: tuple
    fake_quant: List[np.ndarray]
    output_scales: List[float]
    edge_ops: List[str]


def output_scales(program) -> List[float]:
    """Scale of each output, from the cortex_m::dequantize_per_tensor call that writes it."""
    plan = program.method("forward")
    by_out = {}
    for chain in plan.chains:
        for call in chain.instructions:
            if plan.operators[call.op_index].qualified == "cortex_m::dequantize_per_tensor.out":
                by_out[call.args[-1]] = plan.values[call.args[1]].double_val
    return [by_out[i] for i in plan.outputs]


@functools.lru_cache(maxsize=None)
def et_case(name: str, cpu: str = "M55", seed: int = 0) -> EtCase:
    """ExecuTorch's Cortex-M program for MODELS[name] with target `cpu` (a CortexM member name)."""
    from mcu_export.bench_et_cortex_m import et_cortex_m_program
    from mcu_export.pte.reader import read_program

    torch.manual_seed(seed)
    model, shapes = MODELS[name]()
    gen = torch.Generator().manual_seed(seed + 1)
    uniform = name in UNIFORM_INPUTS
    example = _batch(shapes, gen, uniform)
    calibration = [_batch(shapes, gen, uniform) for _ in range(CALIBRATION_BATCHES)]
    flow = et_cortex_m_program(model, example, calibration, cpu)
    pte, converted, ops = flow.pte, flow.converted, flow.edge_ops

    inputs = _batch(shapes, gen, uniform)
    with torch.no_grad():
        want = converted(*inputs)
    want = [w.detach().numpy() for w in (want if isinstance(want, (tuple, list)) else (want,))]
    return EtCase(name, cpu, pte, inputs, want, output_scales(read_program(pte)), ops)
