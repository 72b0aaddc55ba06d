"""The fp32 convolution with channels-last (NHWC memory) input and out at the sizes that fill its tiles, against
torch; and the layouts it refuses (a transposed convolution, other dim orders). Random shapes in either layout:
tests/test_kernels_fp32_conv.py."""

import pytest
import torch

import kernel_harness as kh
from fp32_checks import ERR, OK, blank, close, rand
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
