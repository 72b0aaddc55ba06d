"""Single-op cases for the cortex_m kernels: each builds a .pte with one kernel call (random int8 data,
constants for weights and requantization) and the expected output from the numpy references in
mcu_export/int8/reference/. A case is (pte bytes, inputs in logical layout, expected output in logical
layout). `nhwc` picks the op's *_nhwc spelling (sizes [N, H, W, C]) over the channels-last one
([N, C, H, W] in dim order 0, 2, 3, 1).

Scratch is sized as the exporter sizes it for an unknown target (the worst of the scalar, DSP and MVE
paths: mcu_export.int8.lower.scratch) or for the ISAs in `isas`, minus `scratch_short` bytes.
"""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

import numpy as np

from cortex_m_programs import NCHW_CHANNELS_LAST, OpProgram
from mcu_export.int8.lower import scratch as S
from mcu_export.int8.reference._common import conv_output_size
from mcu_export.int8.reference.convolution import arm_convolve_s8
from mcu_export.int8.reference.depthwise import arm_depthwise_conv_s8
from mcu_export.int8.reference.fully_connected import arm_fully_connected_s8, arm_vector_sum_s8
from mcu_export.int8.reference.pooling import arm_avgpool_s8, arm_max_pool_s8, pool_output_size

I8 = np.int8


class Case(NamedTuple):
    pte: bytes
    inputs: List[np.ndarray]
    expected: np.ndarray


def i8(rng, *shape) -> np.ndarray:
    return rng.integers(-128, 128, shape).astype(I8)


def requant(rng, n: int, shifts=(-14, -8)) -> Tuple[np.ndarray, np.ndarray]:
    """Per-channel Q31 multipliers in [2^30, 2^31) and right shifts: outputs spread over the int8 range."""
    mult = rng.integers(1 << 30, (1 << 31) - 1, n).astype(np.int32)
    shift = rng.integers(shifts[0], shifts[1] + 1, n).astype(np.int32)
    return mult, shift


def activation_io(p: OpProgram, x_nhwc: np.ndarray, out_nhwc_shape, nhwc: bool):
    """Input and out tensors of a 2-D op in the chosen spelling; returns (x index, out index, logical x,
    function mapping an NHWC result to the logical layout)."""
    if nhwc:
        return p.input(x_nhwc), p.planned(out_nhwc_shape, I8), x_nhwc, lambda a: a
    x = np.ascontiguousarray(x_nhwc.transpose(0, 3, 1, 2))
    n, h, w, c = out_nhwc_shape
    return (
        p.input(x, NCHW_CHANNELS_LAST),
        p.planned((n, c, h, w), I8, NCHW_CHANNELS_LAST),
        x,
        lambda a: np.ascontiguousarray(a.transpose(0, 3, 1, 2)),
    )


def conv_case(
    rng,
    nhwc: bool,
    n=1,
    h=6,
    w=7,
    c_in=4,
    c_out=5,
    k=(3, 3),
    stride=(1, 1),
    pad=(1, 1),
    dil=(1, 1),
    groups=1,
    bias=True,
    scratch_short=0,
    isas=S.ISAS,
) -> Case:
    x = i8(rng, n, h, w, c_in)
    wt = rng.integers(-127, 128, (c_out, k[0], k[1], c_in // groups)).astype(I8)
    b = rng.integers(-5000, 5000, c_out).astype(np.int32) if bias else None
    mult, shift = requant(rng, c_out)
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    act = (-100, 110)
    oh, ow = (conv_output_size(s, kk, st, pp, pp, d) for s, kk, st, pp, d in zip((h, w), k, stride, pad, dil))
    ref = arm_convolve_s8(
        x,
        wt,
        b,
        input_offset=in_off,
        output_offset=out_off,
        multipliers=mult,
        shifts=shift,
        stride=stride,
        padding=pad,
        dilation=dil,
        activation=act,
        output_hw=(oh, ow),
    )
    p = OpProgram(f"cortex_m::quantized_conv2d{'_nhwc' if nhwc else ''}.out")
    xi, out, x_logical, to_logical = activation_io(p, x, (n, oh, ow, c_out), nhwc)
    need = max(S.conv_scratch(isa, (n, h, w, c_in), wt.shape, (n, oh, ow, c_out), stride, pad, dil) for isa in isas)
    args = [
        xi,
        p.const(wt),
        p.const(b) if bias else p.null(),
        p.ints(stride),
        p.ints(pad),
        p.ints(dil),
        p.int_(in_off),
        p.int_(out_off),
        p.const(mult),
        p.const(shift),
        p.int_(act[0]),
        p.int_(act[1]),
        p.planned((max(need - scratch_short, 0),), np.uint8),
    ]
    return Case(p.build(args, out), [x_logical], to_logical(ref))


def depthwise_case(
    rng,
    nhwc: bool,
    n=1,
    h=7,
    w=6,
    c_in=6,
    mult_ch=1,
    k=(3, 3),
    stride=(1, 1),
    pad=(1, 1),
    dil=(1, 1),
    scratch_short=0,
    isas=S.ISAS,
) -> Case:
    c_out = c_in * mult_ch
    x = i8(rng, n, h, w, c_in)
    wt = rng.integers(-127, 128, (1, k[0], k[1], c_out)).astype(I8)
    b = rng.integers(-3000, 3000, c_out).astype(np.int32)
    mult, shift = requant(rng, c_out, (-10, -5))
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    oh, ow = (conv_output_size(s, kk, st, pp, pp, d) for s, kk, st, pp, d in zip((h, w), k, stride, pad, dil))
    ref = arm_depthwise_conv_s8(
        x,
        wt,
        b,
        ch_mult=mult_ch,
        input_offset=in_off,
        output_offset=out_off,
        multipliers=mult,
        shifts=shift,
        stride=stride,
        padding=pad,
        dilation=dil,
        output_hw=(oh, ow),
    )
    p = OpProgram(f"cortex_m::quantized_depthwise_conv2d{'_nhwc' if nhwc else ''}.out")
    xi, out, x_logical, to_logical = activation_io(p, x, (n, oh, ow, c_out), nhwc)
    need = max(S.depthwise_scratch(isa, (n, h, w, c_in), k, (n, oh, ow, c_out), stride, pad, dil) for isa in isas)
    args = [
        xi,
        p.const(wt),
        p.const(b),
        p.ints(stride),
        p.ints(pad),
        p.ints(dil),
        p.int_(mult_ch),
        p.int_(in_off),
        p.int_(out_off),
        p.const(mult),
        p.const(shift),
        p.int_(-128),
        p.int_(127),
        p.planned((max(need - scratch_short, 0),), np.uint8),
    ]
    return Case(p.build(args, out), [x_logical], to_logical(ref))


def pool_case(
    rng,
    kind: str,
    nhwc: bool,
    n=1,
    h=9,
    w=8,
    c=5,
    k=(3, 3),
    stride=(2, 2),
    pad=(1, 1),
    ceil_mode=False,
    act=(-128, 127),
    scratch_short=0,
) -> Case:
    x = i8(rng, n, h, w, c)
    oh, ow = (pool_output_size(s, kk, st, pp, ceil_mode) for s, kk, st, pp in zip((h, w), k, stride, pad))
    p = OpProgram(f"cortex_m::quantized_{kind}_pool2d{'_nhwc' if nhwc else ''}.out")
    xi, out, x_logical, to_logical = activation_io(p, x, (n, oh, ow, c), nhwc)
    zp = int(rng.integers(-128, 128))
    if kind == "avg":
        ref = arm_avgpool_s8(x, k, stride, pad, (oh, ow))
        need = max(S.avgpool_scratch(isa, c) for isa in S.ISAS)
        args = [
            xi,
            p.ints(k),
            p.ints(stride),
            p.ints(pad),
            p.bool_(ceil_mode),
            p.int_(zp),
            p.int_(1 << 30),
            p.int_(1),
            p.planned((max(need - scratch_short, 0),), np.uint8),
        ]
    else:
        ref = arm_max_pool_s8(x, k, stride, pad, (oh, ow), *act)
        args = [
            xi,
            p.ints(k),
            p.ints(stride),
            p.ints(pad),
            p.ints([1, 1]),
            p.bool_(ceil_mode),
            p.int_(zp),
            p.int_(zp),
            p.int_(act[0]),
            p.int_(act[1]),
        ]
    return Case(p.build(args, out), [x_logical], to_logical(ref))


def linear_case(
    rng,
    lead=(3,),
    c_in=12,
    c_out=7,
    bias=True,
    kernel_sum=True,
    per_channel=False,
    filter_offset=0,
    pass_bias=True,
    pooled=None,
) -> Case:
    """`pass_bias=False`: the bias exists (and is folded into kernel_sum) but the bias argument is None, as
    ExecuTorch's lowering writes it for Cortex-M55. `pooled=(h, w)`: the input is a 4-D [N, C_in, h, w]
    tensor (a pooled one, as the int8 lowering passes it unflattened when h == w == 1; lead is (N,))."""
    x = i8(rng, *lead, c_in)
    wt = rng.integers(-127, 128, (c_out, c_in)).astype(I8)
    b = rng.integers(-20000, 20000, c_out).astype(np.int32) if bias else None
    mult, shift = requant(rng, c_out if per_channel else 1, (-12, -6))
    in_off, out_off = int(rng.integers(-127, 129)), int(rng.integers(-128, 128))
    act = (-120, 100)
    x2 = x.reshape(-1, c_in)
    if per_channel:
        cols = [
            arm_fully_connected_s8(
                x2,
                wt[o : o + 1],
                None if b is None else b[o : o + 1],
                input_offset=in_off,
                filter_offset=filter_offset,
                output_offset=out_off,
                multiplier=int(mult[o]),
                shift=int(shift[o]),
                activation=act,
            )
            for o in range(c_out)
        ]
        ref = np.concatenate(cols, axis=1)
    else:
        ref = arm_fully_connected_s8(
            x2,
            wt,
            b,
            input_offset=in_off,
            filter_offset=filter_offset,
            output_offset=out_off,
            multiplier=int(mult[0]),
            shift=int(shift[0]),
            activation=act,
        )
    p = OpProgram("cortex_m::quantized_linear.out")
    x = x if pooled is None else x.reshape(*lead, c_in // (pooled[0] * pooled[1]), *pooled)
    xi, out = p.input(x), p.planned((*lead, c_out), I8)
    ks = arm_vector_sum_s8(wt, in_off, filter_offset, b).reshape(1, c_out) if kernel_sum else None
    args = [
        xi,
        p.const(wt),
        p.const(b) if bias and pass_bias else p.null(),
        p.const(ks) if kernel_sum else p.null(),
        p.int_(in_off),
        p.int_(filter_offset),
        p.int_(out_off),
        p.ints(mult.tolist()),
        p.ints(shift.tolist()),
        p.int_(act[1]),
        p.int_(act[0]),
    ]
    return Case(p.build(args, out), [x], ref.reshape(*lead, c_out))


def channels_last(a: np.ndarray) -> Tuple[np.ndarray, Optional[Tuple[int, ...]]]:
    """An NHWC array as the logical NCHW array of a channels-last tensor, and that dim order."""
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2)), NCHW_CHANNELS_LAST
