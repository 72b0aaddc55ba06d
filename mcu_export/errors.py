"""User-facing errors. Each carries one line that names what is wrong and where (op, file, field, board).

The CLI prints `mcu-export: error: <message>` and exits with `exit_code`; no traceback reaches the user.
"""

from __future__ import annotations


class McuExportError(Exception):
    exit_code = 2

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(McuExportError):
    """Bad command-line input: a missing file, a bad model spec, a wrong input shape."""


class UnsupportedOpError(McuExportError):
    """An operator that no backend supports; the message names the op and the model's source line."""


class PteFormatError(McuExportError):
    """A .pte file that is not well formed; the message names the field."""


class RuntimeFailure(McuExportError):
    """The C runtime reported an error (its mx_error text is in the message)."""


class ToolchainError(McuExportError):
    """A compiler, CMake or simulator is missing or failed; the message says what to install."""


class SerialLinkError(McuExportError):
    """A serial port that cannot be opened, or a device that does not answer (after the retries)."""


class DeviceError(McuExportError):
    """A device on the serial link refused a request; the message has its status text (and operator).
    status and instruction: the device's (0 and -1 when the error is the host's own)."""

    status: int = 0
    instruction: int = -1


class FlashError(McuExportError):
    """Flashing a board failed: its drive, tool or probe is missing, or the tool refused; one line says which."""


class McuExportWarning(UserWarning):
    """Something the user should know that does not stop the export (training mode, an int8 op run in fp32).
    The API raises it as a Python warning; the CLI prints each once as `mcu-export: warning: <message>`."""
