"""The cortex_m operators the int8 lowering emits, with ExecuTorch's out-variant schemas
(executorch/backends/cortex_m/ops/operators.yaml), looked up in the op table.

The op table (`mcu_export.ops.table`) is where these ops are declared for the runtime's kernel table and
the support check; until an entry is there, the schema below stands in so that lowering and the Python
interpreter agree on the argument order.
"""
from __future__ import annotations

from typing import Dict

from mcu_export.ops.table import BY_QUALIFIED, OpDef

SCHEMAS: Dict[str, str] = {
    "quantize_per_tensor": "(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
                           "ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "dequantize_per_tensor": "(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
                             "ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "quantized_add": "(Tensor self, int self_zero_point, int self_multiplier, int self_shift, Tensor other, "
                     "int other_zero_point, int other_multiplier, int other_shift, int output_zero_point, "
                     "int output_multiplier, int output_shift, int activation_min, int activation_max, *, "
                     "Tensor(a!) out) -> Tensor(a!)",
    "quantized_mul": "(Tensor self, int self_zero_point, Tensor other, int other_zero_point, int output_zero_point, "
                     "int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)",
    "quantized_activation": "(Tensor input, Tensor lut, *, Tensor(a!) out) -> Tensor(a!)",
    "quantized_linear": "(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum, int input_offset, "
                        "int filter_offset, int output_offset, int[] requantize_multipliers, "
                        "int[] requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out) "
                        "-> Tensor(a!)",
    "softmax": "(Tensor input, int dim, int input_zero_point, int output_zero_point, int input_multiplier, "
               "int input_shift, int diff_min, *, Tensor(a!) out) -> Tensor(a!)",
    "transpose": "(Tensor input, int[] perm, *, Tensor(a!) out) -> Tensor(a!)",
    "pad": "(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *, Tensor(a!) out) -> Tensor(a!)",
    "quantized_conv2d": "(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
                        "int input_offset, int output_offset, Tensor requantize_multipliers, "
                        "Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, *, "
                        "Tensor(a!) out) -> Tensor(a!)",
    "quantized_depthwise_conv2d": "(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
                                  "int[] dilation, int depth_multiplier, int input_offset, int output_offset, "
                                  "Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, "
                                  "int activation_max, Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)",
    "quantized_avg_pool2d": "(Tensor input, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, "
                            "int zero_point, int multiplier, int shift, Tensor scratch, *, Tensor(a!) out) "
                            "-> Tensor(a!)",
    "quantized_max_pool2d": "(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, "
                            "bool ceil_mode, int input_zero_point, int output_zero_point, int activation_min, "
                            "int activation_max, *, Tensor(a!) out) -> Tensor(a!)",
}


def cortex_m_op(name: str) -> OpDef:
    """The table's OpDef for cortex_m::<name>.out, or a stand-in with ExecuTorch's schema."""
    found = BY_QUALIFIED.get(f"cortex_m::{name}.out")
    if found is not None:
        return found
    return OpDef(name=f"cortex_m::{name}", overload="out", aten=(), dtypes=("int8",),
                 schema_text=f"cortex_m::{name}.out{SCHEMAS[name]}")


def missing_from_table() -> list:
    """cortex_m ops the lowering emits that the op table does not declare yet."""
    return [name for name in SCHEMAS if f"cortex_m::{name}.out" not in BY_QUALIFIED]
