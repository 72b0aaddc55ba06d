"""Our Ethos-U command-stream executor (fvp/ethosu_sim, mx_npu_execute) built with the host cc and driven through
ctypes: a Vela blob's command stream run against its regions (0 a copy of weight_data, 1 the scratch arena with
the inputs and outputs at their offsets, 2 the fast scratch), outputs read back as numpy arrays.

The library is the product's (mcu_export.ethosu.simulator.build_library, cached), with the decoder's entry points
kept as well for the tests that call them, and an ASan/UBSan variant for the fuzz tests.
"""

from __future__ import annotations

import ctypes
import functools
import re
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import pytest

from mcu_export.ethosu import simulator

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "fvp" / "ethosu_sim"
# The product keeps mx_npu_execute*; the tests also call the decoder, the payload reader and the dump directly.
ENTRY_POINTS = (*simulator.ENTRY_POINTS, "mx_npu_decode", "mx_npu_op_dump", "mx_npu_payload_find")
SANITIZE = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g")
REGIONS = 8


def build(sanitize: bool = False) -> Path:
    """The simulator as a shared library with every entry point the tests call (with ASan/UBSan when `sanitize`)."""
    return simulator.build_library(extra_flags=SANITIZE if sanitize else (), entry_points=ENTRY_POINTS)


def sanitized_build() -> Tuple[Path, str]:
    """The ASan/UBSan library and the host cc's libasan (for LD_PRELOAD in a child Python); skips without one."""
    asan = subprocess.run(["cc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not Path(asan).is_file():
        pytest.skip("no libasan for the host cc")
    return build(sanitize=True), asan


def statuses() -> Dict[int, str]:
    text = (SIM / "npu_errors.def").read_text()
    return {int(m[2]): m[1] for m in re.finditer(r"^MX_NPU_STATUS\((\w+),\s*(\d+),", text, re.M)}


Error = simulator.ErrorStruct
Region = simulator.RegionStruct


class Payload(ctypes.Structure):
    _fields_ = [
        ("stream_word", ctypes.c_size_t),
        ("stream_words", ctypes.c_size_t),
        ("config", ctypes.c_uint32 * 2),
        ("has_config", ctypes.c_int),
    ]


class ExecError(Exception):
    def __init__(self, status: str, err: Error):
        self.status, self.word_index, self.opcode = status, err.word_index, err.opcode
        self.message = err.message.decode()
        super().__init__(f"{status}: {self.message}")


@dataclass
class Run:
    outputs: List[np.ndarray]
    seconds: float  # mx_npu_execute alone


class Executor:
    def __init__(self, lib_path: Path):
        lib = self.lib = ctypes.CDLL(str(lib_path))
        lib.mx_npu_execute.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(Region), ctypes.POINTER(Error)]
        lib.mx_npu_execute.restype = ctypes.c_int
        lib.mx_npu_execute_config.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(Region), ctypes.c_uint32,
                                              ctypes.POINTER(Error)]  # fmt: skip
        lib.mx_npu_execute_config.restype = ctypes.c_int
        lib.mx_npu_payload_find.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Payload),
                                            ctypes.POINTER(Error)]  # fmt: skip
        self.names = statuses()

    def payload(self, cmd_data: bytes) -> Tuple[List[int], int]:
        """The command words of a driver payload and its OPTIMIZER_CONFIG word (0 without), by mx_npu_payload_find."""
        p, err = Payload(), Error()
        rc = self.lib.mx_npu_payload_find(cmd_data, len(cmd_data), ctypes.byref(p), ctypes.byref(err))
        if rc != 0:
            raise ExecError(self.names[err.status], err)
        words = list(struct.unpack_from(f"<{p.stream_words}I", cmd_data, 4 * p.stream_word))
        return words, (p.config[0] if p.has_config else 0)

    def stream(self, cmd_data: bytes) -> List[int]:
        return self.payload(cmd_data)[0]

    def execute(
        self, words: Sequence[int], regions: Sequence[Optional[bytearray]], config: Optional[int] = None
    ) -> float:
        """Runs the words against the regions (bytearrays, modified in place); ExecError on a refusal. With `config`
        (the payload's OPTIMIZER_CONFIG word) through mx_npu_execute_config, else mx_npu_execute."""
        arr = (ctypes.c_uint32 * max(len(words), 1))(*words)
        table = (Region * REGIONS)()
        keep = []
        for i, buf in enumerate(list(regions)[:REGIONS]):
            if buf is None:
                continue
            c = (ctypes.c_uint8 * max(len(buf), 1)).from_buffer(buf) if len(buf) else (ctypes.c_uint8 * 1)()
            keep.append(c)
            table[i] = Region(ctypes.addressof(c), len(buf))
        err = Error()
        t = time.perf_counter()
        if config is None:
            rc = self.lib.mx_npu_execute(arr, len(words), table, ctypes.byref(err))
        else:
            rc = self.lib.mx_npu_execute_config(arr, len(words), table, config, ctypes.byref(err))
        seconds = time.perf_counter() - t
        del keep
        if rc != 0:
            assert rc == -err.status and err.message, (rc, err.status)
            raise ExecError(self.names.get(err.status, str(err.status)), err)
        return seconds

    def run_blob(self, blob, inputs: Sequence[np.ndarray], fast_scratch_size: int = 0,
                 words: Optional[Sequence[int]] = None, config: Optional[int] = -1) -> Run:  # fmt: skip
        """A VelaBlob's command stream (or `words`) on fresh regions holding `inputs`; the outputs as int8/int32 arrays
        of the records' shapes (trailing dimensions of the 6-D shapes). config -1: the payload's OPTIMIZER_CONFIG
        word (mx_npu_execute_config); None: mx_npu_execute."""
        regions: List[Optional[bytearray]] = [None] * REGIONS
        regions[0] = bytearray(blob.weight_data)
        regions[1] = bytearray(blob.scratch_size)
        regions[2] = bytearray(max(fast_scratch_size, 0))
        for record, value in zip(blob.inputs, inputs):
            data = np.ascontiguousarray(value).astype(_dtype(record.elem_size)).tobytes()
            assert len(data) == int(np.prod(record.shape)) * record.elem_size, (record, value.shape)
            regions[record.region][record.offset : record.offset + len(data)] = data
        stream, payload_config = self.payload(blob.cmd_data)
        seconds = self.execute(stream if words is None else words, regions, payload_config if config == -1 else config)
        outputs = []
        for record in blob.outputs:
            n = int(np.prod(record.shape)) * record.elem_size
            raw = bytes(regions[record.region][record.offset : record.offset + n])
            outputs.append(np.frombuffer(raw, _dtype(record.elem_size)).reshape(_trim(record.shape)))
        return Run(outputs, seconds)


def _dtype(elem_size: int):
    return {1: np.int8, 2: np.int16, 4: np.int32}[elem_size]


def _trim(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    shape = tuple(shape)
    while len(shape) > 4 and shape[0] == 1:
        shape = shape[1:]
    return shape


@functools.lru_cache(maxsize=None)
def compiled(graph: bytes, accelerator: str):
    """Vela on a serialized TOSA graph: (VelaBlob, fast scratch size)."""
    from mcu_export.ethosu.vela import compile_tosa

    result = compile_tosa(graph, accelerator)
    return result.blob, result.fast_scratch_size


def reference(graph: bytes, inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    """What tosa_reference_model computes on `graph` (its warnings silenced)."""
    import warnings

    from mcu_export.ethosu.tosa import run_reference

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_reference(graph, list(inputs))
