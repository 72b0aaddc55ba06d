"""Single-operator TOSA graphs for the Ethos-U executor's tests (tests/test_ethosu_sim.py), drawn from a numpy
generator: each case is (serialized graph, input shapes and dtypes, a short description). Shapes are small and
random; "tie" cases use power-of-two scales and small weights so that many results fall exactly on a rounding
half, where the rounding modes differ.

The builders are the library's (mcu_export.ethosu.tosa.TosaGraph); the add and the multiply are written out here
when an operand is broadcast (the library's builders rescale both operands at the output's shape).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from mcu_export.ethosu.add_rescale import add_form
from mcu_export.ethosu.tosa import TosaGraph


@dataclass
class Case:
    graph: bytes
    inputs: List[Tuple[Tuple[int, ...], type]]  # shape, numpy dtype
    what: str
    small: Tuple[int, int] = (-4, 4)  # the range of the "small" inputs (int8 graphs)
    int32_range: Tuple[int, int] = (-(1 << 20), 1 << 20)
    int32_ranges: Dict[int, Tuple[int, int]] = field(default_factory=dict)  # per input index
    out_channels: int = 0  # the OFM's depth, where it matters (two-core convolutions)


def quantize(real: float) -> Tuple[int, int]:
    """CMSIS-NN's (multiplier, shift) for a positive real multiplier: real = multiplier / 2^31 * 2^shift."""
    m, e = np.frexp(real)
    q = int(round(float(m) * (1 << 31)))
    if q == 1 << 31:
        q, e = q // 2, e + 1
    return q, int(e)


def _ints(rng, lo: int, hi: int, n: int = 1) -> List[int]:
    return [int(v) for v in rng.integers(lo, hi + 1, n)]


def _rounding(g: TosaGraph, rng):
    """RESCALE's rounding: DOUBLE_ROUND (CMSIS-NN's; the NPU's TFL mode) or SINGLE_ROUND (NATURAL)."""
    modes = g.ts.RoundingMode
    return modes.SINGLE_ROUND if rng.random() < 0.3 else modes.DOUBLE_ROUND


def _activation(rng) -> Tuple[int, int]:
    return (-128, 127) if rng.random() < 0.7 else (_ints(rng, -128, -1)[0], _ints(rng, 0, 127)[0])


# ---- convolutions ------------------------------------------------------------------------------------------------
def conv(rng, kind: str = "conv", tie: bool = False, transposed: bool = False) -> Optional[Case]:
    big = rng.random() < 0.25  # kernels beyond 8x8: the NPU's sub-kernel decomposition
    kh, kw = _ints(rng, 1, 11, 2) if big else _ints(rng, 1, 3, 2)
    sy, sx = _ints(rng, 1, 2, 2)
    dy, dx = _ints(rng, 1, 2, 2) if rng.random() < 0.3 else (1, 1)
    if kh * dy > 16:
        dy = 1
    if kw * dx > 16:
        dx = 1
    pad = [0, 0, 0, 0]
    if rng.random() < 0.6:
        pad = [min(p, e // 2) for p, e in zip(_ints(rng, 0, 1, 4), (kh * dy, kh * dy, kw * dx, kw * dx))]
    oh, ow = _ints(rng, 1, 6, 2)
    ih = (oh - 1) * sy + dy * (kh - 1) + 1 - pad[0] - pad[1]
    iw = (ow - 1) * sx + dx * (kw - 1) + 1 - pad[2] - pad[3]
    if ih < 1 or iw < 1:
        return None
    ic = int(rng.choice([1, 3, 8, 16, 17, 33, 40, 70]))  # IFM blocks of 32 (16 part-kernel-first), micro-blocks of 8
    oc = ic if kind == "depthwise" else int(rng.choice([1, 5, 8, 16, 24, 40, 70]))
    g = TosaGraph()
    x = g.input([1, ih, iw, ic])
    wshape = (oc, kh, kw, ic) if kind == "conv" else (kh, kw, ic, 1)
    if tie:
        w = rng.integers(-2, 3, size=wshape).astype(np.int8)
        bias = rng.integers(-8, 9, size=oc).astype(np.int32)
        mult, shifts = [1 << 30] * oc, _ints(rng, -3, 0, oc)  # acc / 2^(1 - shift): halves everywhere
        in_off, out_off = 0, _ints(rng, -8, 8)[0]
    else:
        w = rng.integers(-127, 128, size=wshape).astype(np.int8)
        bias = rng.integers(-5000, 5001, size=oc).astype(np.int32)
        mult = [int(m) for m in rng.integers(1 << 30, (1 << 31) - 1, size=oc)]
        shifts = _ints(rng, -14, -6, oc)
        in_off, out_off = _ints(rng, -127, 128)[0], _ints(rng, -128, 127)[0]
    rounding = _rounding(g, rng)
    out = g.conv(kind, x, w, bias, input_offset=in_off, filter_offset=0, output_offset=out_off, multipliers=mult,
                 shifts=shifts, stride=(sy, sx), pad_tblr=pad, dilation=(dy, dx), activation=_activation(rng),
                 out_shape=(1, oh, ow, oc), rounding=rounding)  # fmt: skip
    what = f"{kind} {ih}x{iw}x{ic} -> {oh}x{ow}x{oc} k{kh}x{kw} s{sy}{sx} d{dy}{dx} pad{pad} {rounding}"
    if transposed:  # the U85 writes it transposed (OFM_PRECISION); the U55/U65 with an operation of its own
        shape, perm = [1, oh, ow, oc], [0, *(int(v) for v in rng.permutation([1, 2, 3]))]
        out = g.transpose(out, perm, [shape[i] for i in perm])
        what += f" then transposed by {perm}"
    g.output(out)
    return Case(g.serialize(), [((1, ih, iw, ic), np.int8)], what, small=(-3, 3) if tie else (-4, 4), out_channels=oc)


def depthwise(rng, tie: bool = False) -> Optional[Case]:
    return conv(rng, "depthwise", tie)


def conv_transposed(rng, tie: bool = False) -> Optional[Case]:
    return conv(rng, "depthwise" if rng.random() < 0.3 else "conv", tie, transposed=True)


def fully_connected(rng, tie: bool = False) -> Case:
    batch, depth, oc = _ints(rng, 1, 4)[0], int(rng.choice([1, 8, 20, 64, 100])), int(rng.choice([1, 10, 32, 50]))
    g = TosaGraph()
    x = g.input([batch, 1, 1, depth])
    w = rng.integers(-2 if tie else -127, 3 if tie else 128, size=(oc, depth)).astype(np.int8)
    mult = [1 << 30] * oc if tie else [int(m) for m in rng.integers(1 << 30, (1 << 31) - 1, size=oc)]
    shifts = _ints(rng, -3, 0, oc) if tie else _ints(rng, -13, -6, oc)
    out = g.fully_connected(x, w, rng.integers(-1000, 1001, size=oc).astype(np.int32), batch=batch, multipliers=mult,
                            shifts=shifts, input_offset=_ints(rng, -127, 128)[0], filter_offset=0,
                            output_offset=_ints(rng, -128, 127)[0], activation=_activation(rng))  # fmt: skip
    g.output(out)
    return Case(g.serialize(), [((batch, 1, 1, depth), np.int8)], f"fully connected {batch}x{depth} -> {oc}")


# ---- pooling -------------------------------------------------------------------------------------------------------
def pool(rng, kind: str, tie: bool = False) -> Optional[Case]:
    kh, kw = _ints(rng, 1, 3, 2) if rng.random() < 0.8 else _ints(rng, 1, 8, 2)
    sy, sx = _ints(rng, 1, 2, 2)
    pad = [0, 0, 0, 0]
    if rng.random() < 0.5:  # padded: an average divides by the window's elements inside the IFM
        pad = [min(p, k - 1) for p, k in zip(_ints(rng, 0, 1, 4), (kh, kh, kw, kw))]
    oh, ow = _ints(rng, 1, 5, 2)
    h, w = (oh - 1) * sy + kh - pad[0] - pad[1], (ow - 1) * sx + kw - pad[2] - pad[3]
    if h < 1 or w < 1:
        return None
    c = int(rng.choice([1, 3, 8, 16, 20, 33]))
    g = TosaGraph()
    g.output(g.pool(kind, g.input([1, h, w, c]), (kh, kw), (sy, sx), pad, (1, oh, ow, c)))
    return Case(g.serialize(), [((1, h, w, c), np.int8)], f"{kind} pool {h}x{w}x{c} k{kh}x{kw} s{sy}{sx} pad{pad}")


def large_avg_pool(rng, tie: bool = False) -> Optional[Case]:
    """An average over a kernel larger than 8x8, padded or not: regor's SUM pool (Ethos-U85), with the padded case's
    per-position reciprocal as a chained multiply and shift."""
    kh, kw = _ints(rng, 9, 16, 2) if rng.random() < 0.7 else (_ints(rng, 9, 12)[0], _ints(rng, 1, 8)[0])
    sy, sx = _ints(rng, 1, 3, 2)
    pad = [0, 0, 0, 0]
    if rng.random() < 0.6:
        pad = [min(p, k - 1) for p, k in zip(_ints(rng, 0, 3, 4), (kh, kh, kw, kw))]
    oh, ow = _ints(rng, 1, 4, 2)
    h, w = (oh - 1) * sy + kh - pad[0] - pad[1], (ow - 1) * sx + kw - pad[2] - pad[3]
    if h < 1 or w < 1:
        return None
    c = int(rng.choice([1, 3, 16, 20]))
    g = TosaGraph()
    g.output(g.pool("avg", g.input([1, h, w, c]), (kh, kw), (sy, sx), pad, (1, oh, ow, c)))
    return Case(g.serialize(), [((1, h, w, c), np.int8)], f"avg pool {h}x{w}x{c} k{kh}x{kw} s{sy}{sx} pad{pad}")


def softmax(rng, tie: bool = False) -> Case:
    """The exporter's integer softmax (mcu_export.ethosu.softmax_tosa: arm_softmax_s8 as TOSA int8/int32 operators) for
    a random input scale, rows of 1..80 elements (sometimes the longest, 511), ranks 2..4."""
    from mcu_export.ethosu import softmax_tosa
    from mcu_export.int8.reference.softmax import softmax_params

    scale = float(rng.choice([2.0**-8, 2.0**-4, 0.0371, 0.1, 0.3, 1.0]))
    n = softmax_tosa.MAX_ROW if rng.random() < 0.1 else _ints(rng, 1, 80)[0]
    shape = [*_ints(rng, 1, 3, _ints(rng, 1, 3)[0]), n]
    g = TosaGraph()
    g.output(softmax_tosa.softmax(g, g.input(shape), shape, *softmax_params(scale)))
    return Case(g.serialize(), [(tuple(shape), np.int8)], f"softmax {shape} scale {scale}")


def max_pool(rng, tie: bool = False) -> Optional[Case]:
    return pool(rng, "max", tie)


def avg_pool(rng, tie: bool = False) -> Optional[Case]:
    return pool(rng, "avg", tie)


# ---- elementwise ---------------------------------------------------------------------------------------------------
def _shapes(rng) -> Tuple[List[int], List[int]]:
    """An operand shape and the other operand's: the same, or broadcast in some of H, W, C."""
    shape = [1, *_ints(rng, 1, 6, 2), int(rng.choice([1, 3, 8, 16, 20, 33]))]
    other = list(shape)
    if rng.random() < 0.35:
        other = [1, *(1 if rng.random() < 0.5 else d for d in shape[1:])]
    return shape, other


def add_params(rng, tie: bool) -> Dict[str, int]:
    """TFLite's add parameters for random scales (CMSIS-NN's arm_elementwise_add_s8 form)."""
    if tie:
        s1 = s2 = 1.0
        so = float(2.0 ** _ints(rng, -2, 1)[0])
    else:
        s1, s2, so = (float(2.0 ** rng.uniform(-8, 0)) for _ in range(3))
        if rng.random() < 0.3:
            s2 = s1
    twice_max = 2 * max(s1, s2)
    (m1, e1), (m2, e2) = quantize(s1 / twice_max), quantize(s2 / twice_max)
    mo, eo = quantize(twice_max / ((1 << 20) * so))
    if rng.random() < 0.2:
        m2 = -m2  # a subtraction (TosaGraph.add writes SUB for a negative second multiplier)
    return dict(input_1_offset=_ints(rng, -127, 128)[0], input_1_mult=m1, input_1_shift=e1,
                input_2_offset=_ints(rng, -127, 128)[0], input_2_mult=m2, input_2_shift=e2, left_shift=20,
                out_mult=mo, out_shift=eo, out_offset=_ints(rng, -128, 127)[0])  # fmt: skip


def add(rng, tie: bool = False) -> Case:
    a_shape, b_shape = _shapes(rng)
    if rng.random() < 0.5:
        a_shape, b_shape = b_shape, a_shape
    shape = [max(x, y) for x, y in zip(a_shape, b_shape)]
    p = add_params(rng, tie)
    g = TosaGraph()
    ts = g.ts
    a, b = g.input(a_shape), g.input(b_shape)
    act = _activation(rng)
    if a_shape == b_shape:
        out = g.add(a, b, shape, p, act, single_rescale=rng.random() < 0.85)
    else:  # TosaGraph.add with each operand rescaled at its own shape
        forms = add_form(p)
        scaled = []
        for x, xs, i, form in ((a, a_shape, 1, forms[0]), (b, b_shape, 2, forms[1])):
            zp = -p[f"input_{i}_offset"]
            if form is not None:
                scaled.append(g._rescale_tosa(x, xs, ts.DType.INT32, form.multiplier, form.shift, zp, 0, ts.DType.INT8,
                                              form.double_round))  # fmt: skip
            else:
                wide = g.rescale(x, xs, ts.DType.INT32, [1 << 30], [1 + p["left_shift"]], zp, 0, in_dtype=ts.DType.INT8)
                scaled.append(g.rescale(wide, xs, ts.DType.INT32, [abs(p[f"input_{i}_mult"])], [p[f"input_{i}_shift"]],
                                        0, 0))  # fmt: skip
        kind, cfg = (ts.Op.SUB, "SubAttribute") if p["input_2_mult"] < 0 else (ts.Op.ADD, "AddAttribute")
        total = g._op(kind, scaled, shape, ts.DType.INT32, configure=lambda at: getattr(at, cfg)())
        q = g.rescale(total, shape, ts.DType.INT8, [p["out_mult"]], [p["out_shift"]], 0, p["out_offset"])
        out = g._activation(q, shape, act)
    g.output(out)
    return Case(g.serialize(), [(tuple(a_shape), np.int8), (tuple(b_shape), np.int8)], f"add {a_shape} + {b_shape}")


def rescaled_add(rng, tie: bool = False) -> Case:
    """An add (or subtraction) of two int8 operands each through its own arbitrary single RESCALE to int32 (random
    multiplier, shift, rounding, zero point), then a RESCALE to int8: the Ethos-U85 fuses any such pair into one
    ELEMENTWISE with both operand scales; the U55/U65 run it as separate operations."""
    a_shape, b_shape = _shapes(rng)
    shape = [max(x, y) for x, y in zip(a_shape, b_shape)]
    g = TosaGraph()
    ts = g.ts
    scaled = []
    for xs in (a_shape, b_shape):
        m, s = int(rng.integers(1 << 29, 1 << 31)), _ints(rng, 14, 44)[0]
        zp, double = _ints(rng, -128, 127)[0], bool(rng.random() < 0.5)
        scaled.append(g._rescale_tosa(g.input(xs), xs, ts.DType.INT32, m, s, zp, 0, ts.DType.INT8, double))
    kind, cfg = (ts.Op.SUB, "SubAttribute") if rng.random() < 0.3 else (ts.Op.ADD, "AddAttribute")
    total = g._op(kind, scaled, shape, ts.DType.INT32, configure=lambda at: getattr(at, cfg)())
    mult, shift, out_zp = int(rng.integers(1 << 30, 1 << 31)), _ints(rng, -24, -8)[0], _ints(rng, -128, 127)[0]
    q = g.rescale(total, shape, ts.DType.INT8, [mult], [shift], 0, out_zp, rounding=_rounding(g, rng))
    g.output(g._activation(q, shape, _activation(rng)))
    inputs = [(tuple(a_shape), np.int8), (tuple(b_shape), np.int8)]
    return Case(g.serialize(), inputs, f"rescaled {'sub' if kind == ts.Op.SUB else 'add'} {a_shape}, {b_shape}")


def mul(rng, tie: bool = False) -> Case:
    a_shape, b_shape = _shapes(rng)
    g = TosaGraph()
    ts = g.ts
    a, b = g.input(a_shape), g.input(b_shape)
    zps = _ints(rng, -128, 127, 3)
    mult, shift = (
        (1 << 30, _ints(rng, -3, 0)[0]) if tie else (int(rng.integers(1 << 30, 1 << 31)), _ints(rng, -16, -7)[0])
    )
    wide = [g.rescale(x, xs, ts.DType.INT32, [1 << 30], [1], zp, 0, in_dtype=ts.DType.INT8)
            for x, xs, zp in ((a, a_shape, zps[0]), (b, b_shape, zps[1]))]  # fmt: skip
    product = g._op(ts.Op.MUL, [*wide, g.const([0], ts.DType.INT8)], a_shape, ts.DType.INT32,
                    configure=lambda at: at.MulAttribute())  # fmt: skip
    q = g.rescale(product, a_shape, ts.DType.INT8, [mult], [shift], 0, zps[2], rounding=_rounding(g, rng))
    g.output(g._activation(q, a_shape, _activation(rng)))
    return Case(g.serialize(), [(tuple(a_shape), np.int8), (tuple(b_shape), np.int8)], f"mul {a_shape} x {b_shape}")


def table(rng, tie: bool = False) -> Case:
    shape = [1, *_ints(rng, 1, 6, 2), int(rng.choice([1, 8, 17, 32]))]
    g = TosaGraph()
    g.output(g.table(g.input(shape), rng.integers(-128, 128, 256).astype(np.int8), shape))
    return Case(g.serialize(), [(tuple(shape), np.int8)], f"table {shape}")


# ---- data movement ---------------------------------------------------------------------------------------------------
def _movement_input(rng) -> List[int]:
    return [1, *_ints(rng, 1, 6, 2), int(rng.choice([1, 3, 8, 16, 20]))]


def pad(rng, tie: bool = False) -> Case:
    shape = _movement_input(rng)
    before, after = [0, *_ints(rng, 0, 2, 2), 0], [0, *_ints(rng, 0, 2, 2), 0]
    if rng.random() < 0.3:
        before[3], after[3] = _ints(rng, 0, 2, 2)
    out = [d + x + y for d, x, y in zip(shape, before, after)]
    g = TosaGraph()
    g.output(g.pad(g.input(shape), before, after, _ints(rng, -128, 127)[0], out))
    return Case(g.serialize(), [(tuple(shape), np.int8)], f"pad {shape} by {before}/{after}")


def transpose(rng, tie: bool = False) -> Case:
    shape = _movement_input(rng)
    perm = [0, *(int(v) for v in rng.permutation([1, 2, 3]))]
    g = TosaGraph()
    g.output(g.transpose(g.input(shape), perm, [shape[i] for i in perm]))
    return Case(g.serialize(), [(tuple(shape), np.int8)], f"transpose {shape} by {perm}")


def concat(rng, tie: bool = False) -> Case:
    shape, axis = _movement_input(rng), _ints(rng, 1, 3)[0]
    other = list(shape)
    other[axis] = _ints(rng, 1, 5)[0]
    out = list(shape)
    out[axis] += other[axis]
    g = TosaGraph()
    g.output(g.concat([g.input(shape), g.input(other)], axis, out))
    return Case(
        g.serialize(), [(tuple(shape), np.int8), (tuple(other), np.int8)], f"concat {shape} {other} axis {axis}"
    )


def slice_(rng, tie: bool = False) -> Case:
    shape = _movement_input(rng)
    start = [0, *(int(rng.integers(0, d)) for d in shape[1:])]
    size = [1, *(int(rng.integers(1, d - s + 1)) for d, s in zip(shape[1:], start[1:]))]
    g = TosaGraph()
    g.output(g.slice(g.input(shape), start, size))
    return Case(g.serialize(), [(tuple(shape), np.int8)], f"slice {shape} at {start} size {size}")


def reshape(rng, tie: bool = False) -> Case:
    shape = _movement_input(rng)
    g = TosaGraph()
    g.output(g.reshape(g.input(shape), [1, shape[2], shape[1], shape[3]]))
    return Case(g.serialize(), [(tuple(shape), np.int8)], f"reshape {shape}")


# ---- int32 elementwise (the integer softmax's operators) -------------------------------------------------------------
INT32_OPS = ("ADD", "SUB", "MINIMUM", "MAXIMUM", "MUL", "MUL_SHIFT", "LOGICAL_LEFT_SHIFT", "SHR_ROUND", "SHR_FLOOR",
             "CLZ", "ABS", "REDUCE_SUM", "REDUCE_MAX")  # fmt: skip


def int32_op(rng, op: str) -> Case:
    shape = [1, *_ints(rng, 1, 3, 2), _ints(rng, 1, 20)[0]]
    other = list(shape)
    if rng.random() < 0.3:
        other[-1] = 1
    g = TosaGraph()
    ts = g.ts
    i32 = ts.DType.INT32
    a = g.input(shape, i32)
    inputs = [(tuple(shape), np.int32)]
    ranges: Dict[int, Tuple[int, int]] = {}
    nan = ts.NanPropagationMode.PROPAGATE

    def second(lo: int, hi: int):
        inputs.append((tuple(other), np.int32))
        ranges[1] = (lo, hi)
        return g.input(other, i32)

    if op in ("ADD", "SUB", "MINIMUM", "MAXIMUM"):
        cfg = {"ADD": lambda at: at.AddAttribute(), "SUB": lambda at: at.SubAttribute(),
               "MINIMUM": lambda at: at.MinimumAttribute(nan), "MAXIMUM": lambda at: at.MaximumAttribute(nan)}[op]  # fmt: skip
        out = g._op(getattr(ts.Op, op), [a, second(-(1 << 20), 1 << 20)], shape, i32, configure=cfg)
    elif op.startswith("MUL"):
        shift = _ints(rng, 1, 31)[0] if op == "MUL_SHIFT" else 0
        ranges[0] = (-(1 << 15), 1 << 15)
        operands = [a, second(-(1 << 15), 1 << 15), g.const([shift], ts.DType.INT8)]
        out = g._op(ts.Op.MUL, operands, shape, i32, configure=lambda at: at.MulAttribute())
    elif op == "LOGICAL_LEFT_SHIFT":
        ranges[0] = (-(1 << 10), 1 << 10)
        out = g._op(ts.Op.LOGICAL_LEFT_SHIFT, [a, second(0, 20)], shape, i32,
                    configure=lambda at: at.LogicalLeftShiftAttribute())  # fmt: skip
    elif op.startswith("SHR"):
        rounding = op == "SHR_ROUND"
        out = g._op(ts.Op.ARITHMETIC_RIGHT_SHIFT, [a, second(0, 31)], shape, i32,
                    configure=lambda at: at.ArithmeticRightShiftAttribute(rounding))  # fmt: skip
    elif op == "CLZ":
        out = g._op(ts.Op.CLZ, [a], shape, i32, configure=lambda at: at.ClzAttribute())
    elif op == "ABS":
        out = g._op(ts.Op.ABS, [a], shape, i32, configure=lambda at: at.AbsAttribute())
    elif op == "REDUCE_SUM":
        out = g._op(ts.Op.REDUCE_SUM, [a], [*shape[:-1], 1], i32, configure=lambda at: at.ReduceSumAttribute(3))
    else:  # REDUCE_MAX of an int8 tensor (the softmax's first step)
        g = TosaGraph()
        a = g.input(shape)
        inputs = [(tuple(shape), np.int8)]
        out = g._op(ts.Op.REDUCE_MAX, [a], [*shape[:-1], 1], ts.DType.INT8,
                    configure=lambda at: at.ReduceMaxAttribute(3, nan))  # fmt: skip
    g.output(out)
    return Case(g.serialize(), inputs, f"{op} {shape} {other}", int32_ranges=ranges)


BUILDERS: Dict[str, Callable] = {
    "conv": conv,
    "depthwise": depthwise,
    "fully_connected": fully_connected,
    "max_pool": max_pool,
    "avg_pool": avg_pool,
    "large_avg_pool": large_avg_pool,
    "softmax": softmax,
    "add": add,
    "mul": mul,
    "rescaled_add": rescaled_add,
    "table": table,
    "pad": pad,
    "transpose": transpose,
    "conv_transposed": conv_transposed,
    "concat": concat,
    "slice": slice_,
    "reshape": reshape,
}


def input_sets(case: Case, rng) -> List[Tuple[str, List[np.ndarray]]]:
    """The inputs a case runs on: random, saturating (all minimum, all maximum) and small (near rounding ties)."""
    sets = []
    for kind in ("random", "all minimum", "all maximum", "small"):
        arrays = []
        for i, (shape, dtype) in enumerate(case.inputs):
            if dtype == np.int8:
                lo, hi = {"random": (-128, 127), "all minimum": (-128, -128), "all maximum": (127, 127),
                          "small": case.small}[kind]  # fmt: skip
            else:
                lo, hi = case.int32_ranges.get(i, case.int32_range)
                if kind == "all minimum":
                    hi = lo
                elif kind == "all maximum":
                    lo = hi
                elif kind == "small":
                    lo, hi = max(lo, -4), min(hi, 4)
            arrays.append(rng.integers(lo, hi + 1, size=shape).astype(dtype))
        sets.append((kind, arrays))
    return sets


def draw(builder: Callable, rng, tie: bool = False, attempts: int = 20) -> Case:
    for _ in range(attempts):
        case = builder(rng, tie=tie) if tie is not None else builder(rng)
        if case is not None:
            return case
    raise RuntimeError(f"{builder.__name__}: no valid case in {attempts} draws")


def shapes_of(case: Case) -> Sequence[Tuple[int, ...]]:
    return [s for s, _ in case.inputs]
