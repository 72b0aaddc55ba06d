"""The fp32 convolution with channels-last (NHWC memory) input and out, each on its own, against torch; and the
layouts it refuses (a transposed convolution, other dim orders)."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import kernel_harness as kh
from fp32_checks import ERR, OK, SETTINGS, blank, close, rand, seeds
from mcu_export.ops.table import BY_QUALIFIED

aten = torch.ops.aten
NHWC = (0, 2, 3, 1)
CONV = BY_QUALIFIED["aten::convolution.out"]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


def _conv(lib, x, w, b, stride, pad, dil, groups, out, transposed=False):
    return lib.call(
        CONV,
        input=x,
        weight=w,
        bias=b,
        stride=stride,
        padding=pad,
        dilation=dil,
        transposed=transposed,
        output_padding=[0, 0],
        groups=groups,
        out=out,
    )


def _nchw(mem: torch.Tensor) -> torch.Tensor:
    return mem.permute(0, 3, 1, 2)


@SETTINGS
@given(st.data(), seeds)
def test_convolution_channels_last(lib, data, seed):
    d = data.draw
    depthwise = d(st.booleans())
    groups = d(st.integers(1, 3))
    cin_g, cout_g = (1 if depthwise else d(st.integers(1, 5))), d(st.integers(1, 5))
    k = [d(st.integers(1, 3)), d(st.integers(1, 3))]
    stride, pad, dil = ([d(st.integers(lo, hi)) for _ in range(2)] for lo, hi in ((1, 2), (0, 2), (1, 2)))
    hw = [d(st.integers(max(1, dil[i] * (k[i] - 1) + 1 - 2 * pad[i]), 9)) for i in range(2)]
    x = rand(seed, d(st.integers(1, 2)), cin_g * groups, *hw)
    w = rand(seed + 1, cout_g * groups, cin_g, *k)
    b = rand(seed + 2, cout_g * groups) if d(st.booleans()) else None
    ref = aten.convolution.default(x, w, b, stride, pad, dil, False, [0, 0], groups)
    x_cl, out_cl = d(st.sampled_from([(True, True), (True, False), (False, True)]))
    xs = kh.Strided(x, NHWC) if x_cl else x
    out = kh.Strided(blank(ref), NHWC) if out_cl else blank(ref)
    assert _conv(lib, xs, w, b, stride, pad, dil, groups, out) == OK
    close(_nchw(out.mem) if out_cl else out, ref)


@pytest.mark.parametrize("cin,cout,hw", [(64, 64, (25, 5)), (16, 32, (9, 7)), (3, 16, (8, 8))])
def test_pointwise_and_tiles_channels_last(lib, cin, cout, hw):
    """1x1 (NCHW's matrix-product path, here direct) and 3x3 at sizes that fill 4x4 tiles."""
    x = rand(1, 1, cin, *hw)
    for k, pad in ((1, 0), (3, 1)):
        w, b = rand(2, cout, cin, k, k, scale=0.1), rand(3, cout)
        ref = aten.convolution.default(x, w, b, [1, 1], [pad, pad], [1, 1], False, [0, 0], 1)
        out = kh.Strided(blank(ref), NHWC)
        assert _conv(lib, kh.Strided(x, NHWC), w, b, [1, 1], [pad, pad], [1, 1], 1, out) == OK
        close(_nchw(out.mem), ref)


def test_refuses_other_layouts(lib):
    x, w = rand(1, 1, 4, 5, 5), rand(2, 4, 4, 3, 3)
    ref = aten.convolution.default(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    bad = ERR["MX_ERR_BAD_ARG_VALUE"]
    # channels-first but H and W swapped in memory: not a layout the kernel knows
    assert _conv(lib, kh.Strided(x, (0, 1, 3, 2)), w, None, [1, 1], [1, 1], [1, 1], 1, blank(ref)) == bad
    # a transposed convolution stays NCHW
    wt = rand(2, 4, 4, 3, 3)
    ref_t = aten.convolution.default(x, wt, None, [1, 1], [1, 1], [1, 1], True, [0, 0], 1)
    got = _conv(lib, kh.Strided(x, NHWC), wt, None, [1, 1], [1, 1], [1, 1], 1, blank(ref_t), transposed=True)
    assert got == bad
    # channels-last weights: refused
    got = _conv(lib, x, kh.Strided(w, NHWC), None, [1, 1], [1, 1], [1, 1], 1, blank(ref))
    assert got == bad
