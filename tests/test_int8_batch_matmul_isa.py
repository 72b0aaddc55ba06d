"""arm_batch_matmul_s8 (cmsis_nn_kernels/) equals its numpy reference bit for bit over random shapes, offsets
and scales: on the host through ctypes (plain C) and under QEMU on Cortex-M55 (MVE: kernel sums in the scratch,
recomputed per right-hand matrix), Cortex-M33 and Cortex-M4 (DSP) and a Cortex-M33 build without DSP (scalar).
The dispatcher hands the kernel exactly arm_fully_connected_s8_get_buffer_size(output dims) bytes of scratch and
reports -101 if it wrote past them."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import int8_harness as H
from mcu_export.int8.reference.batch_matmul import arm_batch_matmul_s8, batch_matmul_params
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

DISPATCH_C = r"""
#define SCRATCH (16 * 1024)
#define GUARD 64
static int8_t scratch[SCRATCH + GUARD] __attribute__((aligned(16)));

/* q: batches m n k lhs_off rhs_off out_off mult shift; data: lhs [b, m, k] | rhs_transposed [b, n, k] */
static int32_t run_case(int32_t op, const int32_t *q, const uint8_t *d, int8_t *out)
{
    (void)op;
    memset(scratch, 0x5A, sizeof scratch);
    const int8_t *lhs = (const int8_t *)d, *rhs = lhs + q[0] * q[1] * q[3];
    const cmsis_nn_dims ld = {1, q[0], q[1], q[3]}, rd = {1, q[0], q[2], q[3]}, od = {1, q[0], q[1], q[2]};
    const cmsis_nn_bmm_params bp = {false, false, {q[4], q[5], q[6], {-128, 127}}};
    const cmsis_nn_per_tensor_quant_params qp = {q[7], q[8]};
    const int32_t size = arm_fully_connected_s8_get_buffer_size(&od);
    if (size > SCRATCH) return -100;
    const cmsis_nn_context ctx = {size ? scratch : NULL, size};
    MX_ICOUNT_BEGIN(1);
    int32_t status = arm_batch_matmul_s8(&ctx, &bp, &qp, &ld, lhs, &rd, rhs, &od, out);
    MX_ICOUNT_END(1);
    for (int32_t i = 0; status == 0 && i < GUARD; i++) {
        if (scratch[size + i] != 0x5A) status = -101;
    }
    return status;
}
"""

BATCH_MATMUL = H.Suite(
    "batch_matmul",
    [
        "arm_batch_matmul_s8",
        "arm_nn_vec_mat_mult_t_s8",
        "arm_vector_sum_s8",
        "arm_fully_connected_get_buffer_sizes_s8",
    ],
    DISPATCH_C,
    in_cap=64 * 1024,
    out_cap=32 * 1024,
)
BOARDS = {"corstone-300": "corstone-300", "mps2-an505": "mps2-an505", "mps2-an386": "mps2-an386", "scalar-m33": None}
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
needs_qemu = NEEDS_ARM_QEMU


def _case(rng):
    b, m, n = (int(v) for v in rng.integers(1, [4, 10, 20]))
    k = int(rng.choice([1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100]))
    lhs = rng.integers(-128, 128, (b, m, k), dtype=np.int8)
    rhs_t = rng.integers(-128, 128, (b, n, k), dtype=np.int8)
    zps = rng.integers(-128, 128, 3)
    mult, shift = batch_matmul_params(float(2.0 ** rng.uniform(-8, -1)), 1.0, float(2.0 ** rng.uniform(0, 6)))
    offsets = (-int(zps[0]), -int(zps[1]), int(zps[2]))
    params = [b, m, n, k, *offsets, mult, shift]
    want = arm_batch_matmul_s8(
        lhs,
        rhs_t,
        lhs_offset=offsets[0],
        rhs_offset=offsets[1],
        output_offset=offsets[2],
        multiplier=mult,
        shift=shift,
    )
    return H.Case("batch_matmul", params, lhs.tobytes() + rhs_t.tobytes(), (b, m, n)), want


def _batch(seed, n=40):
    rng = np.random.default_rng(seed)
    return [_case(rng) for _ in range(n)]


def _check(results, made, where):
    for result, (case, want) in zip(results, made):
        assert result.status == 0, (where, list(case.params), result.status)
        np.testing.assert_array_equal(
            np.asarray(result.out).reshape(-1), want.reshape(-1), err_msg=f"{where} {case.params}"
        )


@needs_cc
@pytest.mark.parametrize("seed", range(3))
def test_host_equals_reference(tmp_path_factory, seed):
    lib = BATCH_MATMUL.build_host_library(tmp_path_factory.mktemp("bmm_host"))
    made = _batch(seed)
    _check(H.host_run(lib, [c for c, _ in made]), made, "host")


@needs_qemu
@pytest.mark.slow
@pytest.mark.parametrize("board_id", list(BOARDS))
def test_qemu_equals_reference(board_id, tmp_path):
    board = BOARDS[board_id] or H.scalar_variant("mps2-an505")
    elf = BATCH_MATMUL.build_firmware(board, tmp_path / "fw")
    made = _batch(21)
    results, _ = BATCH_MATMUL.qemu_run(board, elf, tmp_path / "run", [c for c, _ in made])
    _check(results, made, board_id)
