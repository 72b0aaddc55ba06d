/* The fully-connected inner loop shared by arm_nn_vec_mat_mult_t_s8 (one scale: per_row = false) and
 * arm_nn_vec_mat_mult_t_per_ch_s8 (a scale per weight row: per_row = true). Each caller passes a constant
 * per_row, so the compiler keeps one requantization form in each function.
 * On MVE the offsets and bias come folded in kernel_sum (arm_vector_sum_s8, computed once), since
 * sum (x + a)(w + b) + bias = sum x*w + b * sum x + [a * sum (w + b) + bias]; DSP adds a as it widens
 * the input and b * sum (x + a) once per call, plain C adds both as it goes. All three give the same int32
 * sum (wrapping alike), then the same requantization. */
#ifndef ARM_NN_VEC_MAT_MULT_CORE_H
#define ARM_NN_VEC_MAT_MULT_CORE_H

#include <stdbool.h>

#include "arm_nnsupportfunctions.h"
#include "arm_nn_vec_mat_mult_dsp.h"

static inline __attribute__((always_inline)) void arm_nn_vec_mat_mult_t_core(const int8_t *lhs,
                                                                             const int8_t *rhs,
                                                                             const int32_t *kernel_sum,
                                                                             const int32_t *bias,
                                                                             int8_t *dst,
                                                                             int32_t lhs_offset,
                                                                             int32_t dst_offset,
                                                                             const int32_t *dst_multiplier,
                                                                             const int32_t *dst_shift,
                                                                             bool per_row,
                                                                             int32_t rhs_cols,
                                                                             int32_t rhs_rows,
                                                                             int32_t activation_min,
                                                                             int32_t activation_max,
                                                                             int32_t address_offset,
                                                                             int32_t rhs_offset)
{
#if defined(ARM_NN_USE_MVE)
    (void)bias;
    (void)lhs_offset;
    int32_t lhs_sum = 0;
    if (rhs_offset != 0) {
        for (int32_t k = 0; k < rhs_cols; k += 16) {
            lhs_sum = vaddvaq_s8(lhs_sum, vldrbq_z_s8(lhs + k, vctp8q((uint32_t)(rhs_cols - k))));
        }
    }
    for (int32_t r = 0; r < rhs_rows; r += 4) {
        const int32_t n = MIN(4, rhs_rows - r);
        const int8_t *w0 = rhs + r * rhs_cols;
        const int8_t *w1 = n > 1 ? w0 + rhs_cols : w0;
        const int8_t *w2 = n > 2 ? w0 + 2 * rhs_cols : w0;
        const int8_t *w3 = n > 3 ? w0 + 3 * rhs_cols : w0;
        int32_t acc[4] = {0, 0, 0, 0};
        for (int32_t k = 0; k < rhs_cols; k += 16) {
            const mve_pred16_t p = vctp8q((uint32_t)(rhs_cols - k));
            const int8x16_t x = vldrbq_z_s8(lhs + k, p);
            acc[0] = vmladavaq_s8(acc[0], x, vldrbq_z_s8(w0 + k, p));
            acc[1] = vmladavaq_s8(acc[1], x, vldrbq_z_s8(w1 + k, p));
            acc[2] = vmladavaq_s8(acc[2], x, vldrbq_z_s8(w2 + k, p));
            acc[3] = vmladavaq_s8(acc[3], x, vldrbq_z_s8(w3 + k, p));
        }
        const mve_pred16_t p = vctp32q((uint32_t)n);
        int32x4_t v = vaddq_s32(vldrwq_s32(acc), vldrwq_z_s32(kernel_sum + r, p));
        v = vaddq_n_s32(v, rhs_offset * lhs_sum);
        v = per_row ? arm_nn_requantize_mve_32x4(v, vldrwq_z_s32(dst_multiplier + r, p), vldrwq_z_s32(dst_shift + r, p))
                    : arm_nn_requantize_mve(v, *dst_multiplier, *dst_shift);
        v = vaddq_n_s32(v, dst_offset);
        v = vmaxq_s32(v, vdupq_n_s32(activation_min));
        v = vminq_s32(v, vdupq_n_s32(activation_max));
        const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)address_offset);
        vstrbq_scatter_offset_p_s32(dst + r * address_offset, lanes, v, p);
    }
#elif defined(ARM_NN_USE_DSP)
    (void)kernel_sum;
    /* sum (x + a)(w + b) = sum (x + a) w + b * sum (x + a): the weights go in as they are, and the rhs
     * offset's share, the same for every row, is summed once. */
    int32_t row_const = 0;
    if (rhs_offset != 0) {
        for (int32_t k = 0; k < rhs_cols; k++) {
            row_const += lhs[k] + lhs_offset;
        }
        row_const *= rhs_offset;
    }
    const int32_t n4 = rhs_cols >> 2, k4 = rhs_cols & ~3;
    const int8_t *p = rhs;
    for (int32_t r = 0; r < rhs_rows; r += 4, p += 4 * rhs_cols, dst += 4 * address_offset) {
        /* four rows p, p + c, q, q + c; fewer repeat one: (r0, r0, r0, r0), (r0, r1, r0, r1), (r0, r1, r1, r2) */
        const int32_t n = MIN(4, rhs_rows - r);
        const int32_t c = n > 1 ? rhs_cols : 0;
        const int8_t *const q = n == 4 ? p + 2 * rhs_cols : n == 3 ? p + rhs_cols : p;
        int32_t acc[4] = {row_const, row_const, row_const, row_const};
        if (n4 > 0) {
            arm_nn_vec_mat_4rows_dsp(lhs, p, q, c, n4, lhs_offset, acc);
        }
        if (n == 3) {
            acc[2] = acc[3];
        }
        if (k4 != rhs_cols) {
            for (int32_t i = 0; i < n; i++) {
                for (int32_t k = k4; k < rhs_cols; k++) {
                    acc[i] += (lhs[k] + lhs_offset) * p[i * rhs_cols + k];
                }
            }
        }
        const int32_t *const b = bias ? bias + r : NULL;
        const int32_t *const m = per_row ? dst_multiplier + r : dst_multiplier;
        const int32_t *const sh = per_row ? dst_shift + r : dst_shift;
        for (int32_t i = 0; i < n; i++) {
            const int32_t row = per_row ? i : 0;
            dst[i * address_offset] = arm_nn_requantize_clamp_s8_1step(acc[i] + (b ? b[i] : 0), m[row], sh[row],
                                                                       dst_offset, activation_min, activation_max);
        }
    }
#else
    (void)kernel_sum;
    for (int32_t r = 0; r < rhs_rows; r++) {
        const int8_t *w = rhs + r * rhs_cols;
        int32_t acc = bias ? bias[r] : 0;
        for (int32_t k = 0; k < rhs_cols; k++) {
            acc += (lhs[k] + lhs_offset) * (w[k] + rhs_offset);
        }
        const int32_t row = per_row ? r : 0;
        dst[r * address_offset] = arm_nn_requantize_clamp_s8(acc, dst_multiplier[row], dst_shift[row], dst_offset,
                                                             activation_min, activation_max);
    }
#endif
}

#endif
