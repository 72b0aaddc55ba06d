"""Target `qemu`: model firmware on the board's QEMU machine, with per-op instruction counts from our
plugin when profiling."""

from __future__ import annotations

from pathlib import Path

from mcu_export.firmware.results import RunResult
from mcu_export.runners.firmware import FirmwareRunner


class QemuRunner(FirmwareRunner):
    name = "qemu"
    rank = 10

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
        )
