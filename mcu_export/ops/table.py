"""The op table: every operator mcu-export knows, declared once.

Each entry names the operator exactly as a `.pte` writes it (`aten::convolution` + overload `out`), the
core-ATen targets that lower to it, the dtypes its kernels accept and the C kernel symbol that
implements it. The argument schema is the out-variant's own schema in torch (`schema_of`), which is
what ExecuTorch's emitter and our lowering both follow. The C kernel table, the export-time support
check and the docs' op list are all generated from this list.
"""
from __future__ import annotations

from dataclasses import dataclass
import functools
from typing import Dict, Optional, Tuple

import torch


@dataclass(frozen=True)
class OpDef:
    name: str                 # namespace::name as in the .pte Operator table
    overload: str             # overload as in the .pte Operator table
    aten: Tuple[str, ...]     # core-ATen call targets (str(node.target)) that lower to this op
    dtypes: Tuple[str, ...] = ("float32",)  # dtypes of the (first) output that the kernel computes
    # The out-variant's schema as text, for ops whose library torch may not have loaded (ExecuTorch's
    # dim_order_ops exist only after `import executorch.exir`); parsed when torch.ops lacks the op.
    schema_text: Optional[str] = None

    @property
    def qualified(self) -> str:
        return f"{self.name}.{self.overload}"

    @property
    def kernel(self) -> str:
        """C symbol of the portable kernel: mx_k_<namespace>_<name>_<overload>."""
        ns, base = self.name.split("::")
        return f"mx_k_{ns}_{base.lstrip('_')}_{self.overload}"

    def schema(self) -> torch.FunctionSchema:
        return _schema_of(self)


@functools.lru_cache(maxsize=None)
def _schema_of(op: OpDef) -> torch.FunctionSchema:
    ns, base = op.name.split("::")
    try:
        return getattr(getattr(getattr(torch.ops, ns), base), op.overload)._schema
    except (AttributeError, RuntimeError):
        if op.schema_text is None:
            raise
        return torch._C.parse_schema(op.schema_text)


# Layout and copy kernels move bytes and so take every dtype the runtime knows.
ANY_DTYPE = ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool")


def _op(name: str, *aten: str, overload: str = "out", schema_text: Optional[str] = None,
        dtypes: Tuple[str, ...] = ("float32",)) -> OpDef:
    return OpDef(name=name, overload=overload, aten=tuple(aten), schema_text=schema_text, dtypes=dtypes)


OPS: Tuple[OpDef, ...] = (
    _op("aten::convolution", "aten.convolution.default"),
    _op("aten::addmm", "aten.addmm.default"),
    _op("aten::mm", "aten.mm.default"),
    _op("aten::bmm", "aten.bmm.default"),
    _op("aten::relu", "aten.relu.default"),
    _op("aten::hardtanh", "aten.hardtanh.default"),
    _op("aten::clamp", "aten.clamp.default"),
    _op("aten::sigmoid", "aten.sigmoid.default"),
    _op("aten::tanh", "aten.tanh.default"),
    _op("aten::hardswish", "aten.hardswish.default"),
    _op("aten::hardsigmoid", "aten.hardsigmoid.default"),
    _op("aten::add", "aten.add.Tensor"),
    _op("aten::sub", "aten.sub.Tensor"),
    _op("aten::mul", "aten.mul.Tensor"),
    _op("aten::div", "aten.div.Tensor"),
    _op("aten::max_pool2d_with_indices", "aten.max_pool2d_with_indices.default"),
    _op("aten::avg_pool2d", "aten.avg_pool2d.default"),
    _op("aten::_adaptive_avg_pool2d", "aten._adaptive_avg_pool2d.default"),
    _op("aten::mean", "aten.mean.dim"),
    _op("aten::view_copy", "aten.view.default", "aten.view_copy.default", "aten._unsafe_view.default",
        "aten.squeeze.dims", "aten.squeeze.dim", "aten.unsqueeze.default", "aten.reshape.default",
        dtypes=ANY_DTYPE),
    _op("aten::permute_copy", "aten.permute.default", "aten.permute_copy.default", dtypes=ANY_DTYPE),
    _op("aten::cat", "aten.cat.default", dtypes=ANY_DTYPE),
    _op("aten::_softmax", "aten._softmax.default"),
    _op("aten::constant_pad_nd", "aten.constant_pad_nd.default"),
    _op("aten::_native_batch_norm_legit_no_training", "aten._native_batch_norm_legit_no_training.default"),
    # Dtype conversion, as ExecuTorch names it: the target dtype is the out tensor's, dim_order None means
    # contiguous. `_to_copy` calls that change nothing are removed by the no-op pass before lowering.
    _op("dim_order_ops::_to_dim_order_copy", "aten._to_copy.default",
        "dim_order_ops._to_dim_order_copy.default",
        schema_text="dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, "
                    "int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)", dtypes=ANY_DTYPE),
)

BY_QUALIFIED: Dict[str, OpDef] = {op.qualified: op for op in OPS}
BY_ATEN: Dict[str, OpDef] = {target: op for op in OPS for target in op.aten}
