"""Run the misc int8 kernels (elementwise, pooling, softmax, LUT, pad, transpose) from Python: on the host
through ctypes, and on QEMU boards through one firmware per board that reads a batch of cases from a
semihosting file. Both drive the same C dispatcher (RUNNER_C), so a case is encoded once:

    case = Case("add", params=[...], data=bytes, out_len=n)
    outputs = host_run(lib, [case, ...])      # or qemu_run(board, elf, tmp, [case, ...])

Batch file: per case int32 words [op, out_len, nparams, params..., data_len] then data padded to 4 bytes.
Result file: per case [status, out_len] then out_len bytes padded to 4.
"""
from __future__ import annotations

import ctypes
import dataclasses
import struct
import subprocess
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KERNEL_DIR = ROOT / "cmsis_nn_kernels"
INCLUDE_DIR = KERNEL_DIR / "include"
MISC_KERNELS = ["arm_elementwise_add_s8", "arm_elementwise_mul_s8", "arm_max_pool_s8", "arm_avgpool_s8",
                "arm_avgpool_s8_get_buffer_size", "arm_softmax_s8", "arm_quantized_activation_s8", "arm_pad_s8",
                "arm_transpose_s8"]
OPS = {"add": 1, "mul": 2, "max_pool": 3, "avg_pool": 4, "softmax": 5, "lut": 6, "pad": 7, "transpose": 8}
IN_CAP, OUT_CAP = 160 * 1024, 96 * 1024

RUNNER_C = r"""
#include <stdint.h>
#include <string.h>
#include "arm_nnfunctions.h"

static int32_t scratch[4096];

static int32_t word(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

static int32_t run_one(int32_t op, const int32_t *q, const int8_t *d, int8_t *out)
{
    switch (op) {
    case 1: return arm_elementwise_add_s8(d, d + q[12], q[0], q[1], q[2], q[3], q[4], q[5], q[6], out, q[7], q[8],
                                          q[9], q[10], q[11], q[12]);
    case 2: return arm_elementwise_mul_s8(d, d + q[7], q[0], q[1], out, q[2], q[3], q[4], q[5], q[6], q[7]);
    case 3:
    case 4: {
        const cmsis_nn_dims in = {q[0], q[1], q[2], q[3]}, filter = {1, q[4], q[5], 1}, outd = {q[0], q[12], q[13], q[3]};
        const cmsis_nn_pool_params pp = {{q[7], q[6]}, {q[9], q[8]}, {q[10], q[11]}};
        const cmsis_nn_context ctx = {scratch, (int32_t)sizeof scratch};
        if (arm_avgpool_s8_get_buffer_size(q[13], q[3]) > (int32_t)sizeof scratch) return -100;
        return op == 3 ? arm_max_pool_s8(&ctx, &pp, &in, d, &filter, &outd, out)
                       : arm_avgpool_s8(&ctx, &pp, &in, d, &filter, &outd, out);
    }
    case 5: arm_softmax_s8(d, q[0], q[1], q[2], q[3], q[4], out); return 0;
    case 6: return arm_quantized_activation_s8(d + 256, d, out, q[0]);
    case 7: {
        const cmsis_nn_dims in = {q[0], q[1], q[2], q[3]}, pre = {q[4], q[5], q[6], q[7]}, post = {q[8], q[9], q[10], q[11]};
        return arm_pad_s8(d, out, (int8_t)q[12], &in, &pre, &post);
    }
    case 8: {
        const cmsis_nn_dims in = {q[1], q[2], q[3], q[4]}, outd = {q[9], q[10], q[11], q[12]};
        const uint32_t perm[4] = {(uint32_t)q[5], (uint32_t)q[6], (uint32_t)q[7], (uint32_t)q[8]};
        const cmsis_nn_transpose_params tp = {q[0], perm};
        return arm_transpose_s8(d, out, &in, &outd, &tp);
    }
    default: return -99;
    }
}

/* Runs every case of a batch; returns the bytes written to out, or -1 if out is too small. */
int32_t mx_misc_run(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_cap)
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
        memset(dst, 0x5A, (size_t)padded); /* bytes a kernel forgets to write show up as 0x5A */
        const int32_t status = run_one(op, params, (const int8_t *)(in + pos), dst);
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

int32_t mx_misc_run(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_cap);

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
    int32_t written = mx_misc_run(in_buf, (int32_t)n, out_buf, (int32_t)sizeof out_buf);
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
    out_len: int

    def encode(self) -> bytes:
        head = struct.pack(f"<3i{len(self.params)}ii", OPS[self.op], self.out_len, len(self.params),
                           *[int(p) for p in self.params], len(self.data))
        return head + self.data + b"\0" * (-len(self.data) % 4)


@dataclasses.dataclass
class Result:
    status: int
    out: np.ndarray


def encode(cases: Sequence[Case]) -> bytes:
    return b"".join(c.encode() for c in cases)


def decode(blob: bytes, count: int) -> List[Result]:
    results, pos = [], 0
    for _ in range(count):
        status, n = struct.unpack_from("<2i", blob, pos)
        results.append(Result(status, np.frombuffer(blob, dtype=np.int8, count=n, offset=pos + 8).copy()))
        pos += 8 + n + (-n % 4)
    return results


def kernel_sources() -> List[Path]:
    return [KERNEL_DIR / f"{name}.c" for name in MISC_KERNELS]


def build_host_library(out_dir: Path, cc: str = "cc") -> ctypes.CDLL:
    out_dir = Path(out_dir)
    runner = out_dir / "misc_runner.c"
    runner.write_text(RUNNER_C)
    lib = out_dir / "libmx_misc_kernels.so"
    cmd = [cc, "-std=c11", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE_DIR}",
           *map(str, kernel_sources()), str(runner), "-o", str(lib)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"host build of the misc kernels failed:\n{proc.stderr}")
    dll = ctypes.CDLL(str(lib))
    dll.mx_misc_run.restype = ctypes.c_int32
    dll.mx_misc_run.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    return dll


def host_run(lib: ctypes.CDLL, cases: Sequence[Case]) -> List[Result]:
    blob = encode(cases)
    cap = sum(8 + c.out_len + 3 for c in cases)
    out = ctypes.create_string_buffer(cap)
    written = lib.mx_misc_run(blob, len(blob), out, cap)
    assert written >= 0, "result buffer too small"
    return decode(out.raw[:written], len(cases))


def firmware_sources() -> Dict[str, object]:
    sources: Dict[str, object] = {f"kernels/{p.name}": p for p in kernel_sources()}
    for header in INCLUDE_DIR.glob("*.h"):
        sources[f"kernels/include/{header.name}"] = header
    sources["app/misc_runner.c"] = RUNNER_C
    sources["app/main.c"] = FIRMWARE_MAIN_C.replace("IN_CAP", str(IN_CAP)).replace("OUT_CAP", str(OUT_CAP))
    return sources


def build_firmware(board, out_dir: Path):
    """One firmware per board (a Board, or a board name) holding every misc kernel and the dispatcher."""
    from mcu_export.firmware.build import build_project, render_project
    project = render_project(board, out_dir, firmware_sources(), include_dirs=["kernels/include"])
    return build_project(project)


def qemu_run(board, elf: Path, work_dir: Path, cases: Sequence[Case], timeout: float = 30.0) -> List[Result]:
    from mcu_export.firmware.qemu import run_qemu
    blob = encode(cases)
    assert len(blob) <= IN_CAP, f"batch of {len(blob)} bytes exceeds the firmware's {IN_CAP}"
    assert sum(8 + c.out_len + 3 for c in cases) <= OUT_CAP, "batch results exceed the firmware's buffer"
    work_dir = Path(work_dir)
    (work_dir / "cases.bin").write_bytes(blob)
    (work_dir / "results.bin").unlink(missing_ok=True)
    result = run_qemu(board, elf, timeout=timeout, semihosting_dir=work_dir)
    assert result.exit_code == 0, f"firmware exited {result.exit_code}: {result.uart_text}"
    return decode((work_dir / "results.bin").read_bytes(), len(cases))
