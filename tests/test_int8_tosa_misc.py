"""The numpy references of arm_elementwise_add_s8, arm_max_pool_s8 and arm_avgpool_s8 equal TOSA's
reference model on single-op TOSA graphs, bit for bit.

CMSIS-NN's add (left shift, per-input requantize, int32 sum, output requantize) is written in TOSA as
RESCALE(int8 -> int32, x 2^left_shift) -> RESCALE(int32 -> int32, input multiplier/shift) per input,
ADD (int32), RESCALE(int32 -> int8, output multiplier/shift, output zero point), CLAMP.
Rounding: CMSIS-NN's default requantization (arm_nn_requantize without CMSIS_NN_USE_SINGLE_ROUNDING:
a rounding doubling high multiply, then a rounding right shift with ties away from zero) is reproduced by
RESCALE with rounding_mode DOUBLE_ROUND; SINGLE_ROUND (one rounding of value * multiplier >> shift, CMSIS_NN_USE_SINGLE_ROUNDING's
arithmetic) differs from the default build where the first rounding lands on a tie, which
test_rescale_rounding_modes_against_arm_nn_requantize shows. AVG_POOL2D (int8, zero points 0) and
MAX_POOL2D need no rescale: TOSA's reciprocal-multiply average equals CMSIS-NN's rounded division
(ties away from zero) for these window sizes, and both leave padding out of the window."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcu_export.int8.arith import requantize
from mcu_export.int8.reference import elementwise, pooling

ts = pytest.importorskip("tosa_serializer", reason="needs tosa-tools (pip install tosa-tools)")
rm = pytest.importorskip("tosa_reference_model", reason="needs tosa-tools (pip install tosa-tools)")

NP_OF = {ts.DType.INT8: np.int8, ts.DType.INT32: np.int32}


def _const(ser, values, dtype):
    values = np.asarray(values, dtype=NP_OF.get(dtype, np.int8))
    return ser.addConst(list(values.shape), dtype, values)


def _rescale(ser, src, shape, in_dt, out_dt, multiplier, shift, in_zp, out_zp, mode):
    """value * multiplier >> shift in TOSA's convention: a CMSIS-NN (multiplier, shift) becomes shift 31 - s."""
    out = ser.addIntermediate(shape, out_dt)
    attr = ts.TosaSerializerAttribute()
    attr.RescaleAttribute(True, mode, False, False, False)
    ser.addOperator(
        ts.Op.RESCALE,
        [
            src.name,
            _const(ser, [multiplier], ts.DType.INT32).name,
            _const(ser, [shift], ts.DType.INT8).name,
            _const(ser, [in_zp], in_dt).name,
            _const(ser, [out_zp], out_dt).name,
        ],
        [out.name],
        attr,
    )
    return out


def _run(ser, out_tensor, inputs):
    ser.addOutputTensor(out_tensor)
    outputs, status = rm.run(ser.serialize(), inputs)
    assert status == rm.GraphStatus.TOSA_VALID, status
    return outputs[0]


def tosa_add(a, b, p, act_min, act_max, mode=ts.RoundingMode.DOUBLE_ROUND):
    shape = list(a.shape)
    ser = ts.TosaSerializer()
    x1, x2 = ser.addPlaceholder(shape, ts.DType.INT8), ser.addPlaceholder(shape, ts.DType.INT8)
    scaled = []
    for x, off, mult, shift in (
        (x1, p["input_1_offset"], p["input_1_mult"], p["input_1_shift"]),
        (x2, p["input_2_offset"], p["input_2_mult"], p["input_2_shift"]),
    ):
        # (q - zp) << left_shift exactly: multiplier 2^30, right shift 30 - left_shift.
        wide = _rescale(ser, x, shape, ts.DType.INT8, ts.DType.INT32, 1 << 30, 30 - p["left_shift"], -off, 0, mode)
        scaled.append(_rescale(ser, wide, shape, ts.DType.INT32, ts.DType.INT32, mult, 31 - shift, 0, 0, mode))
    total = ser.addIntermediate(shape, ts.DType.INT32)
    attr = ts.TosaSerializerAttribute()
    attr.AddAttribute()
    ser.addOperator(ts.Op.ADD, [scaled[0].name, scaled[1].name], [total.name], attr)
    q = _rescale(
        ser, total, shape, ts.DType.INT32, ts.DType.INT8, p["out_mult"], 31 - p["out_shift"], 0, p["out_offset"], mode
    )
    out = ser.addOutput(shape, ts.DType.INT8)
    attr = ts.TosaSerializerAttribute()
    # CLAMP's bounds are serialized as the raw bytes of a value of the tensor's type.
    as_bytes = lambda v: [int(b) for b in np.array([v], np.int8).view(np.uint8)]  # noqa: E731
    attr.ClampAttribute(as_bytes(act_min), as_bytes(act_max), ts.NanPropagationMode.PROPAGATE)
    ser.addOperator(ts.Op.CLAMP, [q.name], [out.name], attr)
    outputs, status = rm.run(ser.serialize(), [a, b])
    assert status == rm.GraphStatus.TOSA_VALID, status
    return outputs[0]


def _add_case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    a, b = (rng.integers(-128, 128, size=(1, n), dtype=np.int8) for _ in range(2))
    scales = [float(2.0 ** rng.uniform(-9, 0)) for _ in range(3)]
    zps = [int(z) for z in rng.integers(-128, 128, size=3)]
    p = elementwise.add_params(scales[0], zps[0], scales[1], zps[1], scales[2], zps[2])
    act = (int(rng.integers(-128, 0)), int(rng.integers(0, 128))) if rng.random() < 0.5 else (-128, 127)
    return a, b, p, act


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_add_matches_tosa_double_round(seed):
    a, b, p, (lo, hi) = _add_case(seed)
    ref = elementwise.arm_elementwise_add_s8(a, b, **p, out_activation_min=lo, out_activation_max=hi)
    np.testing.assert_array_equal(tosa_add(a, b, p, lo, hi), ref)


def tosa_rescale_int32(values, multiplier, shift, mode):
    ser = ts.TosaSerializer()
    src = ser.addPlaceholder([values.size], ts.DType.INT32)
    out = _rescale(ser, src, [values.size], ts.DType.INT32, ts.DType.INT32, multiplier, 31 - shift, 0, 0, mode)
    return _run(ser, out, [values])


@pytest.mark.parametrize("shift", [-1, -5, -9, -13])
def test_rescale_rounding_modes_against_arm_nn_requantize(shift):
    """One RESCALE against arm_nn_requantize on a million int32 values: DOUBLE_ROUND agrees everywhere,
    SINGLE_ROUND misses the values where the high multiply's rounding lands exactly on a tie."""
    rng = np.random.default_rng(-shift)
    values = rng.integers(-(1 << 31), 1 << 31, size=1 << 20, dtype=np.int64).astype(np.int32)
    multiplier = int(rng.integers(1 << 30, 1 << 31))
    ref = requantize(values, multiplier, shift)
    np.testing.assert_array_equal(tosa_rescale_int32(values, multiplier, shift, ts.RoundingMode.DOUBLE_ROUND), ref)
    single = tosa_rescale_int32(values, multiplier, shift, ts.RoundingMode.SINGLE_ROUND)
    assert np.count_nonzero(single != ref) > 0


def _pool_case(seed):
    """CMSIS-NN pads symmetrically and its output size decides how much of the bottom/right it reads;
    TOSA wants explicit [top, bottom, left, right] pads with an exact output size, each pad < kernel."""
    rng = np.random.default_rng(seed)
    while True:
        n, h, w, c = 1, int(rng.integers(1, 12)), int(rng.integers(1, 12)), int(rng.integers(1, 10))
        k = [int(rng.integers(1, h + 1)), int(rng.integers(1, w + 1))]
        s = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
        pad = [int(rng.integers(0, k[0])), int(rng.integers(0, k[1]))]
        out, tail = [], []
        for size, kk, ss, pp in zip((h, w), k, s, pad):
            o = -(-(size + pp - kk) // ss) + 1  # smallest output that reaches the end of the input
            out.append(o)
            tail.append((o - 1) * ss + kk - size - pp)
        if all(0 <= t < kk for t, kk in zip(tail, k)):
            x = rng.integers(-128, 128, size=(n, h, w, c), dtype=np.int8)
            return x, k, s, pad, tail, out


def tosa_pool(kind, x, k, s, pad, tail, out_hw):
    ser = ts.TosaSerializer()
    src = ser.addPlaceholder(list(x.shape), ts.DType.INT8)
    out = ser.addOutput([x.shape[0], *out_hw, x.shape[3]], ts.DType.INT8)
    attr = ts.TosaSerializerAttribute()
    tosa_pad = [pad[0], tail[0], pad[1], tail[1]]
    if kind == "max":
        attr.MaxPool2dAttribute(k, s, tosa_pad, ts.NanPropagationMode.PROPAGATE)
        ser.addOperator(ts.Op.MAX_POOL2D, [src.name], [out.name], attr)
    else:
        attr.AvgPool2dAttribute(k, s, tosa_pad, ts.DType.INT32)
        zp = [_const(ser, [0], ts.DType.INT8).name, _const(ser, [0], ts.DType.INT8).name]
        ser.addOperator(ts.Op.AVG_POOL2D, [src.name, *zp], [out.name], attr)
    outputs, status = rm.run(ser.serialize(), [x])
    assert status == rm.GraphStatus.TOSA_VALID, status
    return outputs[0]


@pytest.mark.parametrize("kind, ref", [("max", pooling.arm_max_pool_s8), ("avg", pooling.arm_avgpool_s8)])
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_pool_matches_tosa(kind, ref, seed):
    x, k, s, pad, tail, out_hw = _pool_case(seed)
    expected = ref(x, tuple(k), tuple(s), tuple(pad), tuple(out_hw))
    np.testing.assert_array_equal(tosa_pool(kind, x, k, s, pad, tail, out_hw), expected)
