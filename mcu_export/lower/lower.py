"""The fp32 lowering: a passed, supported ExportedProgram to a `.pte` Program model (one method,
`forward`), every node on the portable backend. Planned tensors get their arena offsets later, from
the memory planner."""

from __future__ import annotations

from torch.export import ExportedProgram

from mcu_export.lower.backend import lower_graph
from mcu_export.lower.builder import InstructionInfo, LoweringInfo
from mcu_export.lower.portable import PortableBackend


def lower(ep: ExportedProgram, with_stacktrace: bool = True):
    """Lower to a Program (planned tensors not yet placed: run `plan_memory` next) and its LoweringInfo.
    The caller has run `check_supported` (mcu_export.lower.pipeline does), which names unsupported ops
    and dtypes with their source lines."""
    return lower_graph(ep, [PortableBackend()], with_stacktrace)


__all__ = ["lower", "LoweringInfo", "InstructionInfo"]
