"""Kernel scratch sizes, planned as arena tensors, and the convolution variants the CMSIS-NN wrappers run:
Python twins of C functions, per instruction-set path ("scalar", "dsp" or "mve").

Each twin is held to its C original by tests/test_scratch_twins.py, which compiles the C into a host shared
library and compares the two on hypothesis-drawn shapes, strides, paddings and dilations for every ISA:

| here                  | C                                                                             |
|-----------------------|-------------------------------------------------------------------------------|
| `_conv_general`       | arm_convolve_s8_get_buffer_size{_dsp,_mve}                                    |
| `_conv_1xn_mve`       | arm_convolve_1_x_n_s8_get_buffer_size_mve                                     |
| `conv_scratch`        | arm_convolve_wrapper_s8_get_buffer_size{,_dsp,_mve}                           |
| `depthwise_scratch`   | arm_depthwise_conv_wrapper_s8_get_buffer_size{,_dsp,_mve}                     |
| `avgpool_scratch`     | arm_avgpool_s8_get_buffer_size{,_dsp,_mve}                                    |
| `fc_scratch`          | arm_fully_connected_s8_get_buffer_size{,_dsp,_mve}                            |
| `transpose_conv_scratch` | arm_transpose_conv_s8_get_buffer_size (one for all ISAs)                   |
| `conv_kind`           | mx_cm_conv_kind_of (runtime_c/kernels/cortex_m/util/mx_cm_conv_dispatch.c)    |
| `depthwise_kind`      | mx_cm_dw_conv_kind_of, built for each ISA                                     |

(the un-suffixed C function, built for the host, is the scalar path.) Twins and a test rather than a call
into the C through ctypes at export time: `mcu-export export` needs no C compiler, and a library built
ahead of time would make the package platform-specific for a few lines of integer arithmetic.

The ISA is the board's (`board.cpu.mve`, `board.cpu.dsp` in boards/*.toml); without a board the scratch
is sized for all three, so that one .pte runs on any of them.
"""

from __future__ import annotations

from typing import Optional, Tuple

from mcu_export.boards import Board

ISAS = ("scalar", "dsp", "mve")
_CH_IN_BLOCK_MVE = 124  # channels per block of the MVE depthwise kernel
_DW_AS_CONV_THRESHOLD = 1  # MVE: a depthwise of one input channel into more runs as a convolution


def board_isa(board: Board) -> str:
    return board.cpu.isa


def isas_for(board: Optional[Board]) -> Tuple[str, ...]:
    """The ISAs whose kernels a program exported for `board` (None: any board) must have scratch for."""
    return ISAS if board is None else (board_isa(board),)


def _round_up(x: int, to: int) -> int:
    return -(-x // to) * to


def _c_div(a: int, b: int) -> int:
    """C's integer division (truncates toward zero); Python's // floors."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _conv_general(isa: str, c_in: int, kh: int, kw: int) -> int:
    cols = kh * kw * c_in
    return 4 * _round_up(cols, 16) if isa == "mve" else 4 * _round_up(cols, 4)


def _conv_1xn_mve(in_w: int, c_in: int, kw: int, kh: int, out_w: int, pad_w: int, stride_w: int) -> int:
    total_pad = (out_w - 1) * stride_w + kw - in_w
    asym = total_pad - 2 * _c_div(total_pad, 2)  # C's %: negative for a negative total
    right = max(1, _c_div(pad_w + asym + stride_w - 1, stride_w)) if pad_w + asym != 0 else 0
    left = max(1, _c_div(pad_w + stride_w - 1, stride_w)) if pad_w != 0 else 0
    no_pad = max(out_w - (right + left), 0)
    if right + no_pad + left != out_w:
        return _conv_general("mve", c_in, kh, kw)
    pad_left = pad_w * c_in
    pad_right = right * c_in if asym else pad_left
    left_elems = kw * c_in
    return max(left_elems + pad_left, left_elems - c_in + pad_right)


def conv_scratch(isa: str, in_nhwc, filter_ohwi, out_nhwc, stride, padding, dilation) -> int:
    """arm_convolve_wrapper_s8_get_buffer_size for one ISA (filter as [C_out, KH, KW, C_in/groups])."""
    _, _, in_w, c_in = in_nhwc
    _, kh, kw, _ = filter_ohwi
    kind = conv_kind(in_nhwc, filter_ohwi, stride, padding, dilation)
    if kind.startswith("1x1"):
        return 0
    if kind == "1_x_n" and isa == "mve":
        return _conv_1xn_mve(in_w, c_in, kw, kh, out_nhwc[2], padding[1], stride[1])
    return _conv_general(isa, c_in, kh, kw)


def depthwise_scratch(isa: str, in_nhwc, kernel_hw, out_nhwc, stride, padding, dilation) -> int:
    """arm_depthwise_conv_wrapper_s8_get_buffer_size for one ISA."""
    n, _, _, c_in = in_nhwc
    c_out = out_nhwc[3]
    kh, kw = kernel_hw
    uses_opt = c_in == c_out and n == 1 and tuple(dilation) == (1, 1)
    uses_3x3 = (kh, kw) == (3, 3) and padding[0] <= 1 and padding[1] <= 1
    if isa == "mve":
        if c_in == 1 and c_out > _DW_AS_CONV_THRESHOLD:
            conv = conv_scratch("mve", in_nhwc, (c_out, kh, kw, 1), out_nhwc, stride, padding, dilation)
            return conv + c_out * kh * kw
        return 4 * _CH_IN_BLOCK_MVE * kh * kw if uses_opt else 0
    if isa == "dsp":
        return c_in * kh * kw * 2 if uses_opt and not uses_3x3 else 0
    return 0


def avgpool_scratch(isa: str, channels: int) -> int:
    return channels * 4 if isa == "dsp" else 0


def fc_scratch(isa: str, c_out: int) -> int:
    """The MVE kernel's scratch holds its kernel sums, one int32 per output channel."""
    return c_out * 4 if isa == "mve" else 0


def transpose_conv_scratch(isa: str, in_nhwc, filter_ohwi, out_nhwc, stride) -> int:
    """arm_transpose_conv_s8_get_buffer_size, the same on every ISA (stride as (h, w); Arm's code pads the
    row's width with the H stride)."""
    del isa
    _, _, in_w, _ = in_nhwc
    _, kh, kw, _ = filter_ohwi
    sh, sw = stride
    return ((in_w - 1) * sw + max(kw, sh)) * out_nhwc[3] * max(kh, sh) * 4


# ---- which variant the wrappers run (runtime_c/kernels/cortex_m/util/mx_cm_conv_dispatch.c) ----------


def conv_kind(in_nhwc, filter_ohwi, stride, padding, dilation) -> str:
    """arm_convolve_wrapper_s8's choice: "1x1_fast", "1x1", "1_x_n" or "general" (stride etc. as (h, w))."""
    _, in_h, _, c_in = in_nhwc
    _, kh, kw, f_c = filter_ohwi
    if f_c != c_in:
        return "general"
    if tuple(padding) == (0, 0) and (kh, kw) == (1, 1) and tuple(dilation) == (1, 1):
        return "1x1_fast" if tuple(stride) == (1, 1) else "1x1"
    if in_h == 1 and dilation[1] == 1 and kh == 1 and (stride[1] * c_in) % 4 == 0:
        return "1_x_n"
    return "general"


def depthwise_kind(isa: str, in_nhwc, kernel_hw, out_nhwc, ch_mult: int, padding, dilation) -> str:
    """arm_depthwise_conv_wrapper_s8's choice on one ISA: "3x3" (not on MVE), "opt" or "general"."""
    n, _, _, c_in = in_nhwc
    if ch_mult != 1 or c_in != out_nhwc[3] or n != 1 or tuple(dilation) != (1, 1):
        return "general"
    if isa != "mve" and tuple(kernel_hw) == (3, 3) and padding[0] <= 1 and padding[1] <= 1:
        return "3x3"
    return "opt"
