"""A small int8 network as one .pte that calls every cortex_m kernel once, with its expected outputs from the
numpy references (and torch for quantize/dequantize): the firmware tests build it once per board.

    fp32 x [1, 6, 6, 3] -> quantize -> pad -> conv2d_nhwc -> depthwise_conv2d_nhwc -> add(conv, dw)
      -> max_pool2d_nhwc -> (the same bytes as channels-last [1, 8, 3, 3]) avg_pool2d -> (as [1, 8]) linear
      -> mul -> activation (LUT) -> softmax -> transpose -> dequantize
Outputs: the add's int8 result, the LUT's, and the final fp32 [10, 1].
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np
import torch

from cortex_m_cases import requant
from cortex_m_programs import NCHW_CHANNELS_LAST, OpProgram
from mcu_export.int8.lower import scratch as S
from mcu_export.int8.reference.convolution import arm_convolve_s8
from mcu_export.int8.reference.depthwise import arm_depthwise_conv_s8
from mcu_export.int8.reference.elementwise import add_params, arm_elementwise_add_s8, arm_elementwise_mul_s8
from mcu_export.int8.reference.fully_connected import arm_fully_connected_s8, arm_vector_sum_s8
from mcu_export.int8.reference.lut import arm_quantized_activation_s8, build_lut
from mcu_export.int8.reference.pad import arm_pad_s8
from mcu_export.int8.reference.pooling import arm_avgpool_s8, arm_max_pool_s8
from mcu_export.int8.reference.softmax import arm_softmax_s8, softmax_params

I8 = np.int8
SCALE, ZP = 0.04, 3


def _scratch(p: OpProgram, size: int) -> int:
    return p.planned((size,), np.uint8)


def chain(seed: int = 0) -> Tuple[bytes, List[np.ndarray], List[np.ndarray]]:
    """(pte, inputs, expected outputs)."""
    rng = np.random.default_rng(seed)
    p = OpProgram()
    x = rng.normal(0, 2, (1, 6, 6, 3)).astype(np.float32)
    xi = p.input(x)

    q0 = p.call(
        "cortex_m::quantize_per_tensor.out",
        [xi, p.double(SCALE), p.int_(ZP), p.int_(-128), p.int_(127), p.int_(1)],
        p.planned(x.shape, I8),
    )
    e0 = torch.ops.quantized_decomposed.quantize_per_tensor(
        torch.from_numpy(x), SCALE, ZP, -128, 127, torch.int8
    ).numpy()
    pre, post = [0, 1, 1, 0], [0, 1, 0, 0]
    e1 = arm_pad_s8(e0, ZP, pre, post)  # [1, 8, 7, 3]
    q1 = p.call("cortex_m::pad.out", [q0, p.ints(pre), p.ints(post), p.int_(ZP)], p.planned(e1.shape, I8))

    w = rng.integers(-127, 128, (8, 3, 3, 3)).astype(I8)
    b = rng.integers(-3000, 3000, 8).astype(np.int32)
    m, s = requant(rng, 8, (-10, -7))
    e2 = arm_convolve_s8(
        e1,
        w,
        b,
        input_offset=-ZP,
        output_offset=-5,
        multipliers=m,
        shifts=s,
        stride=(1, 1),
        padding=(0, 0),
        output_hw=(6, 5),
    )  # [1, 6, 5, 8]
    size = max(S.conv_scratch(isa, e1.shape, w.shape, e2.shape, (1, 1), (0, 0), (1, 1)) for isa in S.ISAS)
    q2 = p.call(
        "cortex_m::quantized_conv2d_nhwc.out",
        [
            q1,
            p.const(w),
            p.const(b),
            p.ints([1, 1]),
            p.ints([0, 0]),
            p.ints([1, 1]),
            p.int_(-ZP),
            p.int_(-5),
            p.const(m),
            p.const(s),
            p.int_(-128),
            p.int_(127),
            _scratch(p, size),
        ],
        p.planned(e2.shape, I8),
    )

    wd = rng.integers(-127, 128, (1, 3, 3, 8)).astype(I8)
    bd = rng.integers(-2000, 2000, 8).astype(np.int32)
    md, sd = requant(rng, 8, (-8, -5))
    e3 = arm_depthwise_conv_s8(
        e2,
        wd,
        bd,
        ch_mult=1,
        input_offset=5,
        output_offset=2,
        multipliers=md,
        shifts=sd,
        padding=(1, 1),
        activation=(-128, 127),
        output_hw=(6, 5),
    )
    size = max(S.depthwise_scratch(isa, e2.shape, (3, 3), e3.shape, (1, 1), (1, 1), (1, 1)) for isa in S.ISAS)
    q3 = p.call(
        "cortex_m::quantized_depthwise_conv2d_nhwc.out",
        [
            q2,
            p.const(wd),
            p.const(bd),
            p.ints([1, 1]),
            p.ints([1, 1]),
            p.ints([1, 1]),
            p.int_(1),
            p.int_(5),
            p.int_(2),
            p.const(md),
            p.const(sd),
            p.int_(-128),
            p.int_(127),
            _scratch(p, size),
        ],
        p.planned(e3.shape, I8),
    )

    prm = add_params(0.1, -5, 0.07, 2, 0.12, -1)
    e4 = arm_elementwise_add_s8(e2, e3, **prm, out_activation_min=-128, out_activation_max=127)
    q4 = p.call(
        "cortex_m::quantized_add.out",
        [
            q2,
            p.int_(-5),
            p.int_(prm["input_1_mult"]),
            p.int_(prm["input_1_shift"]),
            q3,
            p.int_(2),
            p.int_(prm["input_2_mult"]),
            p.int_(prm["input_2_shift"]),
            p.int_(-1),
            p.int_(prm["out_mult"]),
            p.int_(prm["out_shift"]),
            p.int_(-128),
            p.int_(127),
        ],
        p.planned(e4.shape, I8),
    )

    e5 = arm_max_pool_s8(e4, (2, 2), (2, 2), (0, 1), (3, 3))  # [1, 3, 3, 8]
    q5 = p.call(
        "cortex_m::quantized_max_pool2d_nhwc.out",
        [
            q4,
            p.ints([2, 2]),
            p.ints([2, 2]),
            p.ints([0, 1]),
            p.ints([1, 1]),
            p.bool_(False),
            p.int_(-1),
            p.int_(-1),
            p.int_(-128),
            p.int_(127),
        ],
        p.planned(e5.shape, I8),
    )

    e6 = arm_avgpool_s8(e5, (3, 3), (1, 1), (0, 0), (1, 1))  # [1, 1, 1, 8]
    q5_cl = p.alias(q5, (1, 8, 3, 3), NCHW_CHANNELS_LAST)
    q6 = p.call(
        "cortex_m::quantized_avg_pool2d.out",
        [
            q5_cl,
            p.ints([3, 3]),
            p.ints([1, 1]),
            p.ints([0, 0]),
            p.bool_(False),
            p.int_(-1),
            p.int_(1 << 30),
            p.int_(0),
            _scratch(p, max(S.avgpool_scratch(isa, 8) for isa in S.ISAS)),
        ],
        p.planned((1, 8, 1, 1), I8, NCHW_CHANNELS_LAST),
    )

    wl = rng.integers(-127, 128, (10, 8)).astype(I8)
    bl = rng.integers(-500, 500, 10).astype(np.int32)
    ml, sl = requant(rng, 10, (-6, -4))
    e7 = arm_fully_connected_s8(
        e6.reshape(1, 8),
        wl,
        bl,
        input_offset=1,
        filter_offset=0,
        output_offset=4,
        multiplier=int(ml[0]),
        shift=int(sl[0]),
    )
    ks = arm_vector_sum_s8(wl, 1, 0, bl)
    q7 = p.call(
        "cortex_m::quantized_linear.out",
        [
            p.alias(q6, (1, 8)),
            p.const(wl),
            p.null(),
            p.const(ks),
            p.int_(1),
            p.int_(0),
            p.int_(4),
            p.ints([int(ml[0])]),
            p.ints([int(sl[0])]),
            p.int_(127),
            p.int_(-128),
        ],
        p.planned((1, 10), I8),
    )

    e8 = arm_elementwise_mul_s8(e7, e7, -4, -4, -20, 1518500250, -6, -128, 127)
    q8 = p.call(
        "cortex_m::quantized_mul.out",
        [q7, p.int_(4), q7, p.int_(4), p.int_(-20), p.int_(1518500250), p.int_(-6)],
        p.planned((1, 10), I8),
    )
    lut = build_lut("tanh", 0.012, -20, 1 / 128, 0)
    e9 = arm_quantized_activation_s8(e8, lut)
    q9 = p.call("cortex_m::quantized_activation.out", [q8, p.const(lut)], p.planned((1, 10), I8))
    mult, shift, diff_min = softmax_params(1 / 128)
    e10 = arm_softmax_s8(e9, mult, shift, diff_min)
    q10 = p.call(
        "cortex_m::softmax.out",
        [q9, p.int_(-1), p.int_(0), p.int_(-128), p.int_(mult), p.int_(shift), p.int_(diff_min)],
        p.planned((1, 10), I8),
    )
    e11 = np.ascontiguousarray(e10.T)
    q11 = p.call("cortex_m::transpose.out", [q10, p.ints([1, 0])], p.planned((10, 1), I8))
    out = p.call(
        "cortex_m::dequantize_per_tensor.out",
        [q11, p.double(1 / 256), p.int_(-128), p.int_(-128), p.int_(127), p.int_(1)],
        p.planned((10, 1), np.float32),
    )
    e12 = torch.ops.quantized_decomposed.dequantize_per_tensor(
        torch.from_numpy(e11), 1 / 256, -128, -128, 127, torch.int8
    ).numpy()
    return p.build_chain([q4, q9, out]), [x], [e4, e9, e12]
