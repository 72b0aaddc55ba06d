"""The layers `make bench-kernels` measures: one int8 convolution, depthwise convolution or fully connected layer
each, in shapes of small keyword-spotting and image models (DS-CNN's 10x4 first layer and its 64-channel depthwise
and pointwise pairs, MobileNet-like 3x3 stages at 1, 3, 16, 44 and 64 channels, strides 1 and 2; fully connected
64 to 1024 inputs). Each name says what it is: `dw3x3_c64_s1_25x5` is a 3x3 depthwise convolution over 64 channels,
stride 1, on a 25x5 input; `conv3x3_c16to44_s2_16x16` a 3x3 convolution from 16 to 44 channels; `fc1024to128` a
fully connected layer from 1024 inputs to 128 outputs. Padding keeps the size at stride 1 ("same"). A depthwise
convolution over one channel is an ordinary one (groups = channels = 1): the export runs dw3x3_c1 on the
convolution kernel, and its row shows that kernel's code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

import torch


@dataclass(frozen=True)
class Layer:
    name: str
    kind: str  # conv, dw, fc
    cin: int
    cout: int
    h: int = 1  # input height (fc: unused)
    w: int = 1
    kh: int = 1
    kw: int = 1
    stride: int = 1
    nhwc: bool = False  # fp32 only: the convolution's input and out channels-last (see `module`)

    @property
    def padding(self) -> Tuple[int, int]:
        return ((self.kh - 1) // 2, (self.kw - 1) // 2)

    @property
    def out_hw(self) -> Tuple[int, int]:
        ph, pw = self.padding
        return ((self.h + 2 * ph - self.kh) // self.stride + 1, (self.w + 2 * pw - self.kw) // self.stride + 1)

    @property
    def macs(self) -> int:
        """Multiply-accumulates of one inference, from the shape alone."""
        if self.kind == "fc":
            return self.cin * self.cout
        oh, ow = self.out_hw
        per_output = self.kh * self.kw * (1 if self.kind == "dw" else self.cin)
        return oh * ow * self.cout * per_output

    @property
    def input_shape(self) -> Tuple[int, ...]:
        return (1, self.cin) if self.kind == "fc" else (1, self.cin, self.h, self.w)

    def module(self, seed: int = 0) -> torch.nn.Module:
        torch.manual_seed(seed)
        if self.kind == "fc":
            m: torch.nn.Module = torch.nn.Linear(self.cin, self.cout)
        else:
            groups = self.cin if self.kind == "dw" else 1
            m = torch.nn.Conv2d(
                self.cin, self.cout, (self.kh, self.kw), stride=self.stride, padding=self.padding, groups=groups
            )
            if self.nhwc:
                m = _ChannelsLast(m)
        return m.eval()

    def example(self, seed: int = 1) -> torch.Tensor:
        return torch.randn(self.input_shape, generator=torch.Generator().manual_seed(seed))


class _ChannelsLast(torch.nn.Module):
    """The convolution between two additions: the method's input and output stay NCHW (the caller's order), and
    the exporter's layout pass (mcu_export/lower/channels_last.py, on with overlap) gives the tensors the
    convolution reads and writes the channels-last order, as in a model whose convolutions follow one another."""

    def __init__(self, conv: torch.nn.Module) -> None:
        super().__init__()
        self.conv = conv

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x + x)
        return y + y


def _dw(c: int, k: Tuple[int, int], s: int, h: int, w: int, nhwc: bool = False) -> Layer:
    name = f"dw{k[0]}x{k[1]}_c{c}_s{s}_{h}x{w}" + ("_nhwc" if nhwc else "")
    return Layer(name, "dw", c, c, h, w, k[0], k[1], s, nhwc)


def _conv(cin: int, cout: int, k: Tuple[int, int], s: int, h: int, w: int) -> Layer:
    return Layer(f"conv{k[0]}x{k[1]}_c{cin}to{cout}_s{s}_{h}x{w}", "conv", cin, cout, h, w, k[0], k[1], s)


def _fc(cin: int, cout: int) -> Layer:
    return Layer(f"fc{cin}to{cout}", "fc", cin, cout)


LAYERS: Tuple[Layer, ...] = (
    # depthwise
    _dw(64, (3, 3), 1, 25, 5),
    _dw(64, (3, 3), 2, 25, 5),
    _dw(44, (3, 3), 1, 16, 16),
    _dw(16, (3, 3), 1, 32, 32),
    _dw(16, (3, 3), 2, 32, 32),
    _dw(3, (3, 3), 1, 32, 32),
    _dw(1, (3, 3), 1, 32, 32),
    _dw(64, (10, 4), 1, 25, 5),
    # convolution
    _conv(1, 64, (10, 4), 2, 49, 10),
    _conv(3, 16, (3, 3), 1, 32, 32),
    _conv(3, 16, (3, 3), 2, 32, 32),
    _conv(16, 16, (3, 3), 1, 16, 16),
    _conv(16, 44, (3, 3), 2, 16, 16),
    _conv(44, 44, (3, 3), 1, 8, 8),
    _conv(64, 64, (3, 3), 1, 8, 8),
    _conv(64, 64, (1, 1), 1, 25, 5),
    _conv(16, 64, (1, 1), 1, 16, 16),
    _conv(44, 16, (1, 1), 2, 16, 16),
    # fully connected
    _fc(64, 64),
    _fc(256, 64),
    _fc(512, 128),
    _fc(1024, 12),
    _fc(1024, 128),
)
# fp32 only (the int8 table's program is one kernel): the depthwise layers channels-last, the path KWS-like fp32
# models take (mx_conv2d_f32_dw_nhwc.c) where the NCHW rows above measure the general loop nest.
LAYERS_NHWC: Tuple[Layer, ...] = (
    _dw(64, (3, 3), 1, 25, 5, nhwc=True),
    _dw(64, (3, 3), 2, 25, 5, nhwc=True),
    _dw(44, (3, 3), 1, 16, 16, nhwc=True),
    _dw(16, (3, 3), 1, 32, 32, nhwc=True),
    _dw(16, (3, 3), 2, 32, 32, nhwc=True),
    _dw(3, (3, 3), 1, 32, 32, nhwc=True),
    _dw(64, (10, 4), 1, 25, 5, nhwc=True),
)
BY_NAME: Dict[str, Layer] = {layer.name: layer for layer in LAYERS + LAYERS_NHWC}
