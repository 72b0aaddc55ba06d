"""Which backend an int8 export lowers to: the CPU ("cortex-m") or an Ethos-U configuration.

`--backend ethos-u55-128` (any configuration Vela knows) sends what that NPU takes to it; `--backend
cortex-m` keeps everything on the CPU. Without --backend, a board with an NPU (`npu =` in its board file)
picks it; its board file also names Vela's system configuration and memory mode, so that Vela's figures
describe that board. An explicit configuration on such a board still takes the board's memories when it is
of the same generation (else Vela's defaults for that generation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mcu_export.errors import UsageError
from mcu_export.ethosu.vela import ACCELERATORS

CPU = "cortex-m"
BACKENDS = (CPU, *ACCELERATORS)


@dataclass(frozen=True)
class NpuChoice:
    accelerator: str
    system_config: Optional[str] = None
    memory_mode: Optional[str] = None


def _generation(accelerator: str) -> str:
    return accelerator.rsplit("-", 1)[0]


def choose_npu(backend: Optional[str], board, quantize: Optional[str]) -> Optional[NpuChoice]:
    """The NPU to lower to, or None for the CPU only. `board` is a loaded firmware Board or None."""
    if backend is not None and backend not in BACKENDS:
        raise UsageError(f"unknown backend '{backend}' (valid: {', '.join(BACKENDS)})")
    board_npu = getattr(board, "npu", None)
    accelerator = backend if backend is not None else board_npu
    if accelerator in (None, CPU):
        return None
    if quantize != "int8":
        if backend is None:
            return None  # an fp32 export on an NPU board runs on its CPU: the NPU computes integers only
        raise UsageError(f"--backend {backend} needs --quantize int8: the Ethos-U computes in integers only")
    same = board_npu is not None and _generation(board_npu) == _generation(accelerator)
    return NpuChoice(
        accelerator,
        board.npu_system_config if same else None,
        board.npu_memory_mode if same else None,
    )
