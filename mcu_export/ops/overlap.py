"""Where a kernel's out may share bytes with an input it reads for the last time (RAM below the live-set bound).

A rule answers, for one call and one input argument, where the out may lie and still overlap that input: at
least ``below`` bytes below the input's start, or at least ``above`` bytes above it (a ``Reach``; None: never).
The C loader answers the same question with the function the kernel table names
(``runtime_c/kernels/portable/util/mx_overlap.c``, ``runtime_c/kernels/cortex_m/util/mx_cm_rows.c``); the planner
uses the rules (``mcu_export/planner/permits.py``) and both verifiers, Python's and the loader's, hold every
overlap to them. Rules hold on every ISA path (scalar, DSP, MVE), so a plan runs on any target.

- ``elementwise``: the input has the out's sizes and dim order and elements at least as wide; every path is one
  forward sweep that writes element i after reading element i, so the out may start at or below the input.
- ``window`` (cortex_m convolution with one group, depthwise convolution, pooling; NHWC): when the two overlap,
  the kernel runs a group of output rows per CMSIS-NN call (enough for 16 pixels, at most 4 rows), forward when
  the out lies below the input and backward when above, each call on just the input rows its windows read. The distances are the largest gap, over the rows,
  between what has been written and what is still to be read; a group's call must pick the same CMSIS-NN
  function as the whole call (the firmware links only those).
- ``planes`` (float32 NCHW depthwise convolution, average pooling; portable; and any float32 convolution with
  channels-last in and out, whose "plane" is an image and whose row holds every channel): output plane k reads
  input plane k only, so when the two overlap the kernel runs one plane at a time, output row by output row, forward when the out
  lies below the input and backward when above (``runtime_c/kernels/portable/util/mx_planes.c``). The distances are
  the largest gap, over the rows, between the end (start) of the row written and the first (last) input row its
  windows read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mcu_export.pte import program as pte

Rule = Callable[[Sequence[pte.EValue], List[int], int, int], Optional["Reach"]]


def _tensor(values: Sequence[pte.EValue], index: int) -> Optional[pte.Tensor]:
    v = values[index]
    return v if isinstance(v, pte.Tensor) else None


def int_list(values: Sequence[pte.EValue], index: int) -> List[int]:
    """The values of an IntList EValue whose items are all Ints; [] for anything else."""
    v = values[index]
    if not isinstance(v, pte.IntList):
        return []
    items = [values[i] for i in v.items]
    return [i.int_val for i in items] if all(isinstance(i, pte.Int) for i in items) else []  # type: ignore[union-attr]


@dataclass(frozen=True)
class Reach:
    """How an out may overlap an input: starting at least `below` bytes below it (the kernel runs forward), or at
    least `above` bytes above it (backward); None where that direction is not allowed."""

    below: Optional[int]
    above: Optional[int]

    def allows(self, delta: int) -> bool:
        """delta: the input's start minus the out's."""
        return (self.below is not None and delta >= self.below) or (self.above is not None and -delta >= self.above)


def elementwise(values, args, arg, out) -> Optional[Reach]:
    x, y = _tensor(values, args[arg]), _tensor(values, args[out])
    if x is None or y is None or list(x.sizes) != list(y.sizes) or list(x.dim_order) != list(y.dim_order):
        return None
    wide = pte.ELEMENT_SIZE[pte.ScalarType(x.scalar_type)] >= pte.ELEMENT_SIZE[pte.ScalarType(y.scalar_type)]
    return Reach(0, None) if wide and y.numel > 0 else None


@dataclass(frozen=True)
class Nhwc:
    n: int
    h: int
    w: int
    c: int


def nhwc(t: pte.Tensor, explicit: bool) -> Optional[Nhwc]:
    """The tensor's NHWC memory layout: sizes [N, H, W, C] (the *_nhwc spelling) or [N, C, H, W] in
    channels-last dim order."""
    if len(t.sizes) != 4:
        return None
    if explicit:
        return Nhwc(*t.sizes) if list(t.dim_order) == [0, 1, 2, 3] else None
    n, c, h, w = t.sizes
    return Nhwc(n, h, w, c) if list(t.dim_order) == [0, 2, 3, 1] else None


@dataclass(frozen=True)
class Rows:
    """A window op run a group of output rows per call (runtime_c/kernels/cortex_m/util/mx_cm_rows.c, its twin)."""

    x: Nhwc
    y: Nhwc
    stride: int
    pad: int
    span: int  # dilation * (kernel - 1) + 1

    @property
    def group(self) -> int:
        """Output rows per call: enough for 16 pixels, a multiple of 4 (an MVE pass), at most 4 rows."""
        k = 1
        while k < 4 and (k * self.y.w < 16 or (k * self.y.w) % 4):
            k += 1
        return min(k, max(self.y.h, 1))

    def groups(self):
        k = self.group
        return [(oy, min(k, self.y.h - oy)) for oy in range(0, self.y.h, k)]

    def slice(self, oy: int, rows: int) -> Tuple[int, int, int]:
        """(first input row, input rows, top padding) of the call for output rows [oy, oy + rows)."""
        top, bottom = oy * self.stride - self.pad, (oy + rows - 1) * self.stride - self.pad + self.span
        lo, hi = max(top, 0), min(bottom, self.x.h)
        return lo, max(hi - lo, 0), lo - top

    def reach(self) -> Reach:
        """Forward, a group writes up to the end of its last output row while the input from its first row on is
        still to be read; backward, from the start of its first output row while the input up to its last is."""
        in_row, out_row = self.x.w * self.x.c, self.y.w * self.y.c
        below: List[int] = []
        above: List[int] = []
        for n in sorted({0, self.y.n - 1}):  # linear in n: the ends
            for oy, rows in self.groups():
                first, count, _ = self.slice(oy, rows)
                in0, out0 = (n * self.x.h + first) * in_row, (n * self.y.h + oy) * out_row
                below.append(out0 + rows * out_row - in0)
                above.append(in0 + count * in_row - out0)
        return Reach(max(below), max(above))


def _pair(values, index: int) -> Optional[Tuple[int, int]]:
    v = int_list(values, index)
    return (v[0], v[-1]) if len(v) in (1, 2) else None


def _same_function(kind: str, rows: Rows, values, args, x: Nhwc, y: Nhwc) -> bool:
    """Every group's call picks the whole call's CMSIS-NN function, on every ISA (mx_cm_conv_kind_of's twins)."""
    from mcu_export.int8.lower.scratch import conv_kind, depthwise_kind

    w = _tensor(values, args[1])
    stride, padding, dilation = (_pair(values, args[i]) for i in (3, 4, 5))
    if w is None or stride is None or padding is None or dilation is None:
        return False
    whole_in, kernel = (x.n, x.h, x.w, x.c), tuple(w.sizes)
    if kind == "conv":

        def choice(in_nhwc, out_nhwc, pad) -> tuple:
            return (conv_kind(in_nhwc, kernel, stride, pad, dilation),)

    else:
        multiplier = values[args[6]]
        if not isinstance(multiplier, pte.Int):
            return False

        def choice(in_nhwc, out_nhwc, pad) -> tuple:
            return tuple(
                depthwise_kind(isa, in_nhwc, kernel[1:3], out_nhwc, multiplier.int_val, pad, dilation)
                for isa in ("scalar", "dsp", "mve")
            )

    whole = choice(whole_in, (y.n, y.h, y.w, y.c), padding)
    for oy, group in rows.groups():
        _, count, pad = rows.slice(oy, group)
        if choice((1, count, x.w, x.c), (1, group, y.w, y.c), (pad, padding[1])) != whole:
            return False
    return True


def _window(explicit: bool, kind: str) -> Rule:
    """The rule of one cortex_m op family (`conv`, `depthwise` or `pool`), as its C twin computes it."""
    at = {"stride": 2, "padding": 3, "size": 1} if kind == "pool" else {"stride": 3, "padding": 4, "dilation": 5}

    def rule(values, args, arg, out) -> Optional[Reach]:
        xt, yt = _tensor(values, args[arg]), _tensor(values, args[out])
        if arg != 0 or xt is None or yt is None or yt.numel == 0:
            return None
        x, y = nhwc(xt, explicit), nhwc(yt, explicit)
        stride, padding = _pair(values, args[at["stride"]]), _pair(values, args[at["padding"]])
        if x is None or y is None or stride is None or padding is None:
            return None
        if kind == "pool":
            size = _pair(values, args[at["size"]])
            span = size[0] if size else None
        else:
            w, dilation = _tensor(values, args[1]), _pair(values, args[at["dilation"]])
            if w is None or len(w.sizes) != 4 or dilation is None:
                return None
            if kind == "conv" and w.sizes[3] != x.c:
                return None  # grouped: each group reads the whole input again
            span = dilation[0] * (w.sizes[1] - 1) + 1
        if span is None:
            return None
        rows = Rows(x, y, stride[0], padding[0], span)
        if kind != "pool" and not _same_function(kind, rows, values, args, x, y):
            return None
        return rows.reach()

    return rule


@dataclass(frozen=True)
class Planes:
    """A float32 window op run plane by plane, row by row (runtime_c/kernels/portable/util/mx_planes.c, its
    twin): `planes` (N*C in NCHW, N in NHWC) input planes in_h x in_w, output planes out_h x out_w, the window
    along H; in NHWC a row's width counts every channel of its pixels."""

    planes: int
    in_h: int
    in_w: int
    out_h: int
    out_w: int
    stride: int
    pad: int
    span: int  # dilation * (kernel - 1) + 1

    def reach(self) -> Optional[Reach]:
        """Forward, row oy of plane k is written up to its end while the input from the first row its windows read
        on is still to be read; backward, from its start while the input up to the end of their last row is."""
        if self.planes * self.out_h * self.out_w == 0:
            return None
        f32 = 4
        in_row, out_row = self.in_w * f32, self.out_w * f32
        below: List[int] = []
        above: List[int] = []
        for k in sorted({0, self.planes - 1}):  # linear in k: the ends
            for oy in range(self.out_h):
                top = oy * self.stride - self.pad
                lo = min(max(top, 0), self.in_h)
                hi = min(max(top + self.span, lo), self.in_h)
                in0, in1 = (k * self.in_h + lo) * in_row, (k * self.in_h + hi) * in_row
                out0 = (k * self.out_h + oy) * out_row
                below.append(out0 + out_row - in0)
                above.append(in1 - out0)
        return Reach(max(below), max(above))


def _nchw_f32(t: pte.Tensor, dims: Tuple[int, ...]) -> bool:
    return (
        len(t.sizes) in dims
        and t.scalar_type == pte.ScalarType.FLOAT
        and list(t.dim_order) == list(range(len(t.sizes)))
    )


def _nhwc_f32(t: pte.Tensor) -> bool:
    return len(t.sizes) == 4 and t.scalar_type == pte.ScalarType.FLOAT and list(t.dim_order) == [0, 2, 3, 1]


def convolution_f32(values, args, arg, out) -> Optional[Reach]:
    """aten::convolution.out, not transposed: channels-last in and out, any (one plane per image, a row holding
    every channel: the kernel runs row by row); NCHW, a depthwise one (groups = in channels = out channels), not
    the 1x1 path (a matrix product per plane, its own order)."""
    x, w, y = _tensor(values, args[0]), _tensor(values, args[1]), _tensor(values, args[out])
    if arg != 0 or x is None or y is None or w is None or len(w.sizes) != 4:
        return None
    transposed, groups = values[args[6]], values[args[8]]
    if not isinstance(transposed, pte.Bool) or transposed.bool_val or not isinstance(groups, pte.Int):
        return None
    stride, padding, dilation = (_pair(values, args[i]) for i in (3, 4, 5))
    if stride is None or padding is None or dilation is None:
        return None
    span = dilation[0] * (w.sizes[2] - 1) + 1
    n, c, in_h, in_w = x.sizes
    if _nhwc_f32(x) and _nhwc_f32(y):
        row_in, row_out = in_w * c, y.sizes[3] * y.sizes[1]
        return Planes(n, in_h, row_in, y.sizes[2], row_out, stride[0], padding[0], span).reach()
    if not _nchw_f32(x, (4,)) or not _nchw_f32(y, (4,)):
        return None
    if not groups.int_val == x.sizes[1] == y.sizes[1]:
        return None
    if w.sizes[2] == w.sizes[3] == 1 and stride == (1, 1) and padding == (0, 0):
        return None
    return Planes(n * c, in_h, in_w, y.sizes[2], y.sizes[3], stride[0], padding[0], span).reach()


def avg_pool2d_f32(values, args, arg, out) -> Optional[Reach]:
    """aten::avg_pool2d.out (NCHW or CHW): an empty stride is the kernel's."""
    x, y = _tensor(values, args[0]), _tensor(values, args[out])
    if arg != 0 or x is None or y is None or not _nchw_f32(x, (3, 4)) or not _nchw_f32(y, (3, 4)):
        return None
    kernel, padding = _pair(values, args[1]), _pair(values, args[3])
    stride = _pair(values, args[2]) if int_list(values, args[2]) else kernel
    if kernel is None or stride is None or padding is None:
        return None
    planes = 1
    for d in x.sizes[:-2]:
        planes *= d
    (in_h, in_w), (out_h, out_w) = x.sizes[-2:], y.sizes[-2:]
    return Planes(planes, in_h, in_w, out_h, out_w, stride[0], padding[0], kernel[0]).reach()


_ELEMENTWISE = (
    *(
        f"aten::{name}.out"
        for name in (
            *("relu", "hardtanh", "clamp", "sigmoid", "tanh", "hardswish", "hardsigmoid", "abs", "neg"),
            *("leaky_relu", "elu", "gelu", "add", "sub", "mul", "div", "minimum", "maximum"),
        )
    ),
    "aten::clamp.Tensor_out",
    *(f"cortex_m::{name}.out" for name in ("quantize_per_tensor", "quantized_activation", "quantized_prelu")),
    *(f"cortex_m::{name}.out" for name in ("quantized_add", "quantized_mul", "minimum", "maximum")),
)
# qualified op name -> (the util helper of the C function the kernel table names, its spelling, the Python twin)
_WINDOW: Dict[str, Tuple[str, bool, str]] = {
    f"cortex_m::quantized_{base}{'_nhwc' if nhwc else ''}.out": (util, nhwc, kind)
    for base, util, kind in (
        ("conv2d", "mx_cm_conv2d", "conv"),
        ("depthwise_conv2d", "mx_cm_depthwise_conv2d", "depthwise"),
        ("avg_pool2d", "mx_cm_avg_pool2d", "pool"),
        ("max_pool2d", "mx_cm_max_pool2d", "pool"),
    )
    for nhwc in (False, True)
}


@dataclass(frozen=True)
class OverlapRule:
    c_function: str  # bool fn(mx_value *const *args, uint32_t arg, uint32_t out): may they overlap where they lie
    reach: Rule  # its Python twin: (values, args, arg, out) -> where they may, or None
    c_util: str  # the util helper (kernels/<library>/util/<c_util>.c) that defines c_function


def overlap_rule(op) -> Optional[OverlapRule]:
    """The rule of an op-table entry, or None (its out never shares bytes with an input)."""
    if op.qualified in _ELEMENTWISE:
        return OverlapRule("mx_overlap_elementwise", elementwise, "mx_overlap")
    if op.qualified == "aten::convolution.out":
        return OverlapRule("mx_planes_convolution_overlap", convolution_f32, "mx_planes")
    if op.qualified == "aten::avg_pool2d.out":
        return OverlapRule("mx_planes_avg_pool2d_overlap", avg_pool2d_f32, "mx_planes")
    if op.qualified in _WINDOW:
        util, nhwc, kind = _WINDOW[op.qualified]
        return OverlapRule(f"{util}{'_nhwc' if nhwc else ''}_overlap", _window(nhwc, kind), util)
    return None
