"""Run the int8 kernels of cmsis_nn_kernels/ from Python: on the host through ctypes and on QEMU boards through
one firmware per board that reads a batch of cases from a semihosting file. A suite is a set of kernels with its
C dispatcher (`run_case`); the host library and the firmware both drive it through one batch loop, so a case is
encoded once:

    lib = CONV_FC.build_host_library(tmp)              # or elf = CONV_FC.build_firmware(board, tmp)
    results = host_run(lib, cases)                     # or results, run = CONV_FC.qemu_run(board, elf, tmp, cases)

CONV_FC holds convolution / depthwise / fully-connected (cases from conv_case / dw_case / fc_case): its
dispatcher hands each kernel exactly its _get_buffer_size bytes of scratch (NULL when that is 0) and reports a
status of -101 if the kernel wrote past them. MISC holds elementwise, pooling, softmax, LUT, pad, transpose
(cases from int8_misc_cases). Batch file: per case int32 words [op, out_len, nparams, params..., data_len] then
data padded to 4; result file: per case [status, out_len] then out_len bytes padded to 4.
"""

from __future__ import annotations

import ctypes
import dataclasses
import struct
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

import numpy as np

from int8_runner_c import BATCH_LOOP_C, CONV_FC_DISPATCH_C, FIRMWARE_MAIN_C, MISC_DISPATCH_C, RUNNER_HEAD_C

ROOT = Path(__file__).resolve().parents[2]
KERNEL_DIR = ROOT / "cmsis_nn_kernels"
INCLUDE_DIR = KERNEL_DIR / "include"
# Op numbers are per suite; the names are unique across suites.
OPS = {
    "conv_wrapper": 1,
    "conv": 2,
    "conv_1x1_fast": 3,
    "conv_1x1": 4,
    "conv_1xn": 5,
    "dw_wrapper": 6,
    "dw": 7,
    "dw_3x3": 8,
    "dw_opt": 9,
    "fc": 10,
    "fc_per_channel": 11,
    "add": 1,
    "mul": 2,
    "max_pool": 3,
    "avg_pool": 4,
    "softmax": 5,
    "lut": 6,
    "pad": 7,
    "transpose": 8,
    "batch_matmul": 1,  # the BATCH_MATMUL suite (tests/test_int8_batch_matmul_isa.py)
}
STATUS_SCRATCH_OVERRUN, STATUS_SCRATCH_TOO_BIG = -101, -100  # the dispatchers' own statuses (int8_runner_c)


@dataclasses.dataclass
class Case:
    op: str
    params: Sequence[int]
    data: bytes
    out_shape: Union[int, tuple]  # an int: a flat output of that many bytes

    @property
    def out_len(self) -> int:
        return int(np.prod(self.out_shape))

    def encode(self) -> bytes:
        head = struct.pack(
            f"<3i{len(self.params)}ii",
            OPS[self.op],
            self.out_len,
            len(self.params),
            *[int(p) for p in self.params],
            len(self.data),
        )
        return head + self.data + b"\0" * (-len(self.data) % 4)


@dataclasses.dataclass
class Result:
    status: int
    out: np.ndarray


def _i32(a) -> bytes:
    return np.asarray(a, dtype=np.int32).tobytes()


def conv_case(
    op: str,
    x: np.ndarray,
    w: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    input_offset: int,
    output_offset: int,
    multipliers,
    shifts,
    stride=(1, 1),
    padding=(0, 0),
    dilation=(1, 1),
    activation=(-128, 127),
    output_hw,
    ch_mult: int = 1,
) -> Case:
    """A conv ("conv*") or depthwise ("dw*") case; w is [C_out, KH, KW, Ci] or [1, KH, KW, C_out]."""
    n, h, wd, c = x.shape
    oc = w.shape[3] if op.startswith("dw") else w.shape[0]
    params = [
        n,
        h,
        wd,
        c,
        oc,
        w.shape[1],
        w.shape[2],
        w.shape[3],
        *stride,
        *padding,
        *dilation,
        *output_hw,
        input_offset,
        output_offset,
        *activation,
        ch_mult,
        bias is not None,
    ]
    b = bias if bias is not None else np.zeros(oc)
    data = _i32(b) + _i32(multipliers) + _i32(shifts) + x.astype(np.int8).tobytes() + w.astype(np.int8).tobytes()
    return Case(op, params, data, (n, *output_hw, oc))


def fc_case(
    x: np.ndarray,
    w: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    input_offset: int,
    filter_offset: int,
    output_offset: int,
    multiplier: int,
    shift: int,
    activation=(-128, 127),
) -> Case:
    n, depth = x.shape
    oc = w.shape[0]
    params = [
        n,
        depth,
        oc,
        input_offset,
        filter_offset,
        output_offset,
        multiplier,
        shift,
        *activation,
        bias is not None,
    ]
    b = bias if bias is not None else np.zeros(oc)
    return Case("fc", params, _i32(b) + x.astype(np.int8).tobytes() + w.astype(np.int8).tobytes(), (n, oc))


def fc_per_channel_case(
    x: np.ndarray,
    w: np.ndarray,
    bias: Optional[np.ndarray],
    *,
    input_offset: int,
    filter_offset: int,
    output_offset: int,
    multipliers,
    shifts,
    activation=(-128, 127),
) -> Case:
    n, depth = x.shape
    oc = w.shape[0]
    params = [n, depth, oc, input_offset, filter_offset, output_offset, *activation, bias is not None]
    b = bias if bias is not None else np.zeros(oc)
    data = _i32(b) + _i32(multipliers) + _i32(shifts) + x.astype(np.int8).tobytes() + w.astype(np.int8).tobytes()
    return Case("fc_per_channel", params, data, (n, oc))


def encode(cases: Sequence[Case]) -> bytes:
    return b"".join(c.encode() for c in cases)


def decode(blob: bytes, cases: Sequence[Case]) -> List[Result]:
    results, pos = [], 0
    for case in cases:
        status, n = struct.unpack_from("<2i", blob, pos)
        out = np.frombuffer(blob, dtype=np.int8, count=n, offset=pos + 8).copy().reshape(case.out_shape)
        results.append(Result(status, out))
        pos += 8 + n + (-n % 4)
    return results


def _results_size(cases: Sequence[Case]) -> int:
    return sum(8 + c.out_len + 3 for c in cases)


def host_run(lib: ctypes.CDLL, cases: Sequence[Case]) -> List[Result]:
    blob = encode(cases)
    cap = _results_size(cases)
    out = ctypes.create_string_buffer(cap)
    written = lib.mx_int8_batch_run(blob, len(blob), out, cap)
    assert written >= 0, "result buffer too small"
    return decode(out.raw[:written], cases)


# cmsis_nn_dims, cmsis_nn_tile and the conv / depthwise params of arm_nn_types.h, for the _get_buffer_size
# functions called through ctypes.
class Dims(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int32), ("h", ctypes.c_int32), ("w", ctypes.c_int32), ("c", ctypes.c_int32)]


class Tile(ctypes.Structure):
    _fields_ = [("w", ctypes.c_int32), ("h", ctypes.c_int32)]


class ConvParams(ctypes.Structure):
    _fields_ = [
        ("input_offset", ctypes.c_int32),
        ("output_offset", ctypes.c_int32),
        ("stride", Tile),
        ("padding", Tile),
        ("dilation", Tile),
        ("act_min", ctypes.c_int32),
        ("act_max", ctypes.c_int32),
    ]


class DwParams(ctypes.Structure):
    _fields_ = [
        ("input_offset", ctypes.c_int32),
        ("output_offset", ctypes.c_int32),
        ("ch_mult", ctypes.c_int32),
        ("stride", Tile),
        ("padding", Tile),
        ("dilation", Tile),
        ("act_min", ctypes.c_int32),
        ("act_max", ctypes.c_int32),
    ]


def scalar_variant(board_name: str = "mps2-an505"):
    """The board with its CPU's DSP extension switched off (-mcpu=...+nodsp): the plain C paths on QEMU."""
    from mcu_export.boards import load_board

    board = load_board(board_name)
    flags = tuple(f + "+nodsp" if f.startswith("-mcpu=") else f for f in board.compiler.cflags)
    return dataclasses.replace(
        board, cpu=dataclasses.replace(board.cpu, dsp=False), compiler=dataclasses.replace(board.compiler, cflags=flags)
    )


@dataclasses.dataclass(frozen=True)
class Suite:
    """A set of kernels, the C dispatcher that runs their cases, and the firmware's batch buffer sizes."""

    name: str
    kernels: Sequence[str]
    dispatch_c: str
    in_cap: int
    out_cap: int

    def kernel_sources(self) -> List[Path]:
        return [KERNEL_DIR / f"{name}.c" for name in self.kernels]

    def runner_c(self) -> str:
        return RUNNER_HEAD_C + self.dispatch_c + BATCH_LOOP_C

    def build_host_library(self, out_dir: Path, cc: str = "cc") -> ctypes.CDLL:
        """Kernels + dispatcher as one shared library (the host compiler: the plain C paths)."""
        out_dir = Path(out_dir)
        runner = out_dir / f"{self.name}_runner.c"
        runner.write_text(self.runner_c())
        lib = out_dir / f"libmx_int8_{self.name}.so"
        cmd = [
            cc,
            "-std=c11",
            "-shared",
            "-fPIC",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{INCLUDE_DIR}",
            *map(str, self.kernel_sources()),
            str(runner),
            "-o",
            str(lib),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"host build of the {self.name} kernels failed:\n{proc.stderr}")
        dll = ctypes.CDLL(str(lib))
        dll.mx_int8_batch_run.restype = ctypes.c_int32
        dll.mx_int8_batch_run.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
        return dll

    def firmware_sources(self, icount: bool = False) -> Dict[str, object]:
        """icount=True wraps each kernel call in the instruction-count markers (tag = op number)."""
        # the model firmware's layout (model_project.py), so the kernels take the same flags (compile_flags.toml)
        sources: Dict[str, object] = {f"cmsis_nn/src/{p.name}": p for p in self.kernel_sources()}
        for header in INCLUDE_DIR.rglob("*.h"):  # with Internal/
            sources[f"cmsis_nn/include/{header.relative_to(INCLUDE_DIR).as_posix()}"] = header
        markers = (
            '#include "mx_platform.h"\n#define MX_ICOUNT_BEGIN(tag) mx_icount_begin(tag)\n'
            "#define MX_ICOUNT_END(tag) mx_icount_end(tag)\n"
        )
        sources[f"app/{self.name}_runner.c"] = (markers if icount else "") + self.runner_c()
        sources["app/main.c"] = FIRMWARE_MAIN_C.replace("IN_CAP", str(self.in_cap)).replace(
            "OUT_CAP", str(self.out_cap)
        )
        return sources

    def build_firmware(self, board, out_dir: Path, icount: bool = False) -> Path:
        """One firmware per board (a Board, or a board name) with every kernel of the suite and the dispatcher."""
        from mcu_export.firmware.build import build_project, render_project

        project = render_project(board, out_dir, self.firmware_sources(icount), include_dirs=["cmsis_nn/include"])
        return build_project(project).elf

    def qemu_run(self, board, elf: Path, work_dir: Path, cases: Sequence[Case], timeout: float = 60.0, plugin=None):
        """Runs one batch on QEMU: (results, the QEMU run)."""
        from mcu_export.firmware.qemu import run_qemu

        blob = encode(cases)
        assert len(blob) <= self.in_cap, f"batch of {len(blob)} bytes exceeds the firmware's {self.in_cap}"
        assert _results_size(cases) <= self.out_cap, "batch results exceed the firmware's buffer"
        work_dir = Path(work_dir)
        work_dir.mkdir(parents=True, exist_ok=True)
        (work_dir / "cases.bin").write_bytes(blob)
        (work_dir / "results.bin").unlink(missing_ok=True)
        result = run_qemu(board, elf, timeout=timeout, semihosting_dir=work_dir, plugin=plugin)
        assert result.exit_code == 0, f"firmware exited with {result.exit_code}: {result.uart_text}"
        return decode((work_dir / "results.bin").read_bytes(), cases), result


CONV_FC = Suite(
    "conv_fc",
    [
        "arm_nn_mat_mult_nt_t_s8",
        "arm_nn_mat_mult_nt_t_s8_init",
        "arm_nn_vec_mat_mult_t_s8",
        "arm_nn_dw_conv_pixel_s8",
        "arm_nn_dw_conv_group_s8",
        "arm_nn_dw_conv_ch_mult1_s8",
        "arm_nn_dw_conv_ch_mult1_runs_s8",
        "arm_nn_dw_conv_ch_mult1_pixels_s8",
        "arm_convolve_s8",
        "arm_convolve_1x1_s8_fast",
        "arm_convolve_1x1_s8",
        "arm_convolve_1_x_n_s8",
        "arm_convolve_wrapper_s8",
        "arm_convolve_get_buffer_sizes_s8",
        "arm_depthwise_conv_s8",
        "arm_depthwise_conv_3x3_s8",
        "arm_depthwise_conv_s8_opt",
        "arm_depthwise_conv_wrapper_s8",
        "arm_depthwise_conv_get_buffer_sizes_s8",
        "arm_fully_connected_s8",
        "arm_vector_sum_s8",
        "arm_fully_connected_get_buffer_sizes_s8",
        "arm_nn_vec_mat_mult_t_per_ch_s8",
        "arm_fully_connected_per_channel_s8",
    ],
    CONV_FC_DISPATCH_C,
    in_cap=192 * 1024,
    out_cap=64 * 1024,
)

MISC = Suite(
    "misc",
    [
        "arm_elementwise_add_s8",
        "arm_elementwise_mul_s8",
        "arm_max_pool_s8",
        "arm_avgpool_s8",
        "arm_avgpool_s8_get_buffer_size",
        "arm_softmax_s8",
        "arm_quantized_activation_s8",
        "arm_pad_s8",
        "arm_transpose_s8",
    ],
    MISC_DISPATCH_C,
    in_cap=160 * 1024,
    out_cap=96 * 1024,
)
