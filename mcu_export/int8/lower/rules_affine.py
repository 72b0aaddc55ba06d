"""A BatchNorm that no convolution or linear absorbed (the first layer, after an activation or a pool)
as a 1x1 depthwise int8 convolution: in inference it is y = a[c] * x + b[c] per channel, with
a = weight / sqrt(running_var + eps) and b = bias - running_mean * a.

a[c] becomes a one-tap int8 weight of ±127 at scale |a[c]| / 127 (symmetric per channel, as the
quantizer makes conv weights) and b[c] an int32 bias at input_scale * weight_scale[c]; the kernel's
per-channel requantization does the rest. [N, C] is [N, C, 1, 1] (whose bytes are the same in either
layout); [N, C, L] is its channels-last twin [N, C, 1, L] (rules_conv1d).
"""

from __future__ import annotations

import operator

import numpy as np
import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower import rules_weighted as wt
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.int8.lower.rules_conv1d import VIEW, set_1d_output, twin_of


def _per_channel(lw, node: Node):
    """(a, b) of y = a * x + b per channel, in float64, from the BatchNorm's constant parameters."""
    weight, bias, mean, var = node.args[1:5]
    eps = float(node.args[6])
    mean_t, var_t = lw.constant_of(mean), lw.constant_of(var)
    gamma_t = lw.constant_of(weight) if weight is not None else None
    beta_t = lw.constant_of(bias) if bias is not None else None
    if (
        mean_t is None
        or var_t is None
        or (weight is not None and gamma_t is None)
        or (bias is not None and beta_t is None)
    ):
        raise Refusal("its statistics and affine parameters are not constants")
    c = mean_t.numel()
    gamma = np.ones(c) if gamma_t is None else gamma_t.double().numpy()
    beta = np.zeros(c) if beta_t is None else beta_t.double().numpy()
    scale = gamma / np.sqrt(var_t.double().numpy() + eps)
    return scale, beta - mean_t.double().numpy() * scale


def lower_batch_norm(lw, node: Node) -> None:
    users = list(node.users)
    if len(users) != 1 or users[0].target != operator.getitem or users[0].args[1] != 0:
        raise Refusal("its batch statistics are used")
    value = users[0]
    x = node.args[0]
    shape = [int(s) for s in lw.shape(x)]
    if len(shape) not in (2, 3, 4):
        raise Refusal("batch norm of a tensor of other than 2, 3 or 4 dims")
    _, act, quantizers = terminal(value)
    out = match.qparams(quantizers[0])
    scale, shift = _per_channel(lw, node)
    c = shape[1]
    wscales = np.where(scale == 0, 1.0, np.abs(scale) / 127.0)
    wq = torch.from_numpy(np.round(scale / wscales).astype(np.int8)).reshape(c, 1, 1, 1)
    if len(shape) == 3:
        qx = twin_of(lw, x)
        shape4 = [shape[0], c, 1, shape[2]]
    else:
        qx = lw.qinput(x)
        if qx is None:
            raise Refusal("its input is not int8")
        shape4 = shape if len(shape) == 4 else [shape[0], c, 1, 1]
        if len(shape) == 2:
            four = lw.new_tensor(torch.int8, shape4)
            lw.call(VIEW, dict(self=T(lw.to_layout(qx, False).index), size=shape4), [four])
            qx = QTensor(four, qx.scale, qx.zp, False)
    q_bias = np.round(shift / (qx.scale * wscales))
    bq = torch.from_numpy(np.clip(q_bias, -(1 << 31), (1 << 31) - 1).astype(np.int32))
    geometry = ((1, 1), (0, 0), (1, 1))
    result = wt.conv_call(lw, qx, wq, wscales, bq, geometry, c, shape4, shape4, act, out, depthwise=True)
    consumed = [node, value] + ([act] if act else [])
    qt = QTensor(result, out.scale, out.zp, True)
    if len(shape) == 3:
        set_1d_output(lw, quantizers, qt, shape, consumed)
        return
    if len(shape) == 2:
        flat = lw.to_layout(qt, False)
        index = lw.new_tensor(torch.int8, shape)
        lw.call(VIEW, dict(self=T(flat.index), size=shape), [index])
        qt = QTensor(index, out.scale, out.zp, False)
    lw.set_output(quantizers, qt, consumed)
