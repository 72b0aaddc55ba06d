"""Lowering from a core-ATen ExportedProgram to the `.pte` Program model, and the whole front half."""

from mcu_export.lower.lower import InstructionInfo, LoweringInfo, lower
from mcu_export.lower.pipeline import to_program

__all__ = ["lower", "LoweringInfo", "InstructionInfo", "to_program"]
