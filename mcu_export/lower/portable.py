"""The portable backend: each node becomes one call of its op's out variant (fp32 kernels, and the
layout and copy kernels for every dtype), with the arguments ExecuTorch's emitter would write.

In an int8 program it is the fallback for what the cortex_m backend refuses: its tensor arguments come
from `builder.value`, which dequantizes int8 values on first use.
"""

from __future__ import annotations

from typing import Dict, Optional

from torch.fx import Node

from mcu_export.lower.args import TensorOf, bind_node, kernel_args
from mcu_export.lower.backend import KernelBackend
from mcu_export.lower.builder import ProgramBuilder
from mcu_export.ops.table import BY_ATEN, BY_QUALIFIED, OpDef

_VIEW_OP = BY_QUALIFIED["aten::view_copy.out"]
_PERMUTE_OP = BY_QUALIFIED["aten::permute_copy.out"]
_TO_DIM_ORDER_OP = BY_QUALIFIED["dim_order_ops::_to_dim_order_copy.out"]
_SPLIT_OP = BY_QUALIFIED["aten::split_with_sizes_copy.out"]


def bound_args(builder: ProgramBuilder, node: Node, op: OpDef) -> Dict[str, object]:
    """The node's arguments, named as the out variant names them."""
    if op is _VIEW_OP:  # every reshape-like call: the static target shape is the output's
        return {"self": node.args[0], "size": list(node.meta["val"].shape)}
    bound = bind_node(node)
    if op is _PERMUTE_OP:
        rank = builder.rank(node.args[0])
        bound["dims"] = [d % rank if rank else d for d in bound["dims"]]
    if op is _SPLIT_OP:  # split.Tensor's one split_size: the sizes its outputs have
        dim = bound.get("dim", 0)
        bound = {"self": bound["self"], "dim": dim, "split_sizes": [v.shape[dim] for v in node.meta["val"]]}
    if op is _TO_DIM_ORDER_OP and bound.get("dim_order") is None:  # explicit, as ExecuTorch emits it
        bound["dim_order"] = list(range(len(node.meta["val"].shape)))
    return bound


class PortableBackend(KernelBackend):
    name = "portable"

    def take(self, builder: ProgramBuilder, node: Node) -> Optional[str]:
        op = BY_ATEN.get(str(node.target))
        if op is None or op.library != "portable":
            return f"no portable kernel for {node.target}"
        outs = builder.planned_like(node)
        out_list = outs if isinstance(outs, list) else [outs]
        tensor_of = TensorOf(Node, builder.tensor)
        args = kernel_args(
            builder.table, op, bound_args(builder, node, op), out_list, tensor_of, f"{node.name} ({op.qualified})"
        )
        builder.values[node] = outs
        builder.emit(op, args, node)
        return None
