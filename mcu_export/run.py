"""`mcu-export run`: feed .npy inputs to a program on a board and collect its outputs from the C runtime."""
from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from mcu_export import atomic, dtypes
from mcu_export.errors import UsageError
from mcu_export.pte.program import Program, Tensor

BOARDS = ("host",)


def resolve_program_path(path: str) -> Path:
    p = Path(path)
    if p.is_dir():
        p = p / "model.pte"
    if not p.is_file():
        raise UsageError(f"program not found: {p}")
    return p


def check_board(board: str) -> None:
    if board not in BOARDS:
        raise UsageError(f"unknown board '{board}' (valid: {', '.join(BOARDS)})")


def load_input(path: str, index: int) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"input {index}: file not found: {p}")
    try:
        return np.load(p, allow_pickle=False)
    except Exception as exc:
        raise UsageError(f"input {index}: {p} is not a readable .npy file ({type(exc).__name__})") from exc


def check_inputs(program: Program, arrays: Sequence[np.ndarray], names: Sequence[str]) -> None:
    method = program.method("forward")
    expected = [method.values[i] for i in method.inputs]
    if len(arrays) != len(expected):
        raise UsageError(f"the model takes {len(expected)} input(s), got {len(arrays)} (one --input per model input)")
    for i, (array, tensor, name) in enumerate(zip(arrays, expected, names)):
        if not isinstance(tensor, Tensor):
            raise UsageError(f"input {i}: the model's input is not a tensor ({type(tensor).__name__})")
        want_shape, want_dtype = tuple(tensor.sizes), dtypes.name(tensor.scalar_type)
        if tuple(array.shape) != want_shape or array.dtype.name != want_dtype:
            raise UsageError(f"input {i} ({name}): got {array.dtype.name}{list(array.shape)}, "
                             f"the model expects {want_dtype}{list(want_shape)}")


def run_program_file(pte_path: Path, arrays: Sequence[np.ndarray], board: str = "host") -> List[np.ndarray]:
    from mcu_export.host_runtime import run_pte

    check_board(board)
    return run_pte(pte_path, [np.ascontiguousarray(a) for a in arrays])


def run_program_bytes(pte: bytes, arrays: Sequence[np.ndarray], board: str = "host") -> List[np.ndarray]:
    from mcu_export.pte.reader import read_program

    check_inputs(read_program(pte), arrays, [f"argument {i}" for i in range(len(arrays))])
    with tempfile.TemporaryDirectory(prefix="mcu-export-run-") as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(pte)
        return run_program_file(path, arrays, board)


def run_command(program_path: str, *, board: str, input_paths: Sequence[str], output_path: Optional[str]) -> int:
    from mcu_export.pte.reader import read_program_file

    check_board(board)
    pte = resolve_program_path(program_path)
    program = read_program_file(pte)
    arrays = [load_input(p, i) for i, p in enumerate(input_paths)]
    check_inputs(program, arrays, input_paths)
    outputs = run_program_file(pte, arrays, board)
    for i, out in enumerate(outputs):
        print(f"output_{i}: {out.dtype.name}{list(out.shape)}  min {out.min():.6g}  max {out.max():.6g}"
              if out.size else f"output_{i}: {out.dtype.name}{list(out.shape)}")
    if output_path:
        buf = io.BytesIO()
        np.savez(buf, **{f"output_{i}": o for i, o in enumerate(outputs)})
        atomic.write_bytes(output_path, buf.getvalue())
        print(f"wrote {output_path}")
    return 0
