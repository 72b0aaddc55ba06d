"""The quantization specs of CMSIS-NN's int8 scheme (TFLite's int8 spec), for PTQ and for QAT.

Activations: int8 asymmetric per tensor, [-128, 127]. Weights of conv and linear: int8 symmetric per
output channel (axis 0), [-127, 127] so that -w never overflows. Bias: int32 with scale
input_scale * weight_scale (per channel), zero point 0. Softmax output: fixed 1/256, -128 (what
arm_softmax_s8 produces); log-softmax output: fixed 16/256, 127.

Scales have floors: an all-zero (degenerate) range would otherwise give scale = float eps (1.2e-7), and
requantization multipliers against such a scale overflow the kernels' shifts. An activation whose
observed range is empty gets the floor ACT_MIN_SCALE; `calibrate.degenerate_observers` names them.
"""

from __future__ import annotations

import functools

import torch
from torchao.quantization.pt2e import (
    FakeQuantize,
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    PerChannelMinMaxObserver,
)
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationSpec,
)

ACT_QMIN, ACT_QMAX = -128, 127
WEIGHT_QMIN, WEIGHT_QMAX = -127, 127
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
SOFTMAX_SCALE, SOFTMAX_ZERO_POINT = 1.0 / 256, -128
LOG_SOFTMAX_SCALE, LOG_SOFTMAX_ZERO_POINT = 16.0 / 256, 127

# 2^-16: a requantization multiplier s_in * s_w / s_out against it stays well inside the kernels' shifts.
ACT_MIN_SCALE = 2.0**-16
# 2^-20: weights this small lose nothing that matters; a bias b/(s_in * s_w) still fits int32 for |b| < 2^11 s_in.
WEIGHT_MIN_SCALE = 2.0**-20


def activation_spec(qat: bool = False, histogram: bool = False) -> QuantizationSpec:
    if qat:
        ctr = FakeQuantize.with_args(
            observer=MovingAverageMinMaxObserver,
            quant_min=ACT_QMIN,
            quant_max=ACT_QMAX,
            dtype=torch.int8,
            qscheme=torch.per_tensor_affine,
            eps=ACT_MIN_SCALE,
        )
    elif histogram:
        ctr = HistogramObserver.with_args(eps=ACT_MIN_SCALE)
    else:
        ctr = MinMaxObserver.with_args(eps=ACT_MIN_SCALE)
    return QuantizationSpec(
        dtype=torch.int8,
        quant_min=ACT_QMIN,
        quant_max=ACT_QMAX,
        qscheme=torch.per_tensor_affine,
        is_dynamic=False,
        observer_or_fake_quant_ctr=ctr,
    )


def weight_spec(qat: bool = False, per_channel: bool = True, ch_axis: int = 0) -> QuantizationSpec:
    """ch_axis: the weight's output-channel axis (1 for a transposed convolution's [C_in, C_out, KH, KW])."""
    if per_channel:
        qscheme = torch.per_channel_symmetric
        observer = MovingAveragePerChannelMinMaxObserver if qat else PerChannelMinMaxObserver
    else:
        qscheme = torch.per_tensor_symmetric
        observer = MovingAverageMinMaxObserver if qat else MinMaxObserver
    kwargs = dict(quant_min=WEIGHT_QMIN, quant_max=WEIGHT_QMAX, dtype=torch.int8, qscheme=qscheme, eps=WEIGHT_MIN_SCALE)
    if per_channel:
        kwargs["ch_axis"] = ch_axis
    ctr = FakeQuantize.with_args(observer=observer, **kwargs) if qat else observer.with_args(**kwargs)
    return QuantizationSpec(
        dtype=torch.int8,
        quant_min=WEIGHT_QMIN,
        quant_max=WEIGHT_QMAX,
        qscheme=qscheme,
        ch_axis=ch_axis if per_channel else None,
        is_dynamic=False,
        observer_or_fake_quant_ctr=ctr,
    )


def _bias_qparams(observers):
    act, weight = observers
    act_scale, _ = act.calculate_qparams()
    weight_scale, _ = weight.calculate_qparams()
    scale = (act_scale * weight_scale).to(torch.float32)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def bias_spec(input_edge, weight_edge, per_channel: bool = True) -> DerivedQuantizationSpec:
    return DerivedQuantizationSpec(
        derived_from=[input_edge, weight_edge],
        derive_qparams_fn=_bias_qparams,
        dtype=torch.int32,
        quant_min=INT32_MIN,
        quant_max=INT32_MAX,
        qscheme=torch.per_channel_symmetric if per_channel else torch.per_tensor_symmetric,
        ch_axis=0 if per_channel else None,
    )


@functools.lru_cache(maxsize=None)
def softmax_output_spec(qat: bool = False):
    # PT2E's prepare makes a FixedQParamsQuantizationSpec a FixedQParamsFakeQuantize under QAT by itself (a
    # QuantizationSpec around FixedQParamsFakeQuantize fails there: it is handed dtype/quant_min keywords).
    return FixedQParamsQuantizationSpec(
        dtype=torch.int8,
        scale=SOFTMAX_SCALE,
        zero_point=SOFTMAX_ZERO_POINT,
        quant_min=ACT_QMIN,
        quant_max=ACT_QMAX,
        qscheme=torch.per_tensor_affine,
    )


def log_softmax_output_spec(qat: bool = False) -> FixedQParamsQuantizationSpec:
    """The fixed output of the int8 log-softmax (TFLite's convention): scale 16/256, zero point 127. PT2E's
    prepare makes it a FixedQParamsFakeQuantize under QAT by itself."""
    return FixedQParamsQuantizationSpec(
        dtype=torch.int8,
        scale=LOG_SOFTMAX_SCALE,
        zero_point=LOG_SOFTMAX_ZERO_POINT,
        quant_min=ACT_QMIN,
        quant_max=ACT_QMAX,
        qscheme=torch.per_tensor_affine,
    )
