"""mcu-export: PyTorch models to .pte programs, static C and firmware for microcontrollers and NPUs."""
from mcu_export.errors import McuExportError

__version__ = "0.1.0"
__all__ = ["McuExportError", "__version__"]
