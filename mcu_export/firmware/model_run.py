"""Run model firmware on a simulator: inputs and outputs travel as semihosting files, so one build serves
any number of runs; the QEMU instruction-count plugin gives instructions per inference and per op.

The firmware's side of the contract is codegen/model/main.c.j2: it reads in<i>.bin, writes out<i>.bin,
prints one `mx: ok|error|io error ...` line and exits 0 (ok), 1 (runtime error) or 2 (I/O error);
a hard fault prints the registers and ` op=<instruction>` and exits 253.
"""
from __future__ import annotations

import json
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

import numpy as np

from mcu_export import atomic, dtypes
from mcu_export.boards import Board, load_board
from mcu_export.errors import RuntimeFailure, UsageError
from mcu_export.firmware.build import BuildResult
from mcu_export.firmware.model_project import MODEL_DIR, project_of
from mcu_export.firmware.results import FirmwareFault, RunResult, check

SIMULATORS = ("qemu", "fvp")
EXIT_RUNTIME_ERROR = 1
EXIT_IO_ERROR = 2
_OK_LINE = re.compile(r"^mx: ok ticks=(\d+) stack=(\d+) pool=(\d+)/(\d+)\s*$", re.M)
_ERROR_LINE = re.compile(r"^mx: (?:io )?error.*$", re.M)
_FAULT_OP = re.compile(r"mx: hard fault.* op=(\d+)")
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
    return f"{line[:m.end()]} {error_text(int(m.group(1), 16))}{line[m.end():]}".rstrip()


@dataclass
class OpCount:
    index: int             # instruction index in the method's chain
    op: str                # qualified operator name, e.g. aten::convolution.out
    instructions: Optional[int]


@dataclass
class ModelRun:
    outputs: List[np.ndarray]
    instructions_per_inference: Optional[int]   # guest instructions inside mx_method_execute (QEMU plugin)
    per_op: List[OpCount]
    stack_used: int                             # bytes, high-water mark of the painted stack
    ticks: int                                  # SysTick ticks of the inference (deterministic under -icount)
    uart_text: str
    seconds: float                              # wall time of the simulator run
    meta_pool_bytes: int = 0                    # metadata pool the runtime needed (== the one generated)
    board: str = ""
    sim: str = "qemu"
    total_instructions: Optional[int] = field(default=None)   # whole run: boot, I/O and inference


def _manifest(project: Path) -> Dict:
    return json.loads((project / MODEL_DIR / "model.json").read_text())


def _check_inputs(arrays: Sequence[np.ndarray], specs: Sequence[Dict]) -> None:
    if len(arrays) != len(specs):
        raise UsageError(f"the model takes {len(specs)} input(s), got {len(arrays)}")
    for i, (a, s) in enumerate(zip(arrays, specs)):
        want = dtypes.numpy_dtype(s["dtype"])
        if tuple(a.shape) != tuple(s["shape"]) or a.dtype != want:
            raise UsageError(f"input {i}: got {a.dtype.name}{list(a.shape)}, the model expects "
                             f"{np.dtype(want).name}{list(s['shape'])}")


def _to_memory_order(a: np.ndarray, order: Sequence[int]) -> bytes:
    """Raw bytes in the tensor's dim order (e.g. NHWC for 0,2,3,1), as the runtime stores it."""
    if order and list(order) != sorted(order):
        a = np.transpose(a, order)
    return np.ascontiguousarray(a).tobytes()


def _from_memory_order(data: bytes, s: Dict) -> np.ndarray:
    shape, order = tuple(s["shape"]), list(s["dim_order"])
    stored = tuple(shape[d] for d in order) if order else shape
    a = np.frombuffer(data, dtype=dtypes.numpy_dtype(s["dtype"])).reshape(stored)
    if order and order != sorted(order):
        a = np.transpose(a, np.argsort(order))
    return np.ascontiguousarray(a)


def _op_name(manifest: Dict, instruction: int) -> str:
    for call in manifest["kernel_calls"]:
        if call["index"] == instruction:
            return call["op"]
    return "?"


def _simulate(board: Board, elf: Path, sim: str, workdir: Path, timeout: float, icount: bool) -> RunResult:
    if sim == "qemu":
        from mcu_export.firmware.qemu import run_qemu

        return run_qemu(board, elf, timeout=timeout, semihosting_dir=workdir, icount=True,
                        plugin=True if icount else None, check_errors=False)
    from mcu_export.firmware.fvp import run_fvp

    return run_fvp(board, elf, timeout=timeout, semihosting_dir=workdir, check_errors=False)


def _raise_for(result: RunResult, board: Board, sim: str, elf: Path, manifest: Dict, timeout: float) -> None:
    """Timeouts and faults first (results.check), naming the op a fault hit; then the firmware's own errors."""
    symbolize = None
    if sim == "qemu":
        from mcu_export.firmware.qemu import _symbolizer   # PC → function name from the ELF

        symbolize = _symbolizer(elf)
    try:
        check(result, where=f"{board.name} ({sim})", timeout=timeout, symbolize=symbolize)
    except FirmwareFault as fault:
        match = _FAULT_OP.search(result.uart_text)
        if match is None:
            raise
        index = int(match.group(1))
        raise FirmwareFault(f"{fault} while running instruction {index} ({_op_name(manifest, index)})",
                            fault.registers) from None
    if result.exit_code == 0:
        return
    lines = _ERROR_LINE.findall(result.uart_text)
    said = decode_error_line(lines[-1]) if lines else f"no error line (last UART text: {result.uart_text.strip()[-200:]!r})"
    kinds: Dict[Optional[int], str] = {EXIT_RUNTIME_ERROR: "runtime error", EXIT_IO_ERROR: "I/O error"}
    kind = kinds.get(result.exit_code, f"exit code {result.exit_code}")
    raise RuntimeFailure(f"firmware on {board.name} ({sim}) failed with a {kind}: {said}")


def run_model_firmware(build: BuildResult, board: Union[Board, str], inputs: Sequence[np.ndarray], *,
                       sim: str = "qemu", timeout: float = 60.0, icount: bool = True) -> ModelRun:
    """Run a model firmware once on `sim` with `inputs` (numpy arrays in the model's logical layout).
    Raises FirmwareTimeout, FirmwareFault (naming the running op), or RuntimeFailure (the UART's error line)."""
    board = load_board(board) if isinstance(board, str) else board
    if sim not in SIMULATORS:
        raise UsageError(f"unknown simulator '{sim}' (choose from: {', '.join(SIMULATORS)})")
    elf = Path(build.elf)
    project = project_of(build)
    manifest = _manifest(project)
    arrays = [np.asarray(a) for a in inputs]
    _check_inputs(arrays, manifest["inputs"])
    with tempfile.TemporaryDirectory(prefix="mx-model-run-") as tmp:
        work = Path(tmp)
        for i, (a, s) in enumerate(zip(arrays, manifest["inputs"])):
            (work / f"in{i}.bin").write_bytes(_to_memory_order(a, s["dim_order"]))
        result = _simulate(board, elf, sim, work, timeout, icount and sim == "qemu")
        _raise_for(result, board, sim, elf, manifest, timeout)
        outputs = []
        for i, s in enumerate(manifest["outputs"]):
            path = work / f"out{i}.bin"
            data = path.read_bytes() if path.is_file() else b""
            if len(data) != s["nbytes"]:
                raise RuntimeFailure(f"firmware on {board.name} wrote {len(data)} bytes to out{i}.bin, "
                                     f"the output has {s['nbytes']}")
            outputs.append(_from_memory_order(data, s))
    ok = _OK_LINE.search(result.uart_text)
    if ok is None:
        raise RuntimeFailure(f"firmware on {board.name} exited 0 without its result line "
                             f"(UART: {result.uart_text.strip()[-200:]!r})")
    counts = result.instructions
    regions = counts.regions if counts is not None else {}
    per_op = [OpCount(index=c["index"], op=c["op"],
                      instructions=regions[c["index"] + 1].instructions if c["index"] + 1 in regions else None)
              for c in manifest["kernel_calls"]]
    return ModelRun(
        outputs=outputs,
        instructions_per_inference=regions[0].instructions if 0 in regions else None,
        per_op=per_op, stack_used=int(ok.group(2)), ticks=int(ok.group(1)), uart_text=result.uart_text,
        seconds=result.seconds, meta_pool_bytes=int(ok.group(3)), board=board.name, sim=sim,
        total_instructions=counts.total if counts is not None else None)


def run_json(run: ModelRun) -> Dict:
    return {
        "board": run.board,
        "sim": run.sim,
        "instructions_per_inference": run.instructions_per_inference,
        "total_instructions": run.total_instructions,
        "per_op": [asdict(o) for o in run.per_op],
        "ticks": run.ticks,
        "stack_used_bytes": run.stack_used,
        "meta_pool_bytes": run.meta_pool_bytes,
        "seconds": round(run.seconds, 3),
        "outputs": [{"shape": list(o.shape), "dtype": o.dtype.name} for o in run.outputs],
    }


def write_run_json(path: Union[str, Path], run: ModelRun) -> Path:
    text = json.dumps(run_json(run), indent=2) + "\n"
    atomic.write_bytes(path, text.encode())
    return Path(path)


def format_per_op_table(run: ModelRun) -> str:
    """One row per kernel call: index, op, instructions, share of the inference."""
    total = run.instructions_per_inference
    rows = [("#", "op", "instructions", "share")]
    for o in run.per_op:
        count = "-" if o.instructions is None else f"{o.instructions:,}"
        share = f"{100.0 * o.instructions / total:.1f}%" if o.instructions is not None and total else "-"
        rows.append((str(o.index), o.op, count, share))
    rows.append(("", "total (inference)", "-" if total is None else f"{total:,}", "100.0%" if total else "-"))
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    lines = []
    for r in rows:
        lines.append(f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}")
    return "\n".join(lines)
