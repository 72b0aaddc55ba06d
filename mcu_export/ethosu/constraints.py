"""Which int8 operators an Ethos-U generation takes: `refusal(op, accelerator)` is None or the reason, in one line.

The rules are what ethos-u-vela 5.2 does with a TOSA 1.0 graph (its C++ core, "regor", for every generation),
each boundary compiled on both sides by tests/test_ethosu_constraints.py. Vela's TOSA path has no CPU fallback
(SUPPORTED_OPS.md, "Ethos-U55 and Ethos-U65 TOSA Summary Table"): an operator it cannot place fails the whole
compile with "Non-passthrough operation (<Op>) could not run on NPU", and a graph breaking a TOSA ERROR_IF rule
fails with "Validation error". So a refusal here is what keeps an operator on the CPU instead of breaking a build.

Not refused, although older Vela (the Python TFLite checks, `tflite_supported_operators.py`) and the hardware's own
limits would suggest it: regor splits these into several NPU operations on every generation (operations measured on
U55): dilations above 2 (3x3 dilation 4: 17, dilation 32: 257), kernels above 64 or with a product above 4096
(65x65: 2), unpadded, undilated conv and pool strides above 3 (conv 4x4 stride 4: 17), depth multipliers above 1
(C=8, M=2: 9), batches above 1 (one operation per image), conv padding of any size, heights or widths above 65536
outside a U55/U65 transpose (W=65537: 1027), broadcasting from both inputs, any concat axis and any PAD amount.
Vela 5.2 enforced neither the documented weight-sum limit (127 * 65536: a 3x3x65536 kernel of 127s compiles) nor,
with int32 biases, a bias limit, nor any check on zero points, multipliers or shifts, so NpuOp carries no weight,
bias or quantization values.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Callable, FrozenSet, Optional, Sequence, Tuple

Shape = Tuple[int, ...]

SPATIAL = ("conv", "depthwise", "max_pool", "avg_pool")
POOLS = ("max_pool", "avg_pool")
ELEMENTWISE = ("add", "mul")
SAME_SHAPE = ("table", "clamp", "rescale", "softmax")
KINDS = (*SPATIAL, "fully_connected", *ELEMENTWISE, *SAME_SHAPE, "reshape", "concat", "pad", "transpose")

# mcu_export.ethosu.softmax_tosa: longer rows break the exact integer form of arm_softmax_s8 (not a Vela limit).
SOFTMAX_MAX_ROW = 511
# TOSA 1.0 level 8K, MAX_RANK; Vela's TOSA reader: "Shape rank exceeds maximum allowed".
MAX_RANK = 6
# SUPPORTED_OPS.md, TOSA CONV2D/AVG_POOL2D/MAX_POOL2D: "C in range 1..65536"; measured: only the input depth
# (output channels are split), for conv, depthwise, fully connected (a 1x1 conv) and both pools.
MAX_DEPTH = 65536
# SUPPORTED_OPS.md, "Ethos-U55 and Ethos-U65 TOSA TRANSPOSE Constraints": the axis products allowed.
MAX_TRANSPOSE_AXES = 1 << 16


@dataclass(frozen=True)
class NpuOp:
    kind: str  # one of KINDS
    inputs: Tuple[Shape, ...]  # logical shapes; spatial ops are NHWC 4-D
    output: Shape
    dtype: str = "int8"  # element type of the activations
    kernel: Tuple[int, int] = (1, 1)  # (KH, KW) of conv/depthwise/pools
    stride: Tuple[int, int] = (1, 1)
    dilation: Tuple[int, int] = (1, 1)
    pad_tblr: Tuple[int, int, int, int] = (0, 0, 0, 0)
    depth_multiplier: int = 1
    axis: int = -1  # concat axis on the logical shape
    perm: Tuple[int, ...] = ()  # transpose: output axis i is input axis perm[i]; () is the identity


Rule = Callable[[NpuOp, str], Optional[str]]  # (op, "on U55") -> reason or None


def _generation(accelerator: str) -> str:
    from mcu_export.ethosu.vela import ACCELERATORS

    if accelerator not in ACCELERATORS:
        raise ValueError(f"unknown Ethos-U configuration '{accelerator}' (valid: {', '.join(ACCELERATORS)})")
    return accelerator.split("-")[1].upper()


def _fmt(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape)


# ---- every generation ---------------------------------------------------------------------------------------------
def _kind_and_shapes(op: NpuOp, on: str) -> Optional[str]:
    if op.kind not in KINDS:
        return f"operator kind '{op.kind}' has no Ethos-U lowering (known: {', '.join(KINDS)}) {on}"
    arity = 2 if op.kind in ELEMENTWISE else 1
    if len(op.inputs) != arity and not (op.kind == "concat" and op.inputs):
        return f"{op.kind} takes {arity} input(s), got {len(op.inputs)} {on}"
    for shape in (*op.inputs, op.output):
        if not 1 <= len(shape) <= MAX_RANK:  # TOSA level 8K MAX_RANK (Vela's reader refuses rank 7)
            return f"{op.kind} tensor of rank {len(shape)} ({_fmt(shape)}) outside 1..{MAX_RANK} {on}"
        if min(shape) < 1:
            return f"{op.kind} tensor {tuple(shape)} has an empty axis {on}"
    if op.kind in SPATIAL and any(len(s) != 4 for s in (*op.inputs, op.output)):
        return f"{op.kind} needs NHWC 4-D shapes, got {[_fmt(s) for s in (*op.inputs, op.output)]} {on}"
    return None


def _dtype(op: NpuOp, on: str) -> Optional[str]:
    # Vela rejects float TOSA ("Input data type not supported"): the NPUs implement PRO-INT only. int16 (EXT-INT16)
    # compiles, but mcu-export lowers int8 only, so int16 is deliberately refused; RESCALE also takes the int32 of
    # an accumulator or of an elementwise sum.
    allowed = ("int8", "int32") if op.kind == "rescale" else ("int8",)
    if op.dtype in allowed:
        return None
    if op.dtype.startswith(("float", "bfloat", "fp")):
        return f"{op.kind} on {op.dtype} activations: the NPU computes integers only (quantize to int8) {on}"
    return f"{op.kind} on {op.dtype} activations: mcu-export lowers int8 only to the NPU {on}"


def _window(op: NpuOp, on: str) -> Optional[str]:
    """TOSA 1.0 CONV2D/DEPTHWISE_CONV2D/*_POOL2D ERROR_IFs, which Vela validates ("Validation error")."""
    if op.kind not in SPATIAL:
        return None
    if min(*op.kernel, *op.stride, *op.dilation, op.depth_multiplier) < 1 or min(op.pad_tblr) < 0:
        return (f"{op.kind} kernel {_fmt(op.kernel)}, stride {_fmt(op.stride)}, dilation {_fmt(op.dilation)}, "
                f"multiplier {op.depth_multiplier} must be >= 1 and pads {op.pad_tblr} >= 0 {on}")  # fmt: skip
    if op.kind in POOLS:
        if op.dilation != (1, 1):
            return f"{op.kind} dilation {_fmt(op.dilation)}: TOSA pools have none {on}"
        pads = op.pad_tblr
        if max(pads[:2]) >= op.kernel[0] or max(pads[2:]) >= op.kernel[1]:  # ERROR_IF(pad >= kernel)
            return f"{op.kind} padding {pads} not below kernel {_fmt(op.kernel)} (TOSA ERROR_IF) {on}"
    (n, ih, iw, c), (n_out, oh, ow, oc) = op.inputs[0], op.output
    for name, size, out, k, s, d, pa, pb in (
        ("height", ih, oh, op.kernel[0], op.stride[0], op.dilation[0], *op.pad_tblr[:2]),
        ("width", iw, ow, op.kernel[1], op.stride[1], op.dilation[1], *op.pad_tblr[2:]),
    ):
        span = size + pa + pb - ((k - 1) * d + 1)
        steps, rest = divmod(span, s)
        if span < 0 or rest or steps + 1 != out:  # ERROR_IF(OH != idiv_check(...) + 1): exact division only
            return (f"{op.kind} output {name} {out} != ({size} + pads {pa}+{pb} - dilated kernel {(k - 1) * d + 1})"
                    f" / stride {s} + 1 exactly (remainder {rest if span >= 0 else 'negative'}; TOSA needs exact "
                    f"sizes: trim the trailing pad) {on}")  # fmt: skip
    want = {"conv": oc, "depthwise": c * op.depth_multiplier}.get(op.kind, c)
    if (n_out, oc) != (n, want):
        return f"{op.kind} output batch x channels {n_out}x{oc} != {n}x{want} from input {_fmt(op.inputs[0])} {on}"
    return None


def _fully_connected(op: NpuOp, on: str) -> Optional[str]:
    """Lowered as a 1x1 CONV2D over [N, 1, 1, C_in] (TOSA 1.0 has no fully-connected operator)."""
    if op.kind != "fully_connected":
        return None
    src, dst = op.inputs[0], op.output
    if not all(len(s) == 2 or (len(s) == 4 and s[1:3] == (1, 1)) for s in (src, dst)) or src[0] != dst[0]:
        return f"fully_connected shapes {_fmt(src)} -> {_fmt(dst)} are not [N, C_in] -> [N, C_out] {on}"
    return None


def _input_depth(op: NpuOp, on: str) -> Optional[str]:
    # Measured: IFM depth 65537 fails for CONV2D, DEPTHWISE_CONV2D and both pools on U55, U65 and U85 alike.
    if op.kind in (*SPATIAL, "fully_connected") and op.inputs[0][-1] > MAX_DEPTH:
        return f"{op.kind} input channels {op.inputs[0][-1]} > {MAX_DEPTH} {on}"
    return None


def _broadcast(op: NpuOp, on: str) -> Optional[str]:
    """Numpy broadcasting from either input or both (Vela splits the two-sided case on U55/U65). TOSA's ADD/MUL also
    need equal ranks (Vela: "ERROR_IF(rank(shape1) != rank(shape2))"): the lowering reshapes the shorter input."""
    if op.kind not in ELEMENTWISE:
        return None
    a, b = op.inputs
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)) or tuple(map(max, a, b)) != tuple(op.output):
        return (
            f"{op.kind} of {_fmt(op.inputs[0])} and {_fmt(op.inputs[1])} does not broadcast to {_fmt(op.output)} {on}"
        )
    return None


def _layout(op: NpuOp, on: str) -> Optional[str]:
    """The shape rules of the data-movement operators (TOSA ERROR_IFs; no Vela limit found beyond them)."""
    src, dst = op.inputs[0], op.output
    if op.kind in SAME_SHAPE and src != dst:
        return f"{op.kind} changes the shape {_fmt(src)} -> {_fmt(dst)} {on}"
    if op.kind == "softmax" and src[-1] > SOFTMAX_MAX_ROW:
        return (f"softmax rows of {src[-1]} elements > {SOFTMAX_MAX_ROW}: the sum of exponentials would need "
                f"shifts past 31 in the exact TOSA form {on}")  # fmt: skip
    if op.kind == "reshape" and prod(src) != prod(dst):
        return f"reshape {_fmt(src)} -> {_fmt(dst)} changes the element count {prod(src)} -> {prod(dst)} {on}"
    if op.kind == "pad" and (len(src) != len(dst) or any(o < i for i, o in zip(src, dst))):
        return f"pad {_fmt(src)} -> {_fmt(dst)} shrinks or changes rank (negative pads) {on}"
    if op.kind == "concat":
        axis = op.axis + len(dst) if op.axis < 0 else op.axis
        if not 0 <= axis < len(dst):
            return f"concat axis {op.axis} outside rank {len(dst)} {on}"
        rest = [tuple(s[:axis]) + tuple(s[axis + 1 :]) for s in (*op.inputs, dst)]
        if (
            any(len(s) != len(dst) for s in op.inputs)
            or len(set(rest)) != 1
            or sum(s[axis] for s in op.inputs) != dst[axis]
        ):
            return f"concat of {[_fmt(s) for s in op.inputs]} on axis {op.axis} does not give {_fmt(dst)} {on}"
    if op.kind == "transpose":
        perm = op.perm or tuple(range(len(src)))
        if sorted(perm) != list(range(len(src))) or tuple(src[p] for p in perm) != tuple(dst):
            return f"transpose {perm} of {_fmt(src)} does not give {_fmt(dst)} {on}"
    return None


# ---- Ethos-U55 and Ethos-U65 ----------------------------------------------------------------------------------------
def _stride(op: NpuOp, on: str) -> Optional[str]:
    """regor's own U55 list (`regor.tflite_operator_constraints("EthosU55")`): CONV_2D and both pools "Stride>3 is only
    supported IF (dilation = 1 AND padding = VALID)", DEPTHWISE_CONV_2D "Kernel stride must be in the range (1,3)".
    Measured the same on U65 (any non-zero pad or dilation, on either axis, counts); U85 takes every stride."""
    if op.kind not in SPATIAL or max(op.stride) <= 3:
        return None
    if op.kind == "depthwise":
        return f"depthwise stride {_fmt(op.stride)} > 3 {on}"
    if any(op.pad_tblr) or op.dilation != (1, 1):
        return (f"{op.kind} stride {_fmt(op.stride)} > 3 with padding {op.pad_tblr}, dilation {_fmt(op.dilation)} "
                f"(Vela splits larger strides only without either) {on}")  # fmt: skip
    return None


def _padded_avg_pool(op: NpuOp, on: str) -> Optional[str]:
    """SUPPORTED_OPS.md, U55/U65 TOSA AVG_POOL2D: "IF padding is used: 1 <= kernel_x <= 8 and 1 <= kernel_y <= 8".
    Measured: unpadded ones of any kernel compile, and U85 takes padded ones too (257x257)."""
    if op.kind == "avg_pool" and any(op.pad_tblr) and max(op.kernel) > 8:
        return f"avg_pool kernel {_fmt(op.kernel)} > 8x8 with padding {op.pad_tblr} {on}"
    return None


def _canonical_transpose(shape: Shape, perm: Tuple[int, ...]) -> Tuple[Shape, Tuple[int, ...]]:
    """The same movement without size-1 axes, without the unmoved leading axes (Vela loops over them) and with the
    unmoved trailing axes as one: the form in which the measured U55/U65 limits below hold."""
    kept = [a for a in perm if shape[a] > 1]
    dims = [shape[a] for a in sorted(kept)]
    moved = [sorted(kept).index(a) for a in kept]
    while moved and moved[0] == 0:
        dims, moved = dims[1:], [p - 1 for p in moved[1:]]
    tail = len(moved)
    while tail > 1 and moved[tail - 1] == tail - 1 and moved[tail - 2] == tail - 2:
        tail -= 1
    return (*dims[: tail - 1], prod(dims[tail - 1 :])) if dims else (), tuple(moved[:tail])


def _transpose_u55(op: NpuOp, on: str) -> Optional[str]:
    """SUPPORTED_OPS.md, U55/U65 TOSA TRANSPOSE (int8): the product of any N-2 axes of a rank-N tensor <= 2^16 (so for
    rank 3, every axis). Measured on the canonical form: (1,2,65537,2) swapping H and W and (2,300,300,2) reversed fail,
    (2,256,257,2) swapping N and H compiles. Deliberately short of Vela, which split a few shapes this refuses (e.g.
    (2,2,300,300) permuted (2,3,0,1)) by rules not worked out here. U85 transposed every shape tried."""
    if op.kind != "transpose":
        return None
    asked = op.perm or tuple(range(len(op.inputs[0])))
    dims, perm = _canonical_transpose(op.inputs[0], asked)
    if perm == tuple(range(len(perm))):
        return None
    rank = max(len(dims), 3)
    largest = sorted((1,) * (rank - len(dims)) + dims)[2:]  # the rank-2 largest axes
    if prod(largest) > MAX_TRANSPOSE_AXES:
        return (f"transpose {asked} of {_fmt(op.inputs[0])}: moved axes {_fmt(largest)} "
                f"(product {prod(largest)}) > {MAX_TRANSPOSE_AXES} {on}")  # fmt: skip
    return None


_ALL: FrozenSet[str] = frozenset({"U55", "U65", "U85"})
_U55_U65: FrozenSet[str] = frozenset({"U55", "U65"})

# (generations, rule), checked in order; the first reason wins.
RULES: Tuple[Tuple[FrozenSet[str], Rule], ...] = (
    (_ALL, _kind_and_shapes),
    (_ALL, _dtype),
    (_ALL, _window),
    (_ALL, _fully_connected),
    (_ALL, _input_depth),
    (_ALL, _broadcast),
    (_ALL, _layout),
    (_U55_U65, _stride),
    (_U55_U65, _padded_avg_pool),
    (_U55_U65, _transpose_u55),
)


def refusal(op: NpuOp, accelerator: str) -> Optional[str]:
    """None when `accelerator` (e.g. "ethos-u55-128", "ethos-u85-256") runs `op` on the NPU, else the reason:
    one line naming the value, the limit and the generation ("on U85", or "on U55/U65" for their shared limits).
    A configuration Vela does not know is a ValueError."""
    generation = _generation(accelerator)
    for generations, rule in RULES:
        if generation in generations:
            label = "/".join(sorted(generations)) if generations == _U55_U65 else generation
            reason = rule(op, f"on {label}")
            if reason:
                return reason
    return None
