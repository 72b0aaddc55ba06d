"""What each kernel call of the int8 program asks of an NPU, as an `NpuOp` the capability checks judge.

A call is described from the values the int8 rules chose (shapes, kernel, stride, padding, dtypes); a call
that no NPU computes (float kernels, quantize/dequantize, softmax) gets its reason instead.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple, Union

from mcu_export.ethosu.calls import Call, Values
from mcu_export.ethosu.constraints import NpuOp

Described = Union[NpuOp, str]  # the op, or why no NPU runs it


def conv_pads(size: int, out: int, kernel: int, stride: int, dilation: int, pad: int) -> Tuple[int, int, int]:
    """(before, after, rows read) of one spatial axis, as TOSA wants them (its output size exact): CMSIS-NN
    pads `pad` before and reads as far past the end as its output needs. When that is short of the end
    (PyTorch's floor division left the last rows unread), `after` is 0 and the input is cropped to the
    rows read."""
    after = (out - 1) * stride + (kernel - 1) * dilation + 1 - size - pad
    return pad, max(after, 0), size + min(after, 0)


def window_geometry(x: List[int], out: List[int], kernel, stride, dilation, pad) -> Tuple[Tuple[int, ...], Tuple]:
    """(NHWC input as the NPU reads it, after cropping; TOSA's [top, bottom, left, right]) of a window op on
    NCHW sizes `x` -> `out`."""
    top, bottom, rows = conv_pads(x[2], out[2], kernel[0], stride[0], dilation[0], pad[0])
    left, right, cols = conv_pads(x[3], out[3], kernel[1], stride[1], dilation[1], pad[1])
    return (x[0], rows, cols, x[1]), (top, bottom, left, right)


def nhwc(sizes: List[int]) -> Tuple[int, ...]:
    n, c, h, w = sizes
    return (n, h, w, c)


def _window(call: Call, v: Values, kernel: Tuple[int, int], dilation=(1, 1)) -> Dict:
    x, out = v.sizes(call.args["input"]), v.sizes(call.outs[0])
    stride = tuple(v.ints(call.args["stride"]))
    read, pads = window_geometry(x, out, kernel, stride, dilation, v.ints(call.args["padding"]))
    return dict(inputs=(read,), output=nhwc(out), kernel=kernel, stride=stride, dilation=tuple(dilation), pad_tblr=pads)


def _conv(call: Call, v: Values) -> Described:
    w = v.sizes(call.args["weight"])
    dilation = tuple(v.ints(call.args["dilation"]))
    if call.name.startswith("quantized_depthwise"):
        window = _window(call, v, (w[1], w[2]), dilation)
        return NpuOp("depthwise", depth_multiplier=v.int(call.args["depth_multiplier"]), **window)
    return NpuOp("conv", **_window(call, v, (w[1], w[2]), dilation))


def _linear(call: Call, v: Values) -> Described:
    depth = v.sizes(call.args["weights"])[1]
    rows = v.tensor(call.args["input"]).numel // depth
    return NpuOp("fully_connected", inputs=((rows, depth),), output=(rows, v.sizes(call.args["weights"])[0]))


def _pool(call: Call, v: Values) -> Described:
    kernel = tuple(v.ints(call.args["kernel_size"]))
    kind = "max_pool" if "max_pool" in call.name else "avg_pool"
    return NpuOp(kind, **_window(call, v, kernel))  # type: ignore[arg-type]


def _elementwise(kind: str) -> Callable[[Call, Values], Described]:
    def describe(call: Call, v: Values) -> Described:
        shapes = tuple(tuple(v.physical(call.args[name])) for name in ("self", "other"))
        return NpuOp(kind, inputs=shapes, output=tuple(v.physical(call.outs[0])))

    return describe


def _unary(kind: str, input_name: str = "input") -> Callable[[Call, Values], Described]:
    def describe(call: Call, v: Values) -> Described:
        x = call.args[input_name]
        return NpuOp(kind, inputs=(tuple(v.physical(x)),), output=tuple(v.physical(call.outs[0])))

    return describe


def _view(call: Call, v: Values) -> Described:
    x = call.args["self"]
    if v.physical(x) != v.sizes(x) and not _same_bytes(v, x):
        return "a view of a channels-last tensor reorders bytes"
    return NpuOp("reshape", inputs=(tuple(v.physical(x)),), output=tuple(v.physical(call.outs[0])))


def _same_bytes(v: Values, index: int) -> bool:
    sizes, order = v.sizes(index), v.dim_order(index)
    return [d for d in order if sizes[d] != 1] == [d for d in range(len(sizes)) if sizes[d] != 1]


def _to_dim_order(call: Call, v: Values) -> Described:
    x, out = call.args["self"], call.outs[0]
    src, dst = v.dim_order(x), v.dim_order(out)
    perm = tuple(src.index(d) for d in dst)
    return NpuOp("transpose", inputs=(tuple(v.physical(x)),), output=tuple(v.physical(out)), perm=perm)


def _transpose(call: Call, v: Values) -> Described:
    x, out = call.args["input"], call.outs[0]
    if v.physical(x) != v.sizes(x) or v.physical(out) != v.sizes(out):
        return "a transpose of a channels-last tensor"
    return NpuOp("transpose", inputs=(tuple(v.sizes(x)),), output=tuple(v.sizes(out)),
                 perm=tuple(v.ints(call.args["perm"])))  # fmt: skip


def _pad(call: Call, v: Values) -> Described:
    x = call.args["input"]
    return NpuOp("pad", inputs=(tuple(v.physical(x)),), output=tuple(v.physical(call.outs[0])))


def _cat(call: Call, v: Values) -> Described:
    parts = v.items(call.args["tensors"])
    if any(v.physical(p) != v.sizes(p) for p in parts):
        return "a concatenation of channels-last tensors"
    rank = len(v.sizes(call.outs[0]))
    return NpuOp("concat", inputs=tuple(tuple(v.sizes(p)) for p in parts), output=tuple(v.sizes(call.outs[0])),
                 axis=v.int(call.args["dim"]) % rank)  # fmt: skip


# The int8 program's calls the NPU path lowers, by family: describe() and to_tosa's EMIT each handle a family.
FAMILY = {
    "cortex_m::quantized_conv2d.out": "conv",
    "cortex_m::quantized_conv2d_nhwc.out": "conv",
    "cortex_m::quantized_depthwise_conv2d.out": "conv",
    "cortex_m::quantized_depthwise_conv2d_nhwc.out": "conv",
    "cortex_m::quantized_linear.out": "linear",
    "cortex_m::quantized_max_pool2d.out": "pool",
    "cortex_m::quantized_max_pool2d_nhwc.out": "pool",
    "cortex_m::quantized_avg_pool2d.out": "pool",
    "cortex_m::quantized_avg_pool2d_nhwc.out": "pool",
    "cortex_m::quantized_add.out": "add",
    "cortex_m::quantized_mul.out": "mul",
    "cortex_m::quantized_activation.out": "table",
    "cortex_m::pad.out": "pad",
    "cortex_m::transpose.out": "transpose",
    "aten::view_copy.out": "view",
    "dim_order_ops::_to_dim_order_copy.out": "to_dim_order",
    "aten::cat.out": "cat",
    "cortex_m::softmax.out": "softmax",
}


def _softmax(call: Call, v: Values) -> Described:
    x = call.args["input"]
    shape = v.sizes(x)
    if v.physical(x) != shape or v.int(call.args["dim"]) % len(shape) != len(shape) - 1:
        return "softmax over another axis than the last in memory"
    return NpuOp("softmax", inputs=(tuple(shape),), output=tuple(v.sizes(call.outs[0])))


DESCRIBE: Dict[str, Callable[[Call, Values], Described]] = {
    "conv": _conv,
    "linear": _linear,
    "pool": _pool,
    "add": _elementwise("add"),
    "mul": _elementwise("mul"),
    "table": _unary("table"),
    "pad": _pad,
    "transpose": _transpose,
    "view": _view,
    "to_dim_order": _to_dim_order,
    "cat": _cat,
    "softmax": _softmax,
}
# Kept on the CPU whatever the NPU: the reason an engineer reads in report.json.
CPU_ONLY = {
    "cortex_m::quantize_per_tensor.out": "quantize: a float input, and the NPU computes in integers only",
    "cortex_m::dequantize_per_tensor.out": "dequantize: a float output, and the NPU computes in integers only",
}


def describe(call: Optional[Call], v: Values) -> Described:
    """The call as an NpuOp, or why it stays on the CPU."""
    if call is None:
        return "not a kernel call"
    if call.op in CPU_ONLY:
        return CPU_ONLY[call.op]
    tensors = [i for i in [*call.args.values(), *call.outs] if v.is_tensor(i)]
    floats = sorted({v.dtype(i) for i in tensors if v.dtype(i) not in ("int8", "int32", "uint8")})
    if call.op not in FAMILY:
        return f"{call.op} has no NPU lowering" + (f" ({', '.join(floats)} tensors)" if floats else "")
    if call.op.startswith(("aten::", "dim_order_ops::")):
        dtypes = {v.dtype(i) for i in tensors if not v.is_constant(i)}
        if dtypes != {"int8"}:
            return f"{call.op} on {', '.join(sorted(dtypes))} tensors (the NPU path takes int8 only)"
    return DESCRIBE[FAMILY[call.op]](call, v)
