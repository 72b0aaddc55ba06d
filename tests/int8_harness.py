"""Run the int8 convolution / depthwise / fully-connected kernels of cmsis_nn_kernels/ from Python: on the
host through ctypes and on QEMU boards through one firmware per board that reads a batch of cases from a
semihosting file. Both drive the same C dispatcher (RUNNER_C), so a case is encoded once:

    lib = build_host_library(tmp)                      # or elf = build_firmware(board, tmp)
    results = host_run(lib, cases)                     # or qemu_run(board, elf, tmp, cases)

Cases come from conv_case / dw_case / fc_case (numpy arrays in, the kernel's parameters beside them).
The dispatcher hands each kernel exactly its _get_buffer_size bytes of scratch (NULL when that is 0) and
reports a status of -101 if the kernel wrote past them. Batch file: per case int32 words
[op, out_len, nparams, params..., data_len] then data padded to 4; result file: per case [status, out_len]
then out_len bytes padded to 4.
"""
from __future__ import annotations

import ctypes
import dataclasses
import struct
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KERNEL_DIR = ROOT / "cmsis_nn_kernels"
INCLUDE_DIR = KERNEL_DIR / "include"
KERNELS = ["arm_nn_mat_mult_nt_t_s8", "arm_nn_vec_mat_mult_t_s8", "arm_nn_dw_conv_pixel_s8",
           "arm_convolve_s8", "arm_convolve_1x1_s8_fast", "arm_convolve_1x1_s8", "arm_convolve_1_x_n_s8",
           "arm_convolve_wrapper_s8", "arm_convolve_get_buffer_sizes_s8",
           "arm_depthwise_conv_s8", "arm_depthwise_conv_3x3_s8", "arm_depthwise_conv_s8_opt",
           "arm_depthwise_conv_wrapper_s8", "arm_depthwise_conv_get_buffer_sizes_s8",
           "arm_fully_connected_s8", "arm_vector_sum_s8", "arm_fully_connected_get_buffer_sizes_s8"]
OPS = {"conv_wrapper": 1, "conv": 2, "conv_1x1_fast": 3, "conv_1x1": 4, "conv_1xn": 5,
       "dw_wrapper": 6, "dw": 7, "dw_3x3": 8, "dw_opt": 9, "fc": 10}
IN_CAP, OUT_CAP, SCRATCH = 192 * 1024, 64 * 1024, 48 * 1024
STATUS_SCRATCH_OVERRUN, STATUS_SCRATCH_TOO_BIG = -101, -100

RUNNER_C = r"""
#include <stdint.h>
#include <string.h>
#include "arm_nnfunctions.h"

#ifndef MX_ICOUNT_BEGIN
#define MX_ICOUNT_BEGIN(tag)
#define MX_ICOUNT_END(tag)
#endif

#define GUARD 64
static int8_t scratch[SCRATCH + GUARD] __attribute__((aligned(16)));

static int32_t word(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

typedef arm_cmsis_nn_status (*conv_fn)(const cmsis_nn_context *, const cmsis_nn_conv_params *,
    const cmsis_nn_per_channel_quant_params *, const cmsis_nn_dims *, const int8_t *, const cmsis_nn_dims *,
    const int8_t *, const cmsis_nn_dims *, const int32_t *, const cmsis_nn_dims *, int8_t *);
typedef arm_cmsis_nn_status (*dw_fn)(const cmsis_nn_context *, const cmsis_nn_dw_conv_params *,
    const cmsis_nn_per_channel_quant_params *, const cmsis_nn_dims *, const int8_t *, const cmsis_nn_dims *,
    const int8_t *, const cmsis_nn_dims *, const int32_t *, const cmsis_nn_dims *, int8_t *);

/* q: n h w c  oc kh kw kc  sh sw ph pw  dh dw oh ow  in_off out_off act_min act_max  ch_mult has_bias
 * data: bias[oc] mult[oc] shift[oc] (int32) | input | filter */
static int32_t run_conv(int32_t op, const int32_t *q, const uint8_t *d, int8_t *out, int32_t *size)
{
    const int32_t oc = q[4];
    int32_t *bias = (int32_t *)d, *mult = bias + oc, *shift = mult + oc;
    const int8_t *input = (const int8_t *)(shift + oc);
    const int8_t *filter = input + q[0] * q[1] * q[2] * q[3];
    const cmsis_nn_dims in = {q[0], q[1], q[2], q[3]}, outd = {q[0], q[14], q[15], oc}, bd = {1, 1, 1, oc};
    const cmsis_nn_per_channel_quant_params qp = {mult, shift};
    const cmsis_nn_tile stride = {q[9], q[8]}, pad = {q[11], q[10]}, dil = {q[13], q[12]};
    const cmsis_nn_activation act = {q[18], q[19]};
    const int32_t *b = q[21] ? bias : NULL;
    if (op <= 5) {
        const cmsis_nn_dims fd = {oc, q[5], q[6], q[7]};
        const cmsis_nn_conv_params cp = {q[16], q[17], stride, pad, dil, act};
        static const conv_fn fns[] = {0, arm_convolve_wrapper_s8, arm_convolve_s8, arm_convolve_1x1_s8_fast,
                                      arm_convolve_1x1_s8, arm_convolve_1_x_n_s8};
        *size = op == 1 ? arm_convolve_wrapper_s8_get_buffer_size(&cp, &in, &fd, &outd)
              : op == 2 ? arm_convolve_s8_get_buffer_size(&in, &fd)
              : op == 5 ? arm_convolve_1_x_n_s8_get_buffer_size(&cp, &in, &fd, &outd) : 0;
        if (*size > SCRATCH) return -100;
        const cmsis_nn_context ctx = {*size ? scratch : NULL, *size};
        MX_ICOUNT_BEGIN(op);
        const int32_t status = fns[op](&ctx, &cp, &qp, &in, input, &fd, filter, &bd, b, &outd, out);
        MX_ICOUNT_END(op);
        return status;
    }
    const cmsis_nn_dims fd = {1, q[5], q[6], oc};
    const cmsis_nn_dw_conv_params dp = {q[16], q[17], q[20], stride, pad, dil, act};
    static const dw_fn fns[] = {arm_depthwise_conv_wrapper_s8, arm_depthwise_conv_s8, arm_depthwise_conv_3x3_s8,
                                arm_depthwise_conv_s8_opt};
    *size = op == 6 ? arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &in, &fd, &outd)
          : op == 9 ? arm_depthwise_conv_s8_opt_get_buffer_size(&in, &fd) : 0;
    if (*size > SCRATCH) return -100;
    const cmsis_nn_context ctx = {*size ? scratch : NULL, *size};
    MX_ICOUNT_BEGIN(op);
    const int32_t status = fns[op - 6](&ctx, &dp, &qp, &in, input, &fd, filter, &bd, b, &outd, out);
    MX_ICOUNT_END(op);
    return status;
}

/* q: batches depth oc in_off filter_off out_off mult shift act_min act_max has_bias
 * data: bias[oc] (int32) | input | filter */
static int32_t run_fc(const int32_t *q, const uint8_t *d, int8_t *out, int32_t *size)
{
    const int32_t *bias = (const int32_t *)d;
    const int8_t *input = (const int8_t *)(bias + q[2]);
    const int8_t *filter = input + q[0] * q[1];
    const cmsis_nn_dims in = {q[0], 1, 1, q[1]}, fd = {q[1], 1, 1, q[2]}, bd = {1, 1, 1, q[2]}, outd = {q[0], 1, 1, q[2]};
    const cmsis_nn_fc_params fp = {q[3], q[4], q[5], {q[8], q[9]}};
    const cmsis_nn_per_tensor_quant_params qp = {q[6], q[7]};
    const int32_t *b = q[10] ? bias : NULL;
    *size = arm_fully_connected_s8_get_buffer_size(&fd);
    if (*size > SCRATCH) return -100;
    if (*size) {  /* the kernel sums are computed once, ahead of inference, where the ISA wants them */
        arm_vector_sum_s8((int32_t *)scratch, q[1], q[2], filter, q[3], q[4], b);
    }
    const cmsis_nn_context ctx = {*size ? scratch : NULL, *size};
    MX_ICOUNT_BEGIN(10);
    const int32_t status = arm_fully_connected_s8(&ctx, &fp, &qp, &in, input, &fd, filter, &bd, b, &outd, out);
    MX_ICOUNT_END(10);
    return status;
}

/* Runs every case of a batch; returns the bytes written to out, or -1 if out is too small. */
int32_t mx_int8_conv_fc_run(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_cap)
{
    int32_t pos = 0, written = 0;
    int32_t params[32];
    while (pos + 12 <= in_len) {
        const int32_t op = word(in + pos), out_len = word(in + pos + 4), np = word(in + pos + 8);
        pos += 12;
        for (int32_t i = 0; i < np && i < 32; i++, pos += 4) params[i] = word(in + pos);
        const int32_t data_len = word(in + pos);
        pos += 4;
        const int32_t padded = (out_len + 3) & ~3;
        if (written + 8 + padded > out_cap) return -1;
        int8_t *dst = (int8_t *)(out + written + 8);
        memset(dst, 0x5A, (size_t)padded);
        memset(scratch, 0x5A, sizeof scratch);
        int32_t size = 0;
        int32_t status = op == 10 ? run_fc(params, in + pos, dst, &size) : run_conv(op, params, in + pos, dst, &size);
        for (int32_t i = 0; status == 0 && i < GUARD; i++) {
            if (scratch[size + i] != 0x5A) status = -101;
        }
        memcpy(out + written, &status, 4);
        memcpy(out + written + 4, &out_len, 4);
        written += 8 + padded;
        pos += (data_len + 3) & ~3;
    }
    return written;
}
"""

FIRMWARE_MAIN_C = r"""
#include <stdint.h>
#include "mx_platform.h"

int32_t mx_int8_conv_fc_run(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_cap);

static uint8_t in_buf[IN_CAP] __attribute__((aligned(4)));
static uint8_t out_buf[OUT_CAP] __attribute__((aligned(4)));

int main(void)
{
    int h = mx_semihost_open("cases.bin", MX_SEMIHOST_MODE_RB);
    long n = h < 0 ? -1 : mx_semihost_flen(h);
    if (n < 0 || n > (long)sizeof in_buf || mx_semihost_read(h, in_buf, (size_t)n) != 0) {
        return 3;
    }
    mx_semihost_close(h);
    int32_t written = mx_int8_conv_fc_run(in_buf, (int32_t)n, out_buf, (int32_t)sizeof out_buf);
    if (written < 0) {
        return 4;
    }
    h = mx_semihost_open("results.bin", MX_SEMIHOST_MODE_WB);
    if (h < 0 || mx_semihost_write(h, out_buf, (size_t)written) != 0) {
        return 5;
    }
    mx_semihost_close(h);
    return 0;
}
"""


@dataclasses.dataclass
class Case:
    op: str
    params: Sequence[int]
    data: bytes
    out_shape: tuple

    @property
    def out_len(self) -> int:
        return int(np.prod(self.out_shape))

    def encode(self) -> bytes:
        head = struct.pack(f"<3i{len(self.params)}ii", OPS[self.op], self.out_len, len(self.params),
                           *[int(p) for p in self.params], len(self.data))
        return head + self.data + b"\0" * (-len(self.data) % 4)


@dataclasses.dataclass
class Result:
    status: int
    out: np.ndarray


def _i32(a) -> bytes:
    return np.asarray(a, dtype=np.int32).tobytes()


def conv_case(op: str, x: np.ndarray, w: np.ndarray, bias: Optional[np.ndarray], *, input_offset: int,
              output_offset: int, multipliers, shifts, stride=(1, 1), padding=(0, 0), dilation=(1, 1),
              activation=(-128, 127), output_hw, ch_mult: int = 1) -> Case:
    """A conv ("conv*") or depthwise ("dw*") case; w is [C_out, KH, KW, Ci] or [1, KH, KW, C_out]."""
    n, h, wd, c = x.shape
    oc = w.shape[3] if op.startswith("dw") else w.shape[0]
    params = [n, h, wd, c, oc, w.shape[1], w.shape[2], w.shape[3], *stride, *padding, *dilation, *output_hw,
              input_offset, output_offset, *activation, ch_mult, bias is not None]
    b = bias if bias is not None else np.zeros(oc)
    data = _i32(b) + _i32(multipliers) + _i32(shifts) + x.astype(np.int8).tobytes() + w.astype(np.int8).tobytes()
    return Case(op, params, data, (n, *output_hw, oc))


def fc_case(x: np.ndarray, w: np.ndarray, bias: Optional[np.ndarray], *, input_offset: int, filter_offset: int,
            output_offset: int, multiplier: int, shift: int, activation=(-128, 127)) -> Case:
    n, depth = x.shape
    oc = w.shape[0]
    params = [n, depth, oc, input_offset, filter_offset, output_offset, multiplier, shift, *activation,
              bias is not None]
    b = bias if bias is not None else np.zeros(oc)
    return Case("fc", params, _i32(b) + x.astype(np.int8).tobytes() + w.astype(np.int8).tobytes(), (n, oc))


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


def kernel_sources() -> List[Path]:
    return [KERNEL_DIR / f"{name}.c" for name in KERNELS]


def _runner_c() -> str:
    return f"#define SCRATCH {SCRATCH}\n" + RUNNER_C


def build_host_library(out_dir: Path, cc: str = "cc") -> ctypes.CDLL:
    """Kernels + dispatcher as one shared library (the host compiler: the plain C paths)."""
    out_dir = Path(out_dir)
    runner = out_dir / "conv_fc_runner.c"
    runner.write_text(_runner_c())
    lib = out_dir / "libmx_int8_conv_fc.so"
    cmd = [cc, "-std=c11", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE_DIR}",
           *map(str, kernel_sources()), str(runner), "-o", str(lib)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"host build of the conv/fc kernels failed:\n{proc.stderr}")
    dll = ctypes.CDLL(str(lib))
    dll.mx_int8_conv_fc_run.restype = ctypes.c_int32
    dll.mx_int8_conv_fc_run.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    return dll


def host_run(lib: ctypes.CDLL, cases: Sequence[Case]) -> List[Result]:
    blob = encode(cases)
    cap = sum(8 + c.out_len + 3 for c in cases)
    out = ctypes.create_string_buffer(cap)
    written = lib.mx_int8_conv_fc_run(blob, len(blob), out, cap)
    assert written >= 0, "result buffer too small"
    return decode(out.raw[:written], cases)


def firmware_sources() -> Dict[str, object]:
    sources: Dict[str, object] = {f"kernels/{p.name}": p for p in kernel_sources()}
    for header in INCLUDE_DIR.glob("*.h"):
        sources[f"kernels/include/{header.name}"] = header
    sources["app/conv_fc_runner.c"] = _runner_c()
    sources["app/main.c"] = FIRMWARE_MAIN_C.replace("IN_CAP", str(IN_CAP)).replace("OUT_CAP", str(OUT_CAP))
    return sources


def scalar_variant(board_name: str = "mps2-an505"):
    """The board with its CPU's DSP extension switched off (-mcpu=...+nodsp): the plain C paths on QEMU."""
    from mcu_export.boards import load_board
    board = load_board(board_name)
    flags = tuple(f + "+nodsp" if f.startswith("-mcpu=") else f for f in board.compiler.cflags)
    return dataclasses.replace(board, compiler=dataclasses.replace(board.compiler, cflags=flags))


def build_firmware(board, out_dir: Path, icount: bool = False):
    """One firmware per board (a Board, or a board name) with every conv/fc kernel and the dispatcher.
    icount=True wraps each kernel call in the instruction-count markers (tag = op number)."""
    from mcu_export.firmware.build import build_project, render_project
    sources = firmware_sources()
    if icount:
        sources["app/conv_fc_runner.c"] = ('#include "mx_platform.h"\n#define MX_ICOUNT_BEGIN(tag) mx_icount_begin(tag)\n'
                                           '#define MX_ICOUNT_END(tag) mx_icount_end(tag)\n'
                                           + sources["app/conv_fc_runner.c"])
    project = render_project(board, out_dir, sources, include_dirs=["kernels/include"])
    return build_project(project).elf


def qemu_run(board, elf: Path, work_dir: Path, cases: Sequence[Case], timeout: float = 60.0, plugin=None):
    from mcu_export.firmware.qemu import run_qemu
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    blob = encode(cases)
    assert len(blob) <= IN_CAP, f"batch of {len(blob)} bytes exceeds the firmware's {IN_CAP}"
    (work_dir / "cases.bin").write_bytes(blob)
    result = run_qemu(board, elf, timeout=timeout, semihosting_dir=work_dir, plugin=plugin)
    assert result.exit_code == 0, f"firmware exited with {result.exit_code}: {result.uart_text}"
    return decode((work_dir / "results.bin").read_bytes(), cases), result
