"""mcu_export/int8/lower/scratch.py equals the C it re-expresses, on hypothesis-drawn geometries, for every ISA:
the _get_buffer_size functions of cmsis_nn_kernels/ and the variant choice of
runtime_c/kernels/cortex_m/util/mx_cm_conv_dispatch.c, both compiled by the host compiler. The ISA comes from
the board file."""

import ctypes
import inspect
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import int8_harness as H
from mcu_export.boards import load_board
from mcu_export.firmware.conv_dispatch import CONV_FUNCTIONS, DW_FUNCTIONS
from mcu_export.int8.lower import scratch as S

DISPATCH_DIR = H.ROOT / "runtime_c" / "kernels" / "cortex_m" / "util"
SIZE_SOURCES = [
    "arm_convolve_get_buffer_sizes_s8.c",
    "arm_depthwise_conv_get_buffer_sizes_s8.c",
    "arm_avgpool_s8_get_buffer_size.c",
    "arm_fully_connected_get_buffer_sizes_s8.c",
    "arm_transpose_conv_s8_get_buffer_size.c",
]
# The compiler macros an Arm compiler defines for each ISA (M4/M33: DSP; M55: DSP and MVE). The dispatch file
# reads only these and includes no intrinsics header, so the host compiler builds it for each ISA.
ISA_DEFINES = {
    "scalar": [],
    "dsp": ["-D__ARM_FEATURE_DSP=1"],
    "mve": ["-D__ARM_FEATURE_DSP=1", "-D__ARM_FEATURE_MVE=1"],
}
# The un-suffixed C function, built for the host, answers for the scalar path.
SUFFIX = {"scalar": "", "dsp": "_dsp", "mve": "_mve"}

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a host C compiler (cc)")
HYP = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _build(out, name, sources, defines=()):
    lib = out / f"lib{name}.so"
    cmd = [
        "cc",
        "-std=c11",
        "-shared",
        "-fPIC",
        "-Wall",
        "-Wextra",
        "-Werror",
        f"-I{H.INCLUDE_DIR}",
        f"-I{DISPATCH_DIR}",
        *defines,
        *map(str, sources),
        "-o",
        str(lib),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return ctypes.CDLL(str(lib))


@pytest.fixture(scope="module")
def sizes(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("scratch_sizes"), "sizes", [H.KERNEL_DIR / f for f in SIZE_SOURCES])


@pytest.fixture(scope="module")
def dispatch(tmp_path_factory):
    out = tmp_path_factory.mktemp("conv_dispatch")
    return {
        isa: _build(out, f"dispatch_{isa}", [DISPATCH_DIR / "mx_cm_conv_dispatch.c"], defines)
        for isa, defines in ISA_DEFINES.items()
    }


def _enum(name):
    """The members of the C enum `name` in mx_cm_conv_dispatch.h, in order (their values)."""
    text = (DISPATCH_DIR / "mx_cm_conv_dispatch.h").read_text()
    body = re.search(r"typedef enum \{([^}]*)\} " + name + ";", text).group(1)
    return [m.strip() for m in body.split(",")]


@st.composite
def geometries(draw, depthwise=False):
    """(in NHWC, filter OHWI, out NHWC, stride, padding, dilation, ch_mult); stride etc. as (h, w). What selects
    a variant comes often: batch 1, height 1 (1xN), 1x1 and 3x3 kernels, padding up to 1, no dilation."""
    often = lambda values, hi, lo=1: st.one_of(st.sampled_from(values), st.integers(lo, hi))  # noqa: E731

    def pair(values, hi, lo=1):  # a def, not a lambda: `ruff format` would move a noqa off a wrapped lambda's line
        return draw(
            st.one_of(
                often(values, hi, lo).map(lambda v: (v, v)), st.tuples(often(values, hi, lo), often(values, hi, lo))
            )
        )

    n, h, w, c_in = draw(often([1], 2)), draw(often([1], 9)), draw(st.integers(1, 16)), draw(often([1, 4], 12))
    (kh, kw), stride, padding, dilation = pair([1, 3], 5), pair([1], 4), pair([0, 1], 3, 0), pair([1], 3)
    out_h, out_w = (
        (i + 2 * p - d * (k - 1) - 1) // s + 1 for i, p, d, k, s in zip((h, w), padding, dilation, (kh, kw), stride)
    )
    assume(out_h >= 1 and out_w >= 1)
    ch_mult = draw(often([1], 3))
    if depthwise:
        c_out, f_c = c_in * ch_mult, c_in
    else:
        c_out = draw(often([1], 12))
        f_c = c_in // draw(st.sampled_from([g for g in range(1, c_in + 1) if c_in % g == 0]))  # groups
    return (n, h, w, c_in), (c_out, kh, kw, f_c), (n, out_h, out_w, c_out), stride, padding, dilation, ch_mult


def _c_args(g, depthwise):
    in_nhwc, f, out_nhwc, stride, padding, dilation, ch_mult = g
    tiles = (H.Tile(stride[1], stride[0]), H.Tile(padding[1], padding[0]), H.Tile(dilation[1], dilation[0]))
    params = H.DwParams(0, 0, ch_mult, *tiles, -128, 127) if depthwise else H.ConvParams(0, 0, *tiles, -128, 127)
    filter_dims = H.Dims(1, f[1], f[2], out_nhwc[3]) if depthwise else H.Dims(*f)
    return [ctypes.byref(v) for v in (params, H.Dims(*in_nhwc), filter_dims, H.Dims(*out_nhwc))]


def _c(lib, name, isa):
    """The C function `name` for `isa`."""
    return getattr(lib, name + SUFFIX[isa])


@needs_cc
@HYP
@given(g=geometries())
# MVE 1xN with a negative total padding: C's / and % truncate where Python's floor (2 bytes, not 64; CMSIS-NN's too)
@example(g=((1, 1, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 4), (0, 1), (1, 1), 1))
@pytest.mark.slow
def test_conv_equals_c(sizes, dispatch, g):
    in_nhwc, f, out_nhwc, stride, padding, dilation, _ = g
    params, ind, fd, outd = _c_args(g, False)
    kind = CONV_FUNCTIONS[S.conv_kind(in_nhwc, f, stride, padding, dilation)][0]
    for isa in S.ISAS:
        assert S.conv_scratch(isa, in_nhwc, f, out_nhwc, stride, padding, dilation) == _c(
            sizes, "arm_convolve_wrapper_s8_get_buffer_size", isa
        )(params, ind, fd, outd), isa
        assert S._conv_general(isa, in_nhwc[3], f[1], f[2]) == _c(sizes, "arm_convolve_s8_get_buffer_size", isa)(
            ind, fd
        ), isa
        assert _enum("mx_cm_conv_kind")[dispatch[isa].mx_cm_conv_kind_of(params, ind, fd)] == kind, isa
    assert S._conv_1xn_mve(
        in_nhwc[2], in_nhwc[3], f[2], f[1], out_nhwc[2], padding[1], stride[1]
    ) == sizes.arm_convolve_1_x_n_s8_get_buffer_size_mve(params, ind, fd, outd)


@needs_cc
@HYP
@given(g=geometries(depthwise=True), odd_mult=st.booleans())
@pytest.mark.slow
def test_depthwise_equals_c(sizes, dispatch, g, odd_mult):
    in_nhwc, f, out_nhwc, stride, padding, dilation, ch_mult = g
    if odd_mult:  # the C reads ch_mult and the channel counts separately: so may a caller
        ch_mult += 1
        g = g[:6] + (ch_mult,)
    args = _c_args(g, True)
    for isa in S.ISAS:
        assert S.depthwise_scratch(isa, in_nhwc, f[1:3], out_nhwc, stride, padding, dilation) == _c(
            sizes, "arm_depthwise_conv_wrapper_s8_get_buffer_size", isa
        )(*args), isa
        kind = DW_FUNCTIONS[S.depthwise_kind(isa, in_nhwc, f[1:3], out_nhwc, ch_mult, padding, dilation)][0]
        assert _enum("mx_cm_dw_kind")[dispatch[isa].mx_cm_dw_conv_kind_of(*args)] == kind, isa


@needs_cc
@HYP
@given(out_w=st.integers(1, 64), channels=st.integers(1, 512), c_in=st.integers(1, 4096))
def test_pool_and_fc_sizes_equal_c(sizes, out_w, channels, c_in):
    for isa in S.ISAS:
        assert S.avgpool_scratch(isa, channels) == _c(sizes, "arm_avgpool_s8_get_buffer_size", isa)(out_w, channels)
        assert S.fc_scratch(isa, channels) == _c(sizes, "arm_fully_connected_s8_get_buffer_size", isa)(
            ctypes.byref(H.Dims(c_in, 1, 1, channels))
        )


class TransposeConvParams(ctypes.Structure):
    _fields_ = [
        ("input_offset", ctypes.c_int32),
        ("output_offset", ctypes.c_int32),
        ("stride", H.Tile),
        ("padding", H.Tile),
        ("padding_offsets", H.Tile),
        ("dilation", H.Tile),
        ("act_min", ctypes.c_int32),
        ("act_max", ctypes.c_int32),
    ]


@needs_cc
@HYP
@given(
    in_hw=st.tuples(st.integers(1, 12), st.integers(1, 12)),
    k=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    stride=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    c_in=st.integers(1, 16),
    c_out=st.integers(1, 16),
)
def test_transpose_conv_size_equals_c(sizes, in_hw, k, stride, c_in, c_out):
    in_nhwc, f = (1, *in_hw, c_in), (c_out, *k, c_in)
    out_nhwc = (1, (in_hw[0] - 1) * stride[0] + k[0], (in_hw[1] - 1) * stride[1] + k[1], c_out)
    t = (H.Tile(stride[1], stride[0]), H.Tile(0, 0), H.Tile(0, 0), H.Tile(1, 1))
    params = TransposeConvParams(0, 0, *t, -128, 127)
    want = sizes.arm_transpose_conv_s8_get_buffer_size(
        ctypes.byref(params), ctypes.byref(H.Dims(*in_nhwc)), ctypes.byref(H.Dims(*f)), ctypes.byref(H.Dims(*out_nhwc))
    )
    for isa in S.ISAS:
        assert S.transpose_conv_scratch(isa, in_nhwc, f, out_nhwc, stride) == want


def test_isa_comes_from_the_board_file():
    assert S.isas_for(None) == S.ISAS  # no board: sized for every ISA
    assert S.isas_for(load_board("corstone-300")) == ("mve",)
    assert S.isas_for(load_board("mps2-an386")) == ("dsp",)
    assert S.isas_for(H.scalar_variant()) == ("scalar",)


def test_every_twin_is_bound_here():
    """Each function of scratch.py is a helper or a twin listed in its docstring, and each twin is called here."""
    helpers = {"board_isa", "isas_for", "_round_up", "_c_div"}
    listed = set(re.findall(r"^\| `(\w+)`", S.__doc__, re.M))
    defined = {name for name, f in vars(S).items() if inspect.isfunction(f) and f.__module__ == S.__name__}
    assert defined - helpers == listed
    here = Path(__file__).read_text()
    assert {name for name in listed if f"S.{name}(" not in here} == set()
