"""CMSIS-NN's arm_softmax_s8 as a TOSA 1.0 INT graph, bit for bit, that Vela 5.2 places wholly on the NPU
(Ethos-U55, U65 and U85: every operator used is in Vela's TOSA support list for all three).

arm_softmax_s8 (mcu_export.int8.reference.softmax) per row of the last axis:
    diff = x - max(row)                                         in [-255, 0]
    exps = exp_on_negative_values(dhm(diff << shift, mult))     Q0.31, a function of diff alone
    total = sum over diff >= diff_min of round(exps / 2^12)     in [2^19, N * 2^19]
    headroom = clz(total); bits_over_unit = 35 - headroom
    scale = one_over_one_plus_x((total << headroom) - 2^31)     Newton-Raphson in Q0.31
    out = diff >= diff_min ? clamp(round(dhm(scale, exps) / 2^bits_over_unit) - 128) : -128
(dhm = doubling high multiply; every "round" is a right shift rounding half up, the values being >= 0.)

The graph, per element:
- REDUCE_MAX (int8) over the last axis; RESCALE x and the max to int32, SUB, RESCALE to int8 with +127:
  idx = diff + 127, exactly an int8; TABLE of idx (int8 -> int8; TOSA indexes it by idx + 128 = diff + 255).
- exps as an int32 from four TABLEs, one per byte, each masked to 0 where diff < diff_min (a zero exps
  contributes 0 to the sum and gives round(dhm(scale, 0) / 2^b) - 128 = -128: the masked output, so no
  SELECT is needed: U55/U65 have none). Each byte's TABLE has its own copy of the index computation so that
  Vela fuses RESCALE, SUB, RESCALE and TABLE into one NPU elementwise operation with the LUT as its activation;
  one shared index tensor costs a standalone LUT pass per table (Vela 5.2's estimate on U55, [1, 12]:
  2,707 cycles instead of 1,155). Bytes 0..2 are RESCALEd int8 -> int32 by 2^(8k) (input zero point -128),
  byte 3 (exps < 2^31, so <= 127) by 1 and then LOGICAL_LEFT_SHIFT by 24 (a RESCALE's result stays below 2^30,
  TOSA's REQUIRE on its input), three ADDs.
- ARITHMETIC_RIGHT_SHIFT by 12 (round) and REDUCE_SUM over the last axis: total.
Per row (on a [1, rows] view: the NPU's elementwise operations are slow on a [rows, 1] layout):
- CLZ; half = LOGICAL_LEFT_SHIFT(total, clz - 1) = (total << headroom) / 2, which is exactly
  one_over_one_plus_x's half_denominator (it rounds (val + INT32_MAX + 1) / 2, an even number halved);
  bits_over_unit = 35 - clz (SUB).
- Newton-Raphson with MUL(shift 31) for dhm (TOSA's (a * b + 2^30) >> 31 is dhm away from INT32_MIN^2):
  x = 48/17 - 32/17 * half; three times x += 4 * dhm(x, 1 - dhm(half, x)) (MUL, SUB, MUL, LOGICAL_LEFT_SHIFT
  by 2, ADD); the saturating x 2 at the end as x + MINIMUM(x, 2^30 - 1) (INT32_MAX for x = 2^30).
Per element again: MUL(exps, scale, shift 31), ARITHMETIC_RIGHT_SHIFT by bits_over_unit (round), RESCALE
to int8 with output zero point -128 (saturating: the clamp).

Ranges (every TOSA REQUIRE holds): rows of at most MAX_ROW elements keep total < 2^28, so headroom is 4..12,
half a multiple of 8 in [2^30, 2^31), the shifts 1..31. Over all those 2^27 values of half the Newton-Raphson
intermediates stay far inside int32 (|4 * dhm(x, inner)| < 2^26), no x 4 saturates, and x <= 2^30 with
equality only at half = 2^30 (tests/test_ethosu_softmax.py checks this exhaustively).

Vela 5.2, input scale 0.1 (the keyword-spotting case), [1, 12]: 1,155 NPU cycles on ethos-u55-128,
777 on ethos-u85-256 (its estimates; it charges no LUT load to a TABLE fused into an elementwise operation).
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from mcu_export.int8.arith import wrap_int32
from mcu_export.int8.reference.softmax import ACCUM_BITS, doubling_high_mult, exp_on_negative_values

DIFF_OFFSET = 127  # x - max(row) in [-255, 0], plus this, is an int8
MAX_ROW = 511  # the sum of exponentials stays below 2^28: headroom >= 4, so every shift amount is <= 31
EXP_BYTES = 4  # exps < 2^31: four int8 TABLEs, one per byte

# one_over_one_plus_x's constants (gemmlowp): 48/17 in Q2.29, -32/17 in Q2.29 (as a Q0.31 multiplier), 1 in Q2.29
NR_CONSTANT, NR_SLOPE, NR_ONE = 1515870810, -1010580540, 1 << 29
NR_STEPS = 3


def exp_table(mult: int, shift: int, diff_min: int) -> np.ndarray:
    """exps as arm_softmax_s8 computes it for diff = -255..0 (index diff + 255), 0 where diff < diff_min."""
    diff = np.arange(-255, 1, dtype=np.int64)
    exps = exp_on_negative_values(doubling_high_mult(wrap_int32(diff * (1 << shift)), mult))
    return np.where(diff >= diff_min, exps, 0).astype(np.int64)


def byte_tables(mult: int, shift: int, diff_min: int) -> List[np.ndarray]:
    """The int8 TABLE contents: bytes 0..2 of exps offset by -128 (read back with zero point -128), byte 3 as is."""
    exps = exp_table(mult, shift, diff_min)
    tables = []
    for k in range(EXP_BYTES):
        byte = (exps >> (8 * k)) & 0xFF
        tables.append((byte - 128 if k < EXP_BYTES - 1 else byte).astype(np.int8))
    return tables


class _Ops:
    """TOSA operators on int32 tensors of one rank (constants are broadcast [1, ..., 1] tensors)."""

    def __init__(self, g, rank: int):
        self.g, self.ts, self.rank = g, g.ts, rank

    def c32(self, value: int):
        return self.g.const(np.full([1] * self.rank, value, dtype=np.int32), self.ts.DType.INT32)

    def scale(self, src, shape, out_dtype, in_dtype, log2: int, in_zp: int = 0, out_zp: int = 0):
        """RESCALE by exactly 2^log2: multiplier 2^30, TOSA shift 30 - log2 (the input below 2^(29 - log2))."""
        return self.g._rescale_tosa(src, shape, out_dtype, 1 << 30, 30 - log2, in_zp, out_zp, in_dtype, True)

    def _binary(self, op, a, b, shape, configure):
        return self.g._op(op, [a, b], shape, self.ts.DType.INT32, configure=configure)

    def add(self, a, b, shape):
        return self._binary(self.ts.Op.ADD, a, b, shape, lambda at: at.AddAttribute())

    def sub(self, a, b, shape):
        return self._binary(self.ts.Op.SUB, a, b, shape, lambda at: at.SubAttribute())

    def minimum(self, a, b, shape):
        nan = self.ts.NanPropagationMode.PROPAGATE
        return self._binary(self.ts.Op.MINIMUM, a, b, shape, lambda at: at.MinimumAttribute(nan))

    def mul(self, a, b, shape, shift: int):
        """(a * b + 2^(shift - 1)) >> shift in int64, which TOSA requires to fit int32."""
        ts = self.ts
        operands = [a, b, self.g.const([shift], ts.DType.INT8)]
        return self.g._op(ts.Op.MUL, operands, shape, ts.DType.INT32, configure=lambda at: at.MulAttribute())

    def shl(self, a, b, shape):
        return self._binary(self.ts.Op.LOGICAL_LEFT_SHIFT, a, b, shape, lambda at: at.LogicalLeftShiftAttribute())

    def rounding_shr(self, a, b, shape):
        """ARITHMETIC_RIGHT_SHIFT with round (half up; U55/U65 support only that form)."""
        op = self.ts.Op.ARITHMETIC_RIGHT_SHIFT
        return self._binary(op, a, b, shape, lambda at: at.ArithmeticRightShiftAttribute(True))

    def clz(self, a, shape):
        return self.g._op(self.ts.Op.CLZ, [a], shape, self.ts.DType.INT32, configure=lambda at: at.ClzAttribute())

    def reshape(self, src, shape):
        ts = self.ts
        return self.g._op(ts.Op.RESHAPE, [src, self.g._shape_const(shape)], shape, ts.DType.INT32,
                          configure=lambda at: at.ReshapeAttribute())  # fmt: skip

    def reduce(self, op: str, src, axis: int, out_shape, dtype):
        ts = self.ts
        if op == "max":
            nan = ts.NanPropagationMode.PROPAGATE
            return self.g._op(ts.Op.REDUCE_MAX, [src], out_shape, dtype,
                              configure=lambda at: at.ReduceMaxAttribute(axis, nan))  # fmt: skip
        return self.g._op(ts.Op.REDUCE_SUM, [src], out_shape, dtype, configure=lambda at: at.ReduceSumAttribute(axis))


def reciprocal(g, total, width: int) -> Tuple[object, object]:
    """From the row sums `total` (int32 [1, width], each in [2^19, 2^28)): (scale, bits_over_unit), int32
    [1, width]: one_over_one_plus_x's result and 35 - clz(total), as arm_softmax_s8 computes them."""
    r = _Ops(g, 2)
    flat = [1, width]
    headroom = r.clz(total, flat)
    half = r.shl(total, r.sub(headroom, r.c32(1), flat), flat)
    bits_over_unit = r.sub(r.c32(ACCUM_BITS + 23), headroom, flat)
    x = r.add(r.c32(NR_CONSTANT), r.mul(half, r.c32(NR_SLOPE), flat, 31), flat)
    for _ in range(NR_STEPS):
        inner = r.sub(r.c32(NR_ONE), r.mul(half, x, flat, 31), flat)
        x = r.add(x, r.shl(r.mul(x, inner, flat, 31), r.c32(2), flat), flat)
    scale = r.add(x, r.minimum(x, r.c32((1 << 30) - 1), flat), flat)  # saturating x 2: x <= 2^30
    return scale, bits_over_unit


def softmax(g, src, shape: Sequence[int], mult: int, shift: int, diff_min: int):
    """arm_softmax_s8(src, mult, shift, diff_min) over the last axis of the int8 tensor `src` of `shape`
    (rank >= 1); returns the int8 output tensor (scale 1/256, zero point -128)."""
    shape = [int(s) for s in shape]
    if not shape or min(shape) < 1:
        raise ValueError(f"softmax needs a non-empty shape, got {shape}")
    if shape[-1] > MAX_ROW:
        raise ValueError(f"softmax rows of {shape[-1]} elements: at most {MAX_ROW} keep the TOSA graph exact")
    if diff_min > 0 or shift < 0:
        raise ValueError(f"softmax parameters out of range: shift {shift}, diff_min {diff_min}")
    ts = g.ts
    i8, i32 = ts.DType.INT8, ts.DType.INT32
    rank, axis = len(shape), len(shape) - 1
    row: List[int] = shape[:-1] + [1]
    o = _Ops(g, rank)

    top = o.reduce("max", src, axis, row, i8)

    def index():  # diff + 127, one copy per TABLE (see the module docstring)
        x_wide = o.scale(src, shape, i32, i8, 0, in_zp=-DIFF_OFFSET)
        top_wide = o.scale(top, row, i32, i8, 0)
        return o.scale(o.sub(x_wide, top_wide, shape), shape, i8, i32, 0)

    parts = []
    for k, lut in enumerate(byte_tables(mult, shift, diff_min)):
        byte = g.table(index(), lut, shape)
        if k < EXP_BYTES - 1:
            parts.append(o.scale(byte, shape, i32, i8, 8 * k, in_zp=-128))
        else:
            parts.append(o.shl(o.scale(byte, shape, i32, i8, 0), o.c32(8 * k), shape))
    exps = o.add(o.add(parts[0], parts[1], shape), o.add(parts[2], parts[3], shape), shape)

    terms = o.rounding_shr(exps, o.c32(ACCUM_BITS), shape)
    width = int(np.prod(row))
    total = o.reshape(o.reduce("sum", terms, axis, row, i32), [1, width])
    scale, bits_over_unit = reciprocal(g, total, width)
    scale, bits_over_unit = o.reshape(scale, row), o.reshape(bits_over_unit, row)

    res = o.rounding_shr(o.mul(exps, scale, shape, 31), bits_over_unit, shape)
    return o.scale(res, shape, i8, i32, 0, out_zp=-128)
