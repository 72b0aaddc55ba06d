"""cortex_m::log_softmax: log-softmax over the last axis of an int8 tensor in integers (ours; CMSIS-NN has
none). Output quantization is fixed as TFLite's int8 LogSoftmax fixes it: scale 16/256, zero point 127
(the 256 steps cover [-255/16, 0]). Rows hold at most MAX_ROW entries (the sum of exps stays in int32).

Per row, with d = x - max(x) (an integer <= 0):
1. d in Q5.26 and exp(d) in Q0.31 exactly as arm_softmax_s8 computes them (`softmax.softmax_params` gives
   the multiplier, shift and diff_min); entries with d < diff_min are left out of the sum and give -128;
2. S = the sum of exp(d) / 2^12 (rounded as softmax does), in Q12.19; S >= 2^19 since exp(0) counts;
3. ln(S / 2^19) in Q5.26: with b = the index of S's top bit, (b - 19) * ln 2 plus ln(S / 2^b), the
   latter interpolated linearly between the 33 entries of LN_TABLE (ln(1 + i/32) in Q5.26; error < 2e-4);
4. out = clamp(127 + round_half_up((d_Q26 - ln_Q26) / 2^22), -128, 127): one step is 2^26 / 16.
Everything fits int64; the C kernel (runtime_c/kernels/cortex_m/mx_k_cortex_m_log_softmax_out.c) holds
the same constants and is held to this reference bit for bit by tests/test_int8_log_softmax.py.
"""

from __future__ import annotations

import math

import numpy as np

from mcu_export.int8.arith import divide_by_power_of_two, wrap_int32
from mcu_export.int8.reference.softmax import ACCUM_BITS, doubling_high_mult, exp_on_negative_values

OUTPUT_SCALE, OUTPUT_ZERO_POINT = 16.0 / 256, 127
LN2_Q26 = round(math.log(2) * (1 << 26))
TABLE_BITS = 5
# ln(1 + i / 32) in Q5.26, i = 0..32; the C kernel holds the same 33 numbers as a literal
LN_TABLE = tuple(round(math.log1p(i / (1 << TABLE_BITS)) * (1 << 26)) for i in range((1 << TABLE_BITS) + 1))
MAX_ROW = 4095
_SUM_POINT = 31 - ACCUM_BITS  # S holds 1.0 as 2^19
_FRACTION_BITS = 30 - TABLE_BITS


def log_of_sum(total: int) -> int:
    """ln(total / 2^19) in Q5.26 for total >= 2^19 (int32)."""
    top = total.bit_length() - 1
    fraction = (total << (30 - top)) - (1 << 30)  # S / 2^top - 1 in Q0.30
    i, rest = fraction >> _FRACTION_BITS, fraction & ((1 << _FRACTION_BITS) - 1)
    between = ((LN_TABLE[i + 1] - LN_TABLE[i]) * rest) >> _FRACTION_BITS
    return (top - _SUM_POINT) * LN2_Q26 + LN_TABLE[i] + between


def log_softmax_s8(input: np.ndarray, mult: int, shift: int, diff_min: int) -> np.ndarray:
    """log-softmax over the last axis; int8 at scale 1/16, zero point 127."""
    x = np.asarray(input, dtype=np.int8)
    rows = x.reshape(-1, x.shape[-1]).astype(np.int64)
    out = np.empty(rows.shape, dtype=np.int8)
    for r, row in enumerate(rows):
        diff = row - row.max()
        valid = diff >= diff_min
        scaled = doubling_high_mult(wrap_int32(diff * (1 << shift)), mult)
        exps = exp_on_negative_values(scaled)
        total = int(divide_by_power_of_two(exps, ACCUM_BITS)[valid].sum())
        log_sum = log_of_sum(total)
        res = ((scaled - log_sum) + (1 << 21)) >> 22
        out[r] = np.where(valid, np.clip(res + OUTPUT_ZERO_POINT, -128, 127), -128)
    return out.reshape(x.shape)
