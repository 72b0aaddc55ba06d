"""One NPU subgraph of the int8 program as a TOSA 1.0 INT graph.

Each tensor is given to TOSA in memory order (a channels-last NCHW tensor is an NHWC TOSA tensor), so the
delegate's inputs and outputs are the arena bytes as they are; an operator that wants another shape of the
same bytes gets a RESHAPE (free on the NPU). The arithmetic is the kernel call's own: its multipliers,
shifts, offsets, activation bounds and lookup tables (mcu_export.ethosu.tosa says how each maps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence

import numpy as np

from mcu_export.ethosu.calls import Call, Values
from mcu_export.ethosu.describe import FAMILY, nhwc, window_geometry
from mcu_export.ethosu.softmax_tosa import softmax
from mcu_export.ethosu.tosa import TosaGraph


@dataclass
class TosaSubgraph:
    graph: bytes
    inputs: List[int]  # EValue indices of the program tensors the subgraph reads, in TOSA input order
    outputs: List[int]  # ... and those it writes that the rest of the program reads, in output order


class _Builder:
    def __init__(self, values: Values):
        self.v = values
        self.g = TosaGraph()
        self.tensors: Dict[int, object] = {}  # EValue index -> TOSA tensor holding it in memory order
        self.inputs: List[int] = []
        self.written: List[int] = []

    def get(self, index: int, shape: Sequence[int]):
        """The value `index` as a TOSA tensor of `shape` (same bytes as its memory order)."""
        physical = self.v.physical(index)
        if index not in self.tensors:
            if self.v.is_constant(index):
                self.tensors[index] = self.g.const(self.v.array(index), self._dtype(index))
            else:
                self.tensors[index] = self.g.input(physical)
                self.inputs.append(index)
        tensor = self.tensors[index]
        return tensor if list(shape) == physical else self.g.reshape(tensor, list(shape))

    def put(self, index: int, tensor, shape: Sequence[int]) -> None:
        physical = self.v.physical(index)
        self.tensors[index] = tensor if list(shape) == physical else self.g.reshape(tensor, physical)
        self.written.append(index)

    def window_input(self, index: int, shape: Sequence[int], read: Sequence[int]):
        """The NHWC input of a window op, cropped to the rows and columns it reads."""
        tensor = self.get(index, shape)
        return tensor if list(read) == list(shape) else self.g.slice(tensor, [0, 0, 0, 0], list(read))

    def _dtype(self, index: int):
        ts = self.g.ts
        return {"int8": ts.DType.INT8, "int32": ts.DType.INT32}[self.v.dtype(index)]

    def ints_of(self, call: Call, name: str) -> List[int]:
        index = call.args[name]
        if self.v.is_tensor(index):
            return [int(x) for x in self.v.array(index).reshape(-1)]
        return self.v.ints(index)


def _conv(b: _Builder, call: Call) -> None:
    v = b.v
    x, out = v.sizes(call.args["input"]), v.sizes(call.outs[0])
    weight = v.array(call.args["weight"])
    stride, dilation, pad = v.ints(call.args["stride"]), v.ints(call.args["dilation"]), v.ints(call.args["padding"])
    depthwise = call.name.startswith("quantized_depthwise")
    if depthwise:  # [1, KH, KW, C * M] -> [KH, KW, C, M]: channel c * M + m
        kh, kw = weight.shape[1:3]
        weight = weight.reshape(kh, kw, x[1], v.int(call.args["depth_multiplier"]))
    else:
        kh, kw = weight.shape[1:3]
    read, pads = window_geometry(x, out, (kh, kw), stride, dilation, pad)
    bias = None if v.is_null(call.args["bias"]) else v.array(call.args["bias"]).astype(np.int32)
    result = b.g.conv(
        "depthwise" if depthwise else "conv",
        b.window_input(call.args["input"], nhwc(x), read),
        weight,
        bias,
        input_offset=v.int(call.args["input_offset"]),
        filter_offset=0,
        output_offset=v.int(call.args["output_offset"]),
        multipliers=b.ints_of(call, "requantize_multipliers"),
        shifts=b.ints_of(call, "requantize_shifts"),
        stride=stride,
        pad_tblr=pads,
        dilation=dilation,
        activation=(v.int(call.args["activation_min"]), v.int(call.args["activation_max"])),
        out_shape=nhwc(out),
    )
    b.put(call.outs[0], result, nhwc(out))


def _linear(b: _Builder, call: Call) -> None:
    v = b.v
    weight = v.array(call.args["weights"]).astype(np.int8)
    oc, depth = weight.shape
    rows = v.tensor(call.args["input"]).numel // depth
    input_offset, filter_offset = v.int(call.args["input_offset"]), v.int(call.args["filter_offset"])
    if not v.is_null(call.args["bias"]):
        bias = v.array(call.args["bias"]).astype(np.int64)
    elif not v.is_null(call.args["kernel_sum"]):
        # kernel_sum = input_offset * sum(w + filter_offset) + bias, modulo 2^32 (how the MVE kernel reads it)
        sums = (weight.astype(np.int64) + filter_offset).sum(axis=1)
        bias = v.array(call.args["kernel_sum"]).astype(np.int64) - input_offset * sums
    else:
        bias = np.zeros(oc, np.int64)
    bias = ((bias + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)
    result = b.g.fully_connected(
        b.get(call.args["input"], (rows, 1, 1, depth)),
        weight,
        bias,
        batch=rows,
        multipliers=b.ints_of(call, "requantize_multipliers"),
        shifts=b.ints_of(call, "requantize_shifts"),
        input_offset=input_offset,
        filter_offset=filter_offset,
        output_offset=v.int(call.args["output_offset"]),
        activation=(v.int(call.args["activation_min"]), v.int(call.args["activation_max"])),
    )
    b.put(call.outs[0], result, (rows, 1, 1, oc))


def _pool(b: _Builder, call: Call) -> None:
    v = b.v
    x, out = v.sizes(call.args["input"]), v.sizes(call.outs[0])
    kernel, stride, pad = v.ints(call.args["kernel_size"]), v.ints(call.args["stride"]), v.ints(call.args["padding"])
    read, pads = window_geometry(x, out, kernel, stride, (1, 1), pad)
    kind = "max" if "max_pool" in call.name else "avg"
    result = b.g.pool(kind, b.window_input(call.args["input"], nhwc(x), read), kernel, stride, pads, nhwc(out))
    if kind == "max":
        low, high = v.int(call.args["activation_min"]), v.int(call.args["activation_max"])
        if (low, high) != (-128, 127):
            result = b.g.clamp(result, nhwc(out), low, high)
    b.put(call.outs[0], result, nhwc(out))


def _add(b: _Builder, call: Call) -> None:
    v = b.v
    shape = v.physical(call.outs[0])
    a, other = b.get(call.args["self"], shape), b.get(call.args["other"], shape)
    p = dict(
        input_1_offset=-v.int(call.args["self_zero_point"]),
        input_1_mult=v.int(call.args["self_multiplier"]),
        input_1_shift=v.int(call.args["self_shift"]),
        input_2_offset=-v.int(call.args["other_zero_point"]),
        input_2_mult=v.int(call.args["other_multiplier"]),
        input_2_shift=v.int(call.args["other_shift"]),
        left_shift=_add_left_shift(),
        out_mult=v.int(call.args["output_multiplier"]),
        out_shift=v.int(call.args["output_shift"]),
        out_offset=v.int(call.args["output_zero_point"]),
    )
    activation = (v.int(call.args["activation_min"]), v.int(call.args["activation_max"]))
    b.put(call.outs[0], b.g.add(a, other, shape, p, activation), shape)


def _add_left_shift() -> int:
    from mcu_export.int8.reference.elementwise import ADD_LEFT_SHIFT

    return ADD_LEFT_SHIFT


def _mul(b: _Builder, call: Call) -> None:
    v = b.v
    shape = v.physical(call.outs[0])
    result = b.g.mul(
        b.get(call.args["self"], shape),
        b.get(call.args["other"], shape),
        shape,
        a_zp=v.int(call.args["self_zero_point"]),
        b_zp=v.int(call.args["other_zero_point"]),
        out_zp=v.int(call.args["output_zero_point"]),
        multiplier=v.int(call.args["output_multiplier"]),
        shift=v.int(call.args["output_shift"]),
    )
    b.put(call.outs[0], result, shape)


def _table(b: _Builder, call: Call) -> None:
    shape = b.v.physical(call.outs[0])
    lut = b.v.array(call.args["lut"]).astype(np.int8)
    b.put(call.outs[0], b.g.table(b.get(call.args["input"], shape), lut, shape), shape)


def _pad(b: _Builder, call: Call) -> None:
    v = b.v
    x, out = call.args["input"], call.outs[0]
    rank = len(v.physical(x))
    pre, post = v.ints(call.args["pre_pad"])[4 - rank :], v.ints(call.args["post_pad"])[4 - rank :]
    shape = v.physical(out)
    result = b.g.pad(b.get(x, v.physical(x)), pre, post, v.int(call.args["pad_value"]), shape)
    b.put(out, result, shape)


def _transpose(b: _Builder, call: Call) -> None:
    x, out = call.args["input"], call.outs[0]
    shape = b.v.sizes(out)
    b.put(out, b.g.transpose(b.get(x, b.v.sizes(x)), b.v.ints(call.args["perm"]), shape), shape)


def _to_dim_order(b: _Builder, call: Call) -> None:
    v = b.v
    x, out = call.args["self"], call.outs[0]
    src, dst = v.dim_order(x), v.dim_order(out)
    shape = v.physical(out)
    b.put(out, b.g.transpose(b.get(x, v.physical(x)), [src.index(d) for d in dst], shape), shape)


def _view(b: _Builder, call: Call) -> None:
    out = call.outs[0]
    shape = b.v.physical(out)
    b.put(out, b.get(call.args["self"], shape), shape)


def _cat(b: _Builder, call: Call) -> None:
    v = b.v
    parts = [b.get(p, v.sizes(p)) for p in v.items(call.args["tensors"])]
    shape = v.sizes(call.outs[0])
    b.put(call.outs[0], b.g.concat(parts, v.int(call.args["dim"]) % len(shape), shape), shape)


def _softmax(b: _Builder, call: Call) -> None:
    v = b.v
    shape = v.sizes(call.outs[0])
    result = softmax(b.g, b.get(call.args["input"], shape), shape, v.int(call.args["input_multiplier"]),
                     v.int(call.args["input_shift"]), v.int(call.args["diff_min"]))  # fmt: skip
    b.put(call.outs[0], result, shape)


EMIT: Dict[str, Callable[[_Builder, Call], None]] = {  # by family (describe.FAMILY)
    "conv": _conv,
    "linear": _linear,
    "pool": _pool,
    "add": _add,
    "mul": _mul,
    "table": _table,
    "pad": _pad,
    "transpose": _transpose,
    "view": _view,
    "to_dim_order": _to_dim_order,
    "cat": _cat,
    "softmax": _softmax,
}


def to_tosa(calls: Sequence[Call], values: Values, read_after: Callable[[int], bool]) -> TosaSubgraph:
    """The TOSA graph of `calls` (contiguous, in program order). Its inputs are the tensors they read that
    none of them wrote; its outputs the tensors they write that `read_after` says the program still needs."""
    b = _Builder(values)
    for call in calls:
        EMIT[FAMILY[call.op]](b, call)
    outputs = [i for i in dict.fromkeys(b.written) if read_after(i)]
    for index in outputs:
        b.g.output(b.tensors[index])
    return TosaSubgraph(b.g.serialize(), list(b.inputs), outputs)
