"""The fp32 transposed convolution (aten.convolution with transposed=True: nn.ConvTranspose1d/2d) against torch:
random shapes over stride, padding, output_padding, dilation and groups, depthwise, and the load-time refusals."""

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

import kernel_harness as kh
from fp32_checks import ERR, SETTINGS, blank, rand, run, seeds
from mcu_export.ops.table import BY_QUALIFIED

aten = torch.ops.aten
OP = "aten::convolution.out"


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return kh.KernelLib(kh.build_library(tmp_path_factory.mktemp("mx_kernels")))


def _op():
    return BY_QUALIFIED[OP]


@st.composite
def transposed_cases(draw, spatial):
    groups = draw(st.integers(1, 3))
    depthwise = draw(st.booleans())
    cin_g, cout_g = (1 if depthwise else draw(st.integers(1, 3))), draw(st.integers(1, 3))
    k = [draw(st.integers(1, 4)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dil = [draw(st.integers(1, 3)) for _ in range(spatial)]
    pad = [draw(st.integers(0, 3)) for _ in range(spatial)]
    out_pad = [draw(st.integers(0, max(stride[i], dil[i]) - 1)) for i in range(spatial)]
    size = [draw(st.integers(1, 7)) for _ in range(spatial)]
    batch = draw(st.integers(1, 2))
    bias = draw(st.booleans())
    return groups, cin_g, cout_g, k, stride, dil, pad, out_pad, size, batch, bias


def _output_sizes(case):
    _, _, _, k, stride, dil, pad, out_pad, size, _, _ = case
    return [
        (n - 1) * s - 2 * p + d * (kk - 1) + op + 1 for n, s, p, d, kk, op in zip(size, stride, pad, dil, k, out_pad)
    ]


def _check(lib, case, seed):
    groups, cin_g, cout_g, k, stride, dil, pad, out_pad, size, batch, bias = case
    x = rand(seed, batch, cin_g * groups, *size)
    w = rand(seed + 1, cin_g * groups, cout_g, *k)
    b = rand(seed + 2, cout_g * groups) if bias else None
    ref = aten.convolution.default(x, w, b, stride, pad, dil, True, out_pad, groups)
    out = blank(ref)
    run(
        lib,
        OP,
        input=x,
        weight=w,
        bias=b,
        stride=stride,
        padding=pad,
        dilation=dil,
        transposed=True,
        output_padding=out_pad,
        groups=groups,
        out=out,
    )
    # sums of up to 3 * 4 * 4 products of unit normals
    torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)


@SETTINGS
@given(transposed_cases(2), seeds)
def test_transposed_convolution_2d(lib, case, seed):
    # where padding eats the whole output torch refuses or gives an empty tensor; the kernel refuses those
    assume(min(_output_sizes(case)) >= 1)
    _check(lib, case, seed)


@SETTINGS
@given(transposed_cases(1), seeds)
def test_transposed_convolution_1d(lib, case, seed):
    assume(min(_output_sizes(case)) >= 1)
    _check(lib, case, seed)


@pytest.mark.parametrize(
    "case",
    [
        # (groups, cin/g, cout/g, kernel, stride, dilation, padding, output_padding, size, batch, bias)
        (1, 4, 3, [4, 4], [2, 2], [1, 1], [1, 1], [0, 0], [5, 5], 1, True),  # the DCGAN/U-Net up-step, x2
        (1, 2, 2, [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], [4, 6], 1, True),  # "same" x2 with output_padding
        (8, 1, 1, [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], [4, 4], 1, False),  # depthwise
        (1, 3, 2, [1, 1], [3, 3], [1, 1], [0, 0], [2, 2], [3, 3], 2, True),  # 1x1 with gaps filled by bias only
        (2, 2, 3, [3, 2], [1, 3], [2, 1], [2, 0], [1, 2], [6, 3], 1, True),  # output_padding below the dilation
        (1, 5, 4, [5], [4], [1], [2], [3], [9], 2, True),  # 1-D
    ],
    ids=str,
)
def test_transposed_convolution_shapes(lib, case):
    _check(lib, case, 7)


def test_output_padding_at_the_stride_and_dilation_is_refused(lib):
    x, w = rand(0, 1, 2, 4, 4), rand(1, 2, 3, 3, 3)
    ok = aten.convolution.default(x, w, None, [2, 2], [0, 0], [1, 1], True, [1, 1], 1)
    kw = dict(input=x, weight=w, bias=None, stride=[2, 2], padding=[0, 0], dilation=[1, 1], transposed=True, groups=1)
    assert lib.call(_op(), **kw, output_padding=[1, 1], out=blank(ok)) == ERR["MX_OK"]
    too_big = torch.empty(1, 3, ok.shape[2] + 1, ok.shape[3] + 1)
    assert lib.call(_op(), **kw, output_padding=[2, 2], out=too_big) == ERR["MX_ERR_BAD_ARG_VALUE"]
    assert lib.last_arg == _op().arg_index("output_padding")
