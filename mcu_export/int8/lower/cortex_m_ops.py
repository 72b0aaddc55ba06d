"""The cortex_m operators the int8 lowering emits, looked up in the op table (`mcu_export.ops.table`,
CORTEX_M_OPS: ExecuTorch's out-variant schemas from executorch/backends/cortex_m/ops/operators.yaml)."""
from __future__ import annotations

from typing import List

from mcu_export.ops.table import BY_QUALIFIED, OpDef

EMITTED = ("quantize_per_tensor", "dequantize_per_tensor", "quantized_add", "quantized_mul", "quantized_activation",
           "quantized_linear", "softmax", "transpose", "pad", "quantized_conv2d", "quantized_depthwise_conv2d",
           "quantized_avg_pool2d", "quantized_max_pool2d")


def cortex_m_op(name: str) -> OpDef:
    found = BY_QUALIFIED.get(f"cortex_m::{name}.out")
    if found is None:
        raise KeyError(f"cortex_m::{name}.out is not in the op table (mcu_export/ops/table.py)")
    return found


def missing_from_table() -> List[str]:
    """cortex_m ops the lowering emits that the op table does not declare."""
    return [name for name in EMITTED if f"cortex_m::{name}.out" not in BY_QUALIFIED]
