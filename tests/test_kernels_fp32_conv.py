"""The fp32 convolution and matrix-product kernels against torch (aten.convolution, mm, addmm, bmm):
random shapes, and shapes that reach each path of the tiled convolution."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import kernel_harness as kh
from fp32_checks import SETTINGS, blank, close, rand, run, seeds

aten = torch.ops.aten
NHWC = (0, 2, 3, 1)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


# --- convolution and matrix products --------------------------------------------------------------


@SETTINGS
@given(st.data(), seeds)
def test_convolution_2d(lib, data, seed):
    d = data.draw
    depthwise = d(st.booleans())
    groups = d(st.integers(1, 3))
    cin_g, cout_g = (1 if depthwise else d(st.integers(1, 5))), d(st.integers(1, 5))
    k = [d(st.integers(1, 3)), d(st.integers(1, 3))]
    stride, pad, dil = ([d(st.integers(lo, hi)) for _ in range(2)] for lo, hi in ((1, 3), (0, 2), (1, 2)))
    hw = [d(st.integers(max(1, dil[i] * (k[i] - 1) + 1 - 2 * pad[i]), 9)) for i in range(2)]
    x = rand(seed, d(st.integers(1, 2)), cin_g * groups, *hw)
    w = rand(seed + 1, cout_g * groups, cin_g, *k)
    b = rand(seed + 2, cout_g * groups) if d(st.booleans()) else None
    ref = aten.convolution.default(x, w, b, stride, pad, dil, False, [0, 0], groups)
    # input and out each NCHW or channels-last (NHWC memory: the layout pass's, mcu_export/lower/channels_last.py)
    x_cl, out_cl = d(st.sampled_from([(False, False), (True, True), (True, False), (False, True)]))
    out = kh.Strided(blank(ref), NHWC) if out_cl else blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=kh.Strided(x, NHWC) if x_cl else x,
        weight=w,
        bias=b,
        stride=stride,
        padding=pad,
        dilation=dil,
        transposed=False,
        output_padding=[0, 0],
        groups=groups,
        out=out,
    )
    close(out.mem.permute(0, 3, 1, 2) if out_cl else out, ref)


@SETTINGS
@given(st.data(), seeds)
def test_convolution_1d(lib, data, seed):
    d = data.draw
    groups, k, s, p, dl = (
        d(st.integers(1, 2)),
        d(st.integers(1, 4)),
        d(st.integers(1, 3)),
        d(st.integers(0, 2)),
        d(st.integers(1, 2)),
    )
    x = rand(seed, d(st.integers(1, 2)), 2 * groups, d(st.integers(max(1, dl * (k - 1) + 1 - 2 * p), 12)))
    w = rand(seed + 1, 3 * groups, 2, k)
    ref = aten.convolution.default(x, w, None, [s], [p], [dl], False, [0], groups)
    out = blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=x,
        weight=w,
        bias=None,
        stride=[s],
        padding=[p],
        dilation=[dl],
        transposed=False,
        output_padding=[0],
        groups=groups,
        out=out,
    )
    close(out, ref)


# Shapes that reach each path of the tiled convolution (util/mx_conv2d_f32.c), which the small random
# shapes above rarely do: 1x1 as a matrix product; 4-channel x 4-pixel tiles along rows (unit stride,
# other strides) and along columns (narrow maps); 4-group tiles (depthwise); edge channels and pixels;
# rows with no valid tap.
# (batch, c_in, c_out, (h, w), kernel, stride, pad, dilation, groups, bias)
CONV_PATHS = {
    "pointwise": (2, 9, 13, (5, 7), (1, 1), (1, 1), (0, 0), (1, 1), 1, True),
    "pointwise_grouped": (1, 6, 10, (3, 5), (1, 1), (1, 1), (0, 0), (1, 1), 2, False),
    "pointwise_strided": (1, 5, 6, (7, 9), (1, 1), (2, 2), (0, 0), (1, 1), 1, True),
    "pointwise_padded": (1, 3, 5, (4, 6), (1, 1), (1, 1), (1, 2), (1, 1), 1, True),
    "dense_3x3_unit_stride": (2, 5, 9, (10, 13), (3, 3), (1, 1), (1, 1), (1, 1), 1, True),
    "dense_3x3_stride_2": (1, 4, 8, (11, 17), (3, 3), (2, 2), (1, 1), (1, 1), 1, False),
    "dense_dilated": (1, 3, 6, (12, 14), (3, 2), (1, 2), (2, 1), (2, 3), 1, True),
    "kws_first_conv_narrow_map": (1, 1, 6, (49, 10), (10, 4), (2, 2), (5, 1), (1, 1), 1, True),
    "depthwise_narrow_map": (1, 10, 10, (25, 5), (3, 3), (1, 1), (1, 1), (1, 1), 10, True),
    "depthwise_wide_map": (2, 7, 7, (9, 16), (3, 3), (1, 1), (1, 1), (1, 1), 7, False),
    "depthwise_stride_2": (1, 8, 8, (12, 12), (5, 3), (2, 2), (2, 1), (1, 1), 8, True),
    "depthwise_multiplier_2": (1, 5, 10, (8, 9), (3, 3), (1, 1), (1, 1), (1, 1), 5, True),
    "grouped": (1, 6, 15, (9, 10), (3, 3), (1, 1), (1, 1), (1, 1), 3, True),
    "padding_wider_than_window": (1, 2, 5, (3, 4), (2, 2), (1, 1), (3, 3), (1, 1), 1, True),
}


@pytest.mark.parametrize("case", sorted(CONV_PATHS))
def test_convolution_paths(lib, case):
    n, cin, cout, hw, k, stride, pad, dil, groups, has_bias = CONV_PATHS[case]
    x, w = rand(1, n, cin, *hw), rand(2, cout, cin // groups, *k)
    b = rand(3, cout) if has_bias else None
    ref = aten.convolution.default(x, w, b, list(stride), list(pad), list(dil), False, [0, 0], groups)
    out = blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=x,
        weight=w,
        bias=b,
        stride=list(stride),
        padding=list(pad),
        dilation=list(dil),
        transposed=False,
        output_padding=[0, 0],
        groups=groups,
        out=out,
    )
    close(out, ref)


def test_convolution_1d_long_rows(lib):
    x, w, b = rand(1, 2, 6, 40), rand(2, 8, 3, 5), rand(3, 8)
    ref = aten.convolution.default(x, w, b, [1], [2], [1], False, [0], 2)
    out = blank(ref)
    run(
        lib,
        "aten::convolution.out",
        input=x,
        weight=w,
        bias=b,
        stride=[1],
        padding=[2],
        dilation=[1],
        transposed=False,
        output_padding=[0],
        groups=2,
        out=out,
    )
    close(out, ref)


@pytest.mark.parametrize("m,k,n", [(1, 64, 12), (4, 3, 4), (9, 17, 11), (6, 1, 5), (13, 40, 3)])
def test_matmul_tiles(lib, m, k, n):
    """Row and column counts around the 4x4 register tile of util/mx_matmul_f32.c, and K = 1."""
    a, b, s = rand(1, m, k), rand(2, k, n), rand(3, n)
    out = blank(a @ b)
    run(lib, "aten::mm.out", self=a, mat2=b, out=out)
    close(out, aten.mm.default(a, b))
    out = blank(a @ b)
    run(lib, "aten::addmm.out", self=s, mat1=a, mat2=b, beta=1, alpha=1, out=out)
    close(out, aten.addmm.default(s, a, b))


@SETTINGS
@given(
    st.integers(1, 6),
    st.integers(0, 6),
    st.integers(1, 6),
    st.sampled_from(["mn", "n", "1n", "m1", "0d"]),
    st.sampled_from([1, 0, 2, 0.5, -1.5]),
    st.sampled_from([1, 0, 3, 0.25]),
    seeds,
)
def test_addmm(lib, m, k, n, self_shape, beta, alpha, seed):
    shape = {"mn": (m, n), "n": (n,), "1n": (1, n), "m1": (m, 1), "0d": ()}[self_shape]
    s, a, b = rand(seed, *shape), rand(seed + 1, m, k), rand(seed + 2, k, n)
    ref = aten.addmm.default(s, a, b, beta=beta, alpha=alpha)
    out = blank(ref)
    run(lib, "aten::addmm.out", self=s, mat1=a, mat2=b, beta=beta, alpha=alpha, out=out)
    close(out, ref)


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 7), st.integers(1, 7), st.integers(1, 7), seeds)
def test_mm_and_bmm(lib, batch, m, k, n, seed):
    a, b = rand(seed, batch, m, k), rand(seed + 1, batch, k, n)
    out = blank(aten.bmm.default(a, b))
    run(lib, "aten::bmm.out", self=a, mat2=b, out=out)
    close(out, aten.bmm.default(a, b))
    out2 = blank(a[0] @ b[0])
    run(lib, "aten::mm.out", self=a[0].contiguous(), mat2=b[0].contiguous(), out=out2)
    close(out2, aten.mm.default(a[0], b[0]))
