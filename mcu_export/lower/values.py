"""The values table of one execution plan, built up as the lowering walks the graph.

Scalars (Null, Int, Bool, Double) and lists of ints or doubles are immutable at run time (no MoveCall is
written), so equal ones share one entry: every entry costs RAM on the device (a runtime value, and its
resolved items for an int list; int8 KWS names the list [1, 1] 21 times). Tensors and tensor lists never share.
"""

from __future__ import annotations

import builtins
import sys
from typing import Dict, List, Tuple

import torch

from mcu_export import dtypes
from mcu_export.errors import UsageError
from mcu_export.pte import program as pte


def scalar_type(dtype: torch.dtype) -> pte.ScalarType:
    try:
        return dtypes.from_torch(dtype)
    except ValueError:
        raise UsageError(f"tensors of dtype {dtype} cannot be written to a .pte") from None


def static_sizes(shape, what: str) -> List[int]:
    try:
        return [int(s) for s in shape]
    except (TypeError, RuntimeError) as exc:  # SymInt without a hint
        raise UsageError(f"{what} has a dynamic shape {list(shape)}; mcu-export needs static shapes") from exc


def tensor_bytes(tensor: torch.Tensor) -> bytes:
    """Contiguous little-endian bytes of a tensor, whatever its dtype."""
    flat = tensor.detach().cpu().contiguous().reshape(-1)
    if sys.byteorder != "little" and flat.element_size() > 1:
        raise UsageError("constant data must be written little-endian; big-endian hosts are not supported")
    return flat.view(torch.uint8).numpy().tobytes()


class ValueTable:
    def __init__(self, program: pte.Program):
        self.values: List[pte.EValue] = []
        self._program = program
        self._scalars: Dict[Tuple[type, object], int] = {}

    def add(self, value: pte.EValue) -> int:
        self.values.append(value)
        return len(self.values) - 1

    def _scalar(self, value: pte.EValue, key) -> int:
        full_key = (type(value), key)
        if full_key not in self._scalars:
            self._scalars[full_key] = self.add(value)
        return self._scalars[full_key]

    def null(self) -> int:
        return self._scalar(pte.Null(), None)

    # annotations below this method name the builtin int through `builtins`
    def int(self, v: int) -> int:
        return self._scalar(pte.Int(int(v)), int(v))

    def bool(self, v: bool) -> builtins.int:
        return self._scalar(pte.Bool(bool(v)), bool(v))

    def double(self, v: float) -> builtins.int:
        return self._scalar(pte.Double(float(v)), float(v).hex())  # hex keeps -0.0 apart from 0.0

    def int_list(self, items) -> builtins.int:
        indices = [self.int(i) for i in items]
        return self._scalar(pte.IntList(indices), tuple(indices))

    def double_list(self, items) -> builtins.int:
        floats = [float(v) for v in items]
        return self._scalar(pte.DoubleList(floats), tuple(v.hex() for v in floats))

    def string(self, text: str) -> builtins.int:
        return self.add(pte.String(text))

    def tensor_list(self, indices) -> builtins.int:
        return self.add(pte.TensorList(list(indices)))

    def planned_tensor(self, dtype: torch.dtype, shape, what: str) -> builtins.int:
        sizes = static_sizes(shape, what)
        return self.add(pte.Tensor(scalar_type=scalar_type(dtype), sizes=sizes, dim_order=list(range(len(sizes)))))

    def constant_tensor(self, tensor: torch.Tensor) -> builtins.int:
        """A tensor whose data goes in the program's constant buffer (index 0 stays the empty one)."""
        self._program.constant_buffer.append(tensor_bytes(tensor))
        sizes = list(tensor.shape)
        return self.add(
            pte.Tensor(
                scalar_type=scalar_type(tensor.dtype),
                sizes=sizes,
                dim_order=list(range(len(sizes))),
                data_buffer_idx=len(self._program.constant_buffer) - 1,
            )
        )
