"""mcu-export: PyTorch models to .pte programs, static C and firmware for microcontrollers and NPUs."""

import logging as _logging

from mcu_export.errors import McuExportError

# torchao 0.18 logs a warning for each CUDA-only extension it cannot load on a CPU build, and torch 2.13 one
# for torchao's Enum registration: noise about the install, not about the user's model or our output.
_logging.getLogger("torchao").setLevel(_logging.ERROR)
_logging.getLogger("torch.utils._pytree").setLevel(_logging.ERROR)

__version__ = "0.1.0"
__all__ = ["Artifact", "McuExportError", "export", "export_qat", "export_spec", "prepare_qat", "__version__"]
_API = ("Artifact", "export", "export_qat", "export_spec", "prepare_qat")


def __getattr__(name):
    # The API pulls in torch: load it on first use, so `mcu-export --help` and the error paths stay quick.
    if name in _API:
        from mcu_export import api

        return getattr(api, name)
    raise AttributeError(f"module 'mcu_export' has no attribute {name!r}")
