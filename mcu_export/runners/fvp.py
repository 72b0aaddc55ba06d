"""Target `fvp`: model firmware on the board's Arm FVP (needs the binary on PATH; no per-op counts). The FVP models
the board's NPU, so the firmware drives it through its registers and reads its PMU cycle counter: the run's
`npu_measured` has each delegate call's cycles (FirmwareRunner parses the firmware's "mx: pmu" lines)."""

from __future__ import annotations

from pathlib import Path

from mcu_export.firmware.results import RunResult
from mcu_export.runners.firmware import FirmwareRunner


class FvpRunner(FirmwareRunner):
    name = "fvp"
    rank = 20

    def simulate(self, elf: Path, workdir: Path) -> RunResult:
        from mcu_export.firmware.fvp import run_fvp

        return run_fvp(self.board, elf, timeout=self.timeout, semihosting_dir=workdir, check_errors=False)
