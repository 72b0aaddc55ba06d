"""Where the non-Python parts live: `runtime_c/`, `codegen/`, `boards/`, `cmsis_nn_kernels/`, `fvp/`.

In a source checkout (and an editable install) they sit beside the package; an installed wheel carries
them inside it as `mcu_export/_assets/<folder>` (see setup.py), so a pip-installed mcu-export can build.
"""

from __future__ import annotations

from pathlib import Path

from mcu_export.errors import ToolchainError

FOLDERS = ("runtime_c", "codegen", "boards", "cmsis_nn_kernels", "fvp")
_PACKAGE = Path(__file__).resolve().parent


def asset_dir(name: str) -> Path:
    if name not in FOLDERS:
        raise ValueError(f"unknown asset folder {name!r}")
    for candidate in (_PACKAGE / "_assets" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise ToolchainError(f"mcu-export's '{name}' folder is missing from this installation (reinstall mcu-export)")
