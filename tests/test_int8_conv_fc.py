"""int8 convolution, depthwise and fully-connected kernels (cmsis_nn_kernels/) equal their numpy references
(mcu_export.int8.reference) bit for bit: on the host (plain C paths) over hypothesis-drawn shapes and
quantization parameters, and on QEMU for the DSP (Cortex-M33, Cortex-M4), MVE (Cortex-M55) and scalar
(Cortex-M33 without DSP) builds over one batch of cases per board. The scratch sizes equal CMSIS-NN's own
(the buffer-size functions shipped in ExecuTorch's cortex_m backend), and no kernel writes past them."""

import ctypes

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import int8_harness as H
from mcu_export.int8.arith import quantize_multiplier
from mcu_export.int8.reference import convolution, depthwise, fully_connected
from mcu_export.int8.reference._common import conv_output_size
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

CONV_OPS = ["conv_wrapper", "conv", "conv_1x1_fast", "conv_1x1", "conv_1xn"]
DW_OPS = ["dw_wrapper", "dw", "dw_3x3", "dw_opt"]
FC_OPS = ["fc", "fc_per_channel"]


def _quant(rng, n):
    pairs = [quantize_multiplier(float(np.exp(rng.uniform(np.log(1e-4), np.log(2.0))))) for _ in range(n)]
    return [m for m, _ in pairs], [s for _, s in pairs]


def _act(rng):
    lo, hi = sorted(int(v) for v in rng.integers(-128, 128, 2))
    return (lo, hi) if rng.random() < 0.7 else (-128, 127)


def random_case(rng: np.random.Generator, op: str):
    """A case for op satisfying that kernel's constraints, and its reference output."""
    r = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731
    input_offset, output_offset = -r(-128, 127), r(-128, 127)
    if op == "fc":
        n, depth, oc = r(1, 2), r(1, 40), r(1, 20)
        x = rng.integers(-128, 128, (n, depth), dtype=np.int8)
        w = rng.integers(-127, 128, (oc, depth), dtype=np.int8)
        bias = rng.integers(-(1 << 20), 1 << 20, oc).astype(np.int32) if rng.random() < 0.8 else None
        (m,), (s,) = _quant(rng, 1)
        filter_offset = 0 if rng.random() < 0.6 else -r(-128, 127)
        kw = dict(
            input_offset=input_offset,
            filter_offset=filter_offset,
            output_offset=output_offset,
            multiplier=m,
            shift=s,
            activation=_act(rng),
        )
        return H.fc_case(x, w, bias, **kw), fully_connected.arm_fully_connected_s8(x, w, bias, **kw)
    if op == "fc_per_channel":
        n, depth, oc = r(1, 3), r(1, 40), r(1, 20)
        x = rng.integers(-128, 128, (n, depth), dtype=np.int8)
        w = rng.integers(-127, 128, (oc, depth), dtype=np.int8)
        bias = rng.integers(-(1 << 20), 1 << 20, oc).astype(np.int32) if rng.random() < 0.8 else None
        mults, shifts = _quant(rng, oc)
        filter_offset = 0 if rng.random() < 0.6 else -r(-128, 127)
        kw = dict(
            input_offset=input_offset,
            filter_offset=filter_offset,
            output_offset=output_offset,
            multipliers=mults,
            shifts=shifts,
            activation=_act(rng),
        )
        want = fully_connected.arm_fully_connected_per_channel_s8(x, w, bias, **kw)
        # the same as one per-tensor call per filter row
        rows = [
            fully_connected.arm_fully_connected_s8(
                x,
                w[o : o + 1],
                None if bias is None else bias[o : o + 1],
                input_offset=input_offset,
                filter_offset=filter_offset,
                output_offset=output_offset,
                multiplier=mults[o],
                shift=shifts[o],
                activation=kw["activation"],
            )
            for o in range(oc)
        ]
        assert np.array_equal(want, np.concatenate(rows, axis=1))
        return H.fc_per_channel_case(x, w, bias, **kw), want
    n, h, wd, c = r(1, 2), r(1, 12), r(1, 12), r(1, 20)
    kh, kw_ = r(1, 5), r(1, 5)
    sh, sw, dh, dw = r(1, 3), r(1, 3), r(1, 2), r(1, 2)
    mult, groups = 1, 1
    if op in ("conv_1x1_fast", "conv_1x1"):
        kh = kw_ = dh = dw = 1
        if op == "conv_1x1_fast":
            sh = sw = 1
    if op == "conv_1xn":
        h, kh, dw = 1, 1, 1
        sw = [s for s in (1, 2, 3) if (s * c) % 4 == 0 or c % 4 == 0][0] if c % 4 == 0 else 4 // np.gcd(c, 4)
        if sw > 3:
            c = 4 * r(1, 5)
            sw = r(1, 3)
    if op == "dw_3x3":
        kh = kw_ = 3
        dh = dw = 1
    if op == "dw_opt":
        dh = dw = 1
    if op in ("dw", "dw_wrapper"):
        mult = r(1, 3)
    if op == "conv" and rng.random() < 0.3:
        groups = [g for g in (2, 3, 4) if c % g == 0][0] if any(c % g == 0 for g in (2, 3, 4)) else 1
    max_pad = 1 if op == "dw_3x3" else 0 if op in ("conv_1x1_fast", "conv_1x1") else None
    ph = r(0, (kh - 1) * dh if max_pad is None else max_pad) if op != "conv_1xn" else 0
    pw = r(0, (kw_ - 1) * dw if max_pad is None else max_pad)
    oh = max(1, conv_output_size(h, kh, sh, ph, ph, dh))
    ow = max(1, conv_output_size(wd, kw_, sw, pw, pw, dw))
    x = rng.integers(-128, 128, (n, h, wd, c), dtype=np.int8)
    if op.startswith("dw"):
        oc = c * mult
        w = rng.integers(-127, 128, (1, kh, kw_, oc), dtype=np.int8)
    else:
        oc = r(1, 20) * groups
        w = rng.integers(-127, 128, (oc, kh, kw_, c // groups), dtype=np.int8)
    bias = rng.integers(-(1 << 20), 1 << 20, oc).astype(np.int32) if rng.random() < 0.8 else None
    mults, shifts = _quant(rng, oc)
    kw = dict(
        input_offset=input_offset,
        output_offset=output_offset,
        multipliers=mults,
        shifts=shifts,
        stride=(sh, sw),
        padding=(ph, pw),
        dilation=(dh, dw),
        activation=_act(rng),
        output_hw=(oh, ow),
    )
    if op.startswith("dw"):
        return (
            H.conv_case(op, x, w, bias, ch_mult=mult, **kw),
            depthwise.arm_depthwise_conv_s8(x, w, bias, ch_mult=mult, **kw),
        )
    return H.conv_case(op, x, w, bias, **kw), convolution.arm_convolve_s8(x, w, bias, **kw)


def _check(results, cases, expected, where):
    for res, case, want in zip(results, cases, expected):
        assert res.status == 0, f"{where}: {case.op} returned status {res.status} (params {list(case.params)})"
        assert np.array_equal(res.out, want), (
            f"{where}: {case.op} differs from the reference in {int((res.out != want).sum())} of {want.size} "
            f"outputs (params {list(case.params)})"
        )


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return H.CONV_FC.build_host_library(tmp_path_factory.mktemp("int8_conv_fc"))


HYP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("op", CONV_OPS + DW_OPS + FC_OPS)
@HYP
@given(seed=st.integers(0, 2**32 - 1))
def test_host_equals_reference(lib, op, seed):
    case, want = random_case(np.random.default_rng(seed), op)
    _check(H.host_run(lib, [case]), [case], [want], "host")


def _extreme_cases():
    """Largest multipliers and both shift signs, saturating activations, wide-open clamps: the rounding
    corners of arm_nn_requantize (ties, negative values) are hit on purpose."""
    rng = np.random.default_rng(7)
    cases, wants = [], []
    for m, s in [(2**31 - 1, 1), (2**30, -31), (2**30, 0), (1518500250, -7), (2**31 - 1, -1), (1 << 30, 2)]:
        x = rng.integers(-128, 128, (1, 4, 4, 8), dtype=np.int8)
        w = rng.integers(-127, 128, (3, 2, 2, 8), dtype=np.int8)
        bias = rng.integers(-(1 << 16), 1 << 16, 3).astype(np.int32)
        kw = dict(
            input_offset=128,
            output_offset=-128,
            multipliers=[m] * 3,
            shifts=[s] * 3,
            stride=(1, 1),
            padding=(1, 1),
            dilation=(1, 1),
            activation=(-128, 127),
            output_hw=(5, 5),
        )
        cases.append(H.conv_case("conv", x, w, bias, **kw))
        wants.append(convolution.arm_convolve_s8(x, w, bias, **kw))
    # the same corners as one per-channel fully-connected layer (one corner per output channel)
    pairs = [(2**31 - 1, 1), (2**30, -31), (2**30, 0), (1518500250, -7), (2**31 - 1, -1), (1 << 30, 2)]
    x = rng.integers(-128, 128, (3, 37), dtype=np.int8)
    w = rng.integers(-127, 128, (len(pairs), 37), dtype=np.int8)
    bias = rng.integers(-(1 << 16), 1 << 16, len(pairs)).astype(np.int32)
    kw = dict(
        input_offset=128,
        filter_offset=0,
        output_offset=-128,
        multipliers=[m for m, _ in pairs],
        shifts=[sh for _, sh in pairs],
    )
    cases.append(H.fc_per_channel_case(x, w, bias, **kw))
    wants.append(fully_connected.arm_fully_connected_per_channel_s8(x, w, bias, **kw))
    return cases, wants


def test_extreme_requantization_on_host(lib):
    cases, wants = _extreme_cases()
    _check(H.host_run(lib, cases), cases, wants, "host")


def test_bad_arguments_are_refused(lib):
    """Each specialised kernel refuses parameters outside its constraints instead of computing garbage."""
    rng = np.random.default_rng(3)
    case, _ = random_case(rng, "conv")
    bad = []
    for op, patch in [("conv_1x1_fast", {5: 3}), ("conv_1x1", {10: 1}), ("dw_3x3", {5: 5}), ("dw_opt", {20: 2})]:
        params = list(case.params)
        for i, v in patch.items():
            params[i] = v
        bad.append(H.Case(op, params, case.data, case.out_shape))
    assert [r.status for r in H.host_run(lib, bad)] == [-1, -1, -1, -1]


# ---- scratch sizes against CMSIS-NN's own functions ----------------------------------------------------


def _cmsis_nn():
    try:
        from executorch.backends.cortex_m.library import cmsis_nn

        cmsis_nn.resolve_backend(cmsis_nn.CortexM.M55)
    except Exception as err:  # noqa: BLE001 - any failure means the oracle is absent
        pytest.skip(f"CMSIS-NN's buffer-size module is not available ({err})")
    return cmsis_nn


@settings(HYP, max_examples=240)
@given(seed=st.integers(0, 2**32 - 1))
def test_scratch_sizes_equal_cmsis_nn(lib, seed):
    cm = _cmsis_nn()
    rng = np.random.default_rng(seed)
    op = ["conv_wrapper", "conv_1x1_fast", "conv_1x1", "conv_1xn", "dw_wrapper", "dw_3x3", "dw_opt", "fc"][seed % 8]
    case, _ = random_case(rng, op)
    q = case.params
    if op == "fc":
        fd = H.Dims(q[1], 1, 1, q[2])
        mine = [
            getattr(lib, f"arm_fully_connected_s8_get_buffer_size{sfx}")(ctypes.byref(fd)) for sfx in ("_dsp", "_mve")
        ]
        theirs = [
            cm.fully_connected_buffer_size(b, cm.DataType.A8W8, filter_nhwc=(q[1], 1, 1, q[2]))
            for b in (cm.Backend.DSP, cm.Backend.MVE)
        ]
        assert mine == theirs
        return
    ind, outd = H.Dims(*q[0:4]), H.Dims(q[0], q[14], q[15], q[4])
    stride, pad, dil = H.Tile(q[9], q[8]), H.Tile(q[11], q[10]), H.Tile(q[13], q[12])
    geometry = dict(
        input_nhwc=tuple(q[0:4]),
        output_nhwc=(q[0], q[14], q[15], q[4]),
        padding_hw=(q[10], q[11]),
        stride_hw=(q[8], q[9]),
        dilation_hw=(q[12], q[13]),
    )
    if op.startswith("dw"):
        fd, p = H.Dims(1, q[5], q[6], q[4]), H.DwParams(0, 0, q[20], stride, pad, dil, -128, 127)
        fn, oracle = "arm_depthwise_conv_wrapper_s8_get_buffer_size", cm.depthwise_conv_wrapper_buffer_size
        extra = dict(filter_nhwc=(1, q[5], q[6], q[4]), ch_mult=q[20])
    else:
        fd, p = H.Dims(q[4], q[5], q[6], q[7]), H.ConvParams(0, 0, stride, pad, dil, -128, 127)
        fn, oracle = "arm_convolve_wrapper_s8_get_buffer_size", cm.convolve_wrapper_buffer_size
        extra = dict(filter_nhwc=(q[4], q[5], q[6], q[7]))
    args = [ctypes.byref(v) for v in (p, ind, fd, outd)]
    mine = [getattr(lib, fn + sfx)(*args) for sfx in ("", "_dsp", "_mve")]
    theirs = [
        oracle(b, cm.DataType.A8W8, **geometry, **extra) for b in (cm.Backend.SCALAR, cm.Backend.DSP, cm.Backend.MVE)
    ]
    assert mine == theirs, f"{op}: ours (scalar, dsp, mve) {mine} != CMSIS-NN's {theirs} for {geometry} {extra}"


# ---- QEMU: one firmware per board, one batch of every kernel ------------------------------------------

needs_qemu = NEEDS_ARM_QEMU

BOARDS = {"mps2-an505": "mps2-an505", "mps2-an386": "mps2-an386", "corstone-300": "corstone-300", "scalar-m33": None}


def _batch(seed: int, per_op: int = 8):
    rng = np.random.default_rng(seed)
    cases, wants = [], []
    for op in CONV_OPS + DW_OPS + FC_OPS:
        for _ in range(per_op):
            case, want = random_case(rng, op)
            cases.append(case)
            wants.append(want)
    return cases, wants


@needs_qemu
@pytest.mark.parametrize("board_id", list(BOARDS))
@pytest.mark.slow
def test_qemu_equals_reference(board_id, tmp_path):
    board = BOARDS[board_id] or H.scalar_variant("mps2-an505")
    elf = H.CONV_FC.build_firmware(board, tmp_path / "fw")
    for seed in (11, 12):
        cases, wants = _batch(seed)
        if seed == 11:  # the rounding corners too: each ISA's requantization (DSP uses a one-step form)
            extreme_cases, extreme_wants = _extreme_cases()
            cases, wants = cases + extreme_cases, wants + extreme_wants
        results, _ = H.CONV_FC.qemu_run(board, elf, tmp_path / f"run{seed}", cases)
        _check(results, cases, wants, board_id)
