"""Model firmware on a simulator (the `qemu` and `fvp` targets share all but the simulator's command):
inputs and outputs travel as semihosting files, so one build serves any number of runs.

The firmware's side of the contract is runtime_c/firmware/main.c: it reads in<i>.bin, writes out<i>.bin,
prints one `mx: ok|error|io error ...` line and exits 0 (ok), 1 (runtime error) or 2 (I/O error);
a hard fault prints the registers and ` op=<instruction>` and exits 253 (fvp/README.md).
"""

from __future__ import annotations

import json
import re
import tempfile
from abc import abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from mcu_export.board_types import Board
from mcu_export.errors import RuntimeFailure
from mcu_export.firmware.icount import LOAD_TAG
from mcu_export.firmware.results import FirmwareFault, RunResult, check
from mcu_export.runners.base import NpuCycles, OpCount, Runner

if TYPE_CHECKING:
    from mcu_export.firmware.build import BuildResult

# The build, the ELF tools and the program reader load on first use: `mcu-export boards` imports every
# target's module (runners.targets()) to ask which serve a board, and must start in well under 0.3 s.

EXIT_RUNTIME_ERROR = 1
EXIT_IO_ERROR = 2
_OK_LINE = re.compile(r"^mx: ok ticks=(\d+) stack=(\d+) pool=(\d+)/(\d+)\s*$", re.M)
_ERROR_LINE = re.compile(r"^mx: (?:io )?error.*$", re.M)
_FAULT_OP = re.compile(r"mx: hard fault.* op=(\d+)")
_INSTRUCTION = re.compile(r"\(instruction (\d+)")
_NPU_LINE = re.compile(r"^mx: npu.*$", re.M)  # boards/ethosu/: npu_platform.c's and the seam's own lines
_PMU_LINE = re.compile(r"^mx: pmu instruction=(\d+) cycles=(\d+)\s*$", re.M)  # npu_platform.c, per counted job
_SEAM_ERROR = re.compile(r"^npu seam: job (\d+): (?:executor failed: \w+: )?")
# The firmware prints only the code (its texts would cost ~1.7 KB of flash); errors.def has the texts.
_CODE_ONLY = re.compile(r"^mx: error (0x[0-9a-fA-F]{4})(?= \(|\s*$)")
_ERRORS_DEF = re.compile(r'^X\(\s*\w+\s*,\s*(0x[0-9a-fA-F]+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)', re.M)
_error_texts: Optional[Dict[int, str]] = None


def error_text(code: int) -> str:
    """The text errors.def gives `code` (what mx_error_to_string says on the device)."""
    global _error_texts
    if _error_texts is None:
        from mcu_export.assets import asset_dir

        text = (asset_dir("runtime_c") / "include" / "mx" / "errors.def").read_text()
        _error_texts = {int(c, 16): t for c, t in _ERRORS_DEF.findall(text)}
    return _error_texts.get(code, "unknown runtime error")


def decode_error_line(line: str) -> str:
    """`mx: error 0x0305 (instruction 3, ...)` → `mx: error 0x0305 <text> (instruction 3, ...)`;
    a line that already has its text (or is not a runtime error) is returned as it is."""
    m = _CODE_ONLY.match(line)
    if m is None:
        return line
    return f"{line[: m.end()]} {error_text(int(m.group(1), 16))}{line[m.end() :]}".rstrip()


def raise_for(
    result: RunResult,
    where: str,
    elf: Path,
    kernel_calls: Sequence[Dict],
    timeout: float,
    delegate_calls: Sequence[Dict] = (),
    sources: Optional[Dict[int, str]] = None,
) -> None:
    """Timeouts and faults first (results.check), naming the op a fault hit and its source line (`sources`,
    mcu_export.pte.debug_map); then the firmware's own errors,
    naming the delegate (model.json's delegate_calls) and what the NPU or its seam said when one failed."""
    try:
        from mcu_export.firmware.elf import symbolizer

        check(result, where=where, timeout=timeout, symbolize=symbolizer(elf))
    except FirmwareFault as fault:
        match = _FAULT_OP.search(result.uart_text)
        if match is None:
            raise
        index = int(match.group(1))
        op = next((c["op"] for c in kernel_calls if c["index"] == index), "?")
        line = (sources or {}).get(index)
        at = f" at {line}" if line else ""
        raise FirmwareFault(f"{fault} while running instruction {index} ({op}){at}", fault.registers) from None
    if result.exit_code == 0:
        return
    lines = _ERROR_LINE.findall(result.uart_text)
    said = (
        decode_error_line(lines[-1])
        if lines
        else f"no error line (last UART text: {result.uart_text.strip()[-200:]!r})"
    )
    kinds: Dict[Optional[int], str] = {EXIT_RUNTIME_ERROR: "runtime error", EXIT_IO_ERROR: "I/O error"}
    kind = kinds.get(result.exit_code, f"exit code {result.exit_code}")
    named, why = _failed_delegate(result, said, delegate_calls)
    if why:
        raise RuntimeFailure(f"firmware on {where} failed with a {kind}{named}: {why} (firmware: {said})")
    raise RuntimeFailure(f"firmware on {where} failed with a {kind}{named}: {said}")


def _failed_delegate(result: RunResult, said: str, delegate_calls: Sequence[Dict]) -> Tuple[str, str]:
    """(" in delegate K (Backend, instruction N)" when the error line points at a delegate call, else ""; what the
    NPU seam's host side recorded, e.g. the simulator's refusal, else the firmware's own NPU lines, else "")."""
    at = _INSTRUCTION.search(said)
    call = next((c for c in delegate_calls if at and c["index"] == int(at.group(1))), None)
    named = f" in delegate {call['delegate']} ({call['backend']}, instruction {call['index']})" if call else ""
    why = [_SEAM_ERROR.sub(r"NPU job \1: ", e) for e in result.npu_errors]
    if not why:
        why = [line.strip() for line in _NPU_LINE.findall(result.uart_text)]
    return named, "; ".join(why)


def npu_cycles(uart_text: str, delegate_calls: Sequence[Dict]) -> List[NpuCycles]:
    """The NPU jobs the firmware counted with the NPU's PMU (one "mx: pmu ..." line each, in run order), each named
    by its delegate (model.json's delegate_calls). None on QEMU unless the seam's executor counts: the firmware
    says nothing for a counter that stayed 0."""
    delegate_of = {c["index"]: c["delegate"] for c in delegate_calls}
    return [
        NpuCycles(delegate=delegate_of.get(int(i), -1), instruction=int(i), cycles=int(c))
        for i, c in _PMU_LINE.findall(uart_text)
    ]


class FirmwareRunner(Runner):
    """Model firmware built for the board from an export folder (once per model and board) and run on a
    simulator; subclasses say which simulator and how to start it."""

    def __init__(self, board, **options) -> None:
        super().__init__(board, **options)
        self.out_dir: Optional[Path] = None  # the export folder, when the runner builds from one
        self.build: Optional[BuildResult] = None
        self.kernel_calls: List[Dict] = []
        self.delegate_calls: List[Dict] = []
        self.sources: Dict[int, str] = {}  # instruction → "model.py:42 in Net.forward" (per-op rows, faults)

    @classmethod
    def serves(cls, board) -> bool:
        """A board runs on the simulators its file has a [simulators.<name>] table for."""
        return isinstance(board, Board) and getattr(board, cls.name, None) is not None

    @abstractmethod
    def simulate(self, elf: Path, workdir: Path) -> RunResult:
        """One simulator run of `elf` with semihosting files in `workdir`, errors left to raise_for."""

    def open(self, program: Path) -> None:
        from mcu_export.firmware.flow import export_dir
        from mcu_export.pte import debug_map
        from mcu_export.pte.reader import read_program_file
        from mcu_export.runners.tensors import program_io

        self.out_dir = export_dir(program)
        prog = read_program_file(self.out_dir / "model.pte")
        self.inputs, self.outputs = program_io(prog)
        self.sources = debug_map.sources(debug_map.load(self.out_dir / "model.pte", prog.method("forward")))
        self.build = None

    def use_build(self, build: BuildResult) -> "FirmwareRunner":
        """Run this already built firmware (its project's model/model.json says the I/O)."""
        from mcu_export.firmware.model_project import MODEL_DIR, project_of
        from mcu_export.runners.tensors import TensorSpec

        manifest = json.loads((project_of(build) / MODEL_DIR / "model.json").read_text())
        self.inputs = tuple(TensorSpec.of_manifest(s) for s in manifest["inputs"])
        self.outputs = tuple(TensorSpec.of_manifest(s) for s in manifest["outputs"])
        self.kernel_calls = manifest["kernel_calls"]
        self.delegate_calls = manifest.get("delegate_calls", [])
        self.build = build
        return self

    def prepare(self) -> None:
        from mcu_export.firmware.flow import build_for_board
        from mcu_export.firmware.model_cli import current_build

        if self.build is None:
            assert self.out_dir is not None, "open() or use_build() first"
            self.use_build(current_build(self.out_dir, self.board) or build_for_board(self.out_dir, self.board))

    def execute(self, inputs: Sequence[bytes]) -> Tuple[List[bytes], Dict[str, Any]]:
        from mcu_export.firmware.stack import check_measured

        assert self.build is not None  # run() calls prepare() first
        elf = Path(self.build.elf)
        with tempfile.TemporaryDirectory(prefix="mx-model-run-") as tmp:
            work = Path(tmp)
            for i, data in enumerate(inputs):
                (work / f"in{i}.bin").write_bytes(data)
            result = self.simulate(elf, work)
            raise_for(result, self.where, elf, self.kernel_calls, self.timeout, self.delegate_calls, self.sources)
            raw = [
                (work / f"out{i}.bin").read_bytes() if (work / f"out{i}.bin").is_file() else b""
                for i in range(len(self.outputs))
            ]
        ok = _OK_LINE.search(result.uart_text)
        if ok is None:
            raise RuntimeFailure(
                f"firmware on {self.where} exited 0 without its result line (UART: {result.uart_text.strip()[-200:]!r})"
            )
        # the painted high-water mark against the call-graph analysis of this very ELF (stack.json beside it)
        check_measured(elf, int(ok.group(2)), self.where)
        counts = result.instructions
        regions = counts.regions if counts is not None else {}
        per_op = [
            OpCount(
                index=c["index"],
                op=c["op"],
                instructions=regions[c["index"] + 1].instructions if c["index"] + 1 in regions else None,
                source=self.sources.get(c["index"]),
            )
            for c in self.kernel_calls
        ]
        return raw, dict(
            seconds=result.seconds,
            per_op=per_op,
            uart_text=result.uart_text,
            instructions_per_inference=regions[0].instructions if 0 in regions else None,
            total_instructions=counts.total if counts is not None else None,
            instructions_per_load=regions[LOAD_TAG].instructions if LOAD_TAG in regions else None,
            ticks=int(ok.group(1)),
            stack_used=int(ok.group(2)),
            meta_pool_bytes=int(ok.group(3)),
            npu_measured=npu_cycles(result.uart_text, self.delegate_calls),
        )

    def record(self, run) -> None:
        from mcu_export.firmware.flow import record_run

        if self.out_dir is not None:
            record_run(self.out_dir, self.board, run)
