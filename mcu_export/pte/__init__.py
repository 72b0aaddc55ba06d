"""The `.pte` program format: in-memory model, writer, checked reader and text dump."""

from mcu_export.pte.inspect import format_program
from mcu_export.pte.reader import read_program, read_program_file
from mcu_export.pte.writer import write_program, write_program_file

__all__ = ["format_program", "read_program", "read_program_file", "write_program", "write_program_file"]
