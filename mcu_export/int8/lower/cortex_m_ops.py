"""The cortex_m operators the int8 lowering emits, looked up in the op table (`mcu_export.ops.table`,
CORTEX_M_OPS: ExecuTorch's out-variant schemas from executorch/backends/cortex_m/ops/operators.yaml)."""

from __future__ import annotations

from typing import Callable

from mcu_export.ops.table import BY_QUALIFIED, OpDef


def cortex_m_op(name: str) -> OpDef:
    found = BY_QUALIFIED.get(f"cortex_m::{name}.out")
    if found is None:
        raise KeyError(f"cortex_m::{name}.out is not in the op table (mcu_export/ops/table.py)")
    return found


def scratch_of(name: str) -> Callable[..., int]:
    """The scratch-size function the op table gives cortex_m::<name>.out (bytes for one ISA)."""
    fn = cortex_m_op(name).scratch_fn()
    if fn is None:
        raise KeyError(f"cortex_m::{name}.out declares no scratch function (mcu_export/ops/table.py)")
    return fn
