"""embedding with an int8 weight table: a gather of int8 rows, which keep the table's quantization, on the
op table's any-dtype aten::embedding.out kernel (it moves bytes; no arithmetic)."""

from __future__ import annotations

import torch
from torch.fx import Node

from mcu_export.int8.lower import match
from mcu_export.int8.lower.backend import QTensor, T
from mcu_export.int8.lower.rules_common import Refusal, terminal
from mcu_export.ops.table import BY_QUALIFIED


def lower_embedding(lw, node: Node) -> None:
    op = BY_QUALIFIED["aten::embedding.out"]
    weight, indices = node.args[0], node.args[1]
    qw = lw.qinput(weight)
    if qw is None:
        raise Refusal("its weight table is not int8")
    _, _, quantizers = terminal(node, fuse=False)
    if match.qparams(quantizers[0]) != qw.q:
        raise Refusal("its output is not quantized as its weight table")
    padding_idx = node.args[2] if len(node.args) > 2 else -1
    result = lw.new_tensor(torch.int8, lw.shape(node))
    lw.call(
        op,
        dict(
            weight=T(qw.index),
            indices=T(lw.b.tensor(indices)),
            padding_idx=padding_idx,
            scale_grad_by_freq=False,
            sparse=False,
        ),
        [result],
    )
    lw.set_output(quantizers, QTensor(result, qw.scale, qw.zp, False), [node])
