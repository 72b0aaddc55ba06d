"""CmsisNNQuantizer: a PT2E quantizer that annotates a graph the way CMSIS-NN's int8 kernels compute it.

Which tensors get observed, and how (specs in `qspecs`):
- conv2d / linear: input (activation), weight (per channel for conv; linear per tensor by default), bias (int32, derived), output. A
  relu/relu6/hardtanh/clamp right after (sole user) is folded in: the output is observed after the
  activation, so the lowering can turn the activation into the kernel's output clamp.
- add / sub / mul: both operands and the output (add/sub fold a following activation too).
- max/avg/adaptive-avg pooling, mean over H and W, views, flatten, permute, pad, cat, slice, select,
  split (each piece), expand, clone and nearest upsampling: outputs share their input's parameters (the int8
  kernels move or average values without rescaling).
- softmax: output fixed at 1/256, -128.
- sigmoid, tanh, hardswish, hardsigmoid and unfused relu-likes: input and output (lookup tables).
Attention, LayerNorm, more table-lookup activations and the moves of unrolled GRU/LSTM cells: `quantizer_extra`.
Anything else is left in float; the lowering runs it on the fp32 kernels between dequantize/quantize.
The targets cover both the core-ATen graph (PTQ) and the training IR (QAT).
"""

from __future__ import annotations

import operator
from typing import Optional

import torch
from torch.fx import GraphModule, Node
from torchao.quantization.pt2e.quantizer import QuantizationAnnotation, Quantizer, SharedQuantizationSpec

from mcu_export.int8 import qspecs, quantizer_extra
from mcu_export.int8.transposed_conv import int8_refusal

aten = torch.ops.aten

CONV = {aten.conv1d.default, aten.conv2d.default, aten.convolution.default}
LINEAR = {aten.linear.default}
ADD = {aten.add.Tensor, aten.sub.Tensor, aten.add_.Tensor, aten.sub_.Tensor}
MUL = {aten.mul.Tensor, aten.mul_.Tensor}
DIV = {aten.div.Tensor, aten.rsub.Scalar}  # by a number: a table lookup; by a tensor: quantized_div
FUSABLE_ACTIVATIONS = {
    aten.relu.default,
    aten.relu_.default,
    aten.hardtanh.default,
    aten.hardtanh_.default,
    aten.relu6.default,
    aten.clamp.default,
}
LUT_ACTIVATIONS = {
    aten.sigmoid.default,
    aten.tanh.default,
    aten.hardswish.default,
    aten.hardsigmoid.default,
    aten.hardswish_.default,
    aten.hardsigmoid_.default,
} | FUSABLE_ACTIVATIONS
MAX_POOL = {aten.max_pool2d.default, aten.max_pool2d_with_indices.default}
SHARED = {
    aten.avg_pool2d.default,
    aten.adaptive_avg_pool2d.default,
    aten._adaptive_avg_pool2d.default,
    aten.mean.dim,
    aten.view.default,
    aten.view_copy.default,
    aten._unsafe_view.default,
    aten.reshape.default,
    aten.flatten.using_ints,
    aten.squeeze.dim,
    aten.squeeze.dims,
    aten.unsqueeze.default,
    aten.permute.default,
    aten.permute_copy.default,
    aten.constant_pad_nd.default,
    aten.pad.default,
    aten.slice.Tensor,
    aten.select.int,
    aten.expand.default,
    aten.clone.default,
    aten.upsample_nearest2d.vec,
    aten.upsample_bilinear2d.vec,  # a convex combination: the input's range (mcu_export/int8/reference/bilinear.py)
} | MAX_POOL
SPLIT = {aten.split_with_sizes.default, aten.split.Tensor}
SOFTMAX = {aten.softmax.int, aten._softmax.default}
CAT = {aten.cat.default, aten.concat.default}
MIN_MAX = {aten.minimum.default, aten.maximum.default}  # raw int8 compares: one scale for all
SUM = {aten.sum.dim_IntList}  # its own output scale: the sum's range is not the input's


def _is_float_tensor(node) -> bool:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.float32


def _is_constant(node) -> bool:
    """A Python number, or a tensor the graph holds as a constant (scalars_to_tensors' form of a number)."""
    if not isinstance(node, Node):
        return isinstance(node, (int, float))
    return node.op == "get_attr"


def _annotated(node: Node) -> bool:
    ann = node.meta.get("quantization_annotation")
    return ann is not None and ann._annotated


def _mark(node: Node, inputs: dict, output) -> None:
    node.meta["quantization_annotation"] = QuantizationAnnotation(
        input_qspec_map=inputs, output_qspec=output, _annotated=True
    )


def constant_bounds(node: Node):
    """(lo, hi) of a relu-like node with constant bounds (None = unbounded), or None if not constant."""
    t = node.target
    if t in (aten.relu.default, aten.relu_.default):
        return 0.0, None
    if t == aten.relu6.default:
        return 0.0, 6.0
    if t in (aten.hardtanh.default, aten.hardtanh_.default):
        lo = node.args[1] if len(node.args) > 1 else node.kwargs.get("min_val", -1.0)
        hi = node.args[2] if len(node.args) > 2 else node.kwargs.get("max_val", 1.0)
    elif t == aten.clamp.default:
        lo = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
        hi = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
    else:
        return None
    if any(v is not None and not isinstance(v, (int, float)) for v in (lo, hi)):
        return None
    return (None if lo is None else float(lo)), (None if hi is None else float(hi))


def fused_activation(node: Node) -> Optional[Node]:
    """The relu-like node that can fold into `node`'s output clamp, if any."""
    if len(node.users) != 1:
        return None
    user = next(iter(node.users))
    if user.op == "call_function" and user.target in FUSABLE_ACTIVATIONS and constant_bounds(user) is not None:
        return user
    return None


_BATCH_NORM = {
    aten.batch_norm.default,
    aten._native_batch_norm_legit.default,
    aten._native_batch_norm_legit_no_training.default,
    aten.cudnn_batch_norm.default,
}


def _qat_batch_norm_chain(node: Node):
    """The single-user chain from a conv to the BatchNorm that follows it (QAT's fused pattern), or None."""
    chain, current = [], node
    for _ in range(4):
        if len(current.users) != 1:
            return None
        current = next(iter(current.users))
        chain.append(current)
        if current.target in _BATCH_NORM:
            return chain
        if current.target not in (aten.div.Tensor, aten.add.Tensor, aten.mul.Tensor):
            return None
    return None


class CmsisNNQuantizer(Quantizer):
    """int8 quantizer following CMSIS-NN's scheme. `qat=True` uses fake-quant modules (prepare_qat_pt2e).
    Linear weights are per channel by default, as the issue's scheme asks (one multiplier per output row;
    the runtime kernel then calls arm_fully_connected_s8 once per row). `per_channel_linear=False` gives
    ExecuTorch's per-tensor scheme: one CMSIS-NN call per layer, faster on device."""

    def __init__(self, qat: bool = False, per_channel_linear: bool = True, histogram: bool = False):
        super().__init__()
        self.qat = qat
        self.per_channel_linear = per_channel_linear
        self.act = qspecs.activation_spec(qat, histogram)

    def annotate(self, model: GraphModule) -> GraphModule:
        nodes = [n for n in model.graph.nodes if n.op == "call_function"]
        quantizer_extra.annotate(self, nodes, _annotated, _mark)  # attention, LayerNorm, more tables, RNN cells
        # Producers with a foldable activation first, so that they claim their relu before the
        # generic relu rule sees it.
        for node in nodes:
            if _annotated(node):
                continue
            if node.target in CONV | LINEAR:
                self._weighted(node)
            elif node.target in ADD | MUL:
                self._binary(node)
            elif node.target == aten._native_batch_norm_legit_no_training.default:
                self._batch_norm(node)
            elif node.target in DIV and _is_constant(node.args[1]):
                _mark(node, {node.args[0]: self.act}, self.act)
            elif node.target in DIV:
                self._binary(node)
        for node in nodes:
            if not _annotated(node) and node.target in CAT:  # its first argument is a list
                self._cat(node)
            elif not _annotated(node) and node.target in MIN_MAX:
                self._cat(node, list(node.args[:2]))
            if _annotated(node) or not _is_float_tensor(node.args[0] if node.args else None):
                continue
            if node.target in SOFTMAX:
                _mark(node, {node.args[0]: self.act}, qspecs.softmax_output_spec(self.qat))
            elif node.target in LUT_ACTIVATIONS or node.target in SUM:
                _mark(node, {node.args[0]: self.act}, self.act)
            elif node.target in SHARED:
                self._shared(node)
            elif node.target in SPLIT:
                self._split(node)
        return model

    def _output_spec(self, node: Node):
        """Observe `node`'s output, or its folded activation's output instead."""
        act = fused_activation(node)
        if act is None:
            return self.act
        _mark(act, {}, self.act)
        return None

    def _weighted(self, node: Node) -> None:
        x, w = node.args[0], node.args[1]
        bias = node.args[2] if len(node.args) > 2 else None
        if not (_is_float_tensor(x) and _is_float_tensor(w)):
            return
        transposed = node.target == aten.convolution.default and bool(node.args[6])
        if transposed and int8_refusal(node) is not None:  # left in float: no int8 kernel runs it
            return
        # a transposed weight has its output channels on axis 1
        per_channel = node.target in CONV or (node.target in LINEAR and self.per_channel_linear)
        inputs = {x: self.act, w: qspecs.weight_spec(self.qat, per_channel, ch_axis=1 if transposed else 0)}
        if isinstance(bias, Node) and _is_float_tensor(bias):
            inputs[bias] = qspecs.bias_spec((x, node), (w, node), per_channel)
        chain = _qat_batch_norm_chain(node) if self.qat else None
        if chain:
            # QAT: prepare_qat_pt2e rewrote conv → BN as conv → div → add → BN; convert folds it back
            # only if nothing is observed in between, so observe after the BN (or its folded relu).
            for between in chain[:-1]:
                _mark(between, {}, None)
            _mark(chain[-1], {}, self._output_spec(chain[-1]))
            _mark(node, inputs, None)
            return
        _mark(node, inputs, self._output_spec(node))

    def _binary(self, node: Node) -> None:
        operands = [a for a in node.args[:2] if isinstance(a, Node)]
        if not operands or not all(_is_float_tensor(a) for a in operands):
            return
        if node.target in ADD and node.kwargs.get("alpha", 1) != 1:
            return
        output = self._output_spec(node) if node.target in ADD else self.act
        _mark(node, {a: self.act for a in operands}, output)

    def _batch_norm(self, node: Node) -> None:
        """A BatchNorm left standing (no conv/linear before it to fold into): an int8 per-channel affine,
        observed at its value (getitem 0, or the activation folded after it)."""
        if not _is_float_tensor(node.args[0]):
            return
        _mark(node, {node.args[0]: self.act}, None)
        for user in node.users:
            if user.target == operator.getitem and user.args[1] == 0:
                _mark(user, {}, self._output_spec(user))

    def _shared(self, node: Node) -> None:
        x = node.args[0]
        shared = SharedQuantizationSpec((x, node))
        if node.target == aten.max_pool2d_with_indices.default:
            # The pool returns (values, indices): observe the values where getitem 0 takes them out.
            _mark(node, {x: self.act}, None)
            for user in node.users:
                if user.target == operator.getitem and user.args[1] == 0:
                    _mark(user, {}, shared)
            return
        _mark(node, {x: self.act}, shared)

    def _split(self, node: Node) -> None:
        """The pieces (read through getitem) share the input's parameters, as the views do."""
        x = node.args[0]
        _mark(node, {x: self.act}, None)
        for user in node.users:
            if user.target == operator.getitem:
                _mark(user, {}, SharedQuantizationSpec((x, node)))

    def _cat(self, node: Node, tensors=None) -> None:
        """cat (or `tensors` of another op whose inputs and output share one scale): one observer for all."""
        tensors = node.args[0] if tensors is None else tensors
        if not tensors or not all(_is_float_tensor(t) for t in tensors):
            return
        first = tensors[0]
        shared = SharedQuantizationSpec((first, node))
        inputs = {first: self.act}
        inputs.update({t: shared for t in tensors[1:] if t is not first})
        _mark(node, inputs, shared)

    def validate(self, model: GraphModule) -> None:
        return None
