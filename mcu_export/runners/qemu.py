"""Target `qemu`: model firmware on the board's QEMU machine, with per-op instruction counts from our
plugin when profiling."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from mcu_export.firmware.results import RunResult
from mcu_export.runners.firmware import FirmwareRunner

if TYPE_CHECKING:
    from mcu_export.runners.npu_seam import Executor


class QemuRunner(FirmwareRunner):
    name = "qemu"
    rank = 10

    def __init__(self, board, *, npu_executor: Optional["Executor"] = None, **options):
        """npu_executor: what runs the NPU jobs of firmware with EthosUBackend delegates (QEMU has none, so they
        come to the host over the NPU seam); None: our simulator (mcu_export.ethosu.simulator). Tests pass their
        own (npu_seam.Executor)."""
        super().__init__(board, **options)
        self.npu_executor = npu_executor

    def simulate(self, elf: Path, workdir: Path) -> RunResult:
        from mcu_export.firmware.qemu import run_qemu

        return run_qemu(
            self.board,
            elf,
            timeout=self.timeout,
            semihosting_dir=workdir,
            icount=True,
            plugin=True if self.profile else None,
            check_errors=False,
            npu=self.npu_executor,
        )
