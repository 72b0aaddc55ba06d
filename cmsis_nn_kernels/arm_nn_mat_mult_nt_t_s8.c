/* The GEMM under every convolution: lhs rows are im2col patches (or input pixels for 1x1), rhs rows are
 * filters, each output is requantized with its filter's multiplier and shift. Integer sums are exact, so
 * the three ISA paths below only reorder additions and agree to the bit. */
#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_MVE)
/* Four lhs rows (patches) against one rhs row (filter), 16 columns per step: each filter vector is loaded
 * once for the four rows, and its sum (for the lhs offset: sum((x + off) * w) = sum(x * w) + off * sum(w))
 * once per four outputs. The four results share the filter's multiplier, so they are requantized as one
 * vector and scattered to the four output rows. Rows past lhs_rows repeat row 0 and are not stored. */
static void rows4_mve(const int8_t *lhs, int32_t n_rows, const int8_t *rhs, const int32_t *bias, int8_t *dst,
                      const int32_t *dst_multipliers, const int32_t *dst_shifts, int32_t rhs_rows, int32_t rhs_cols,
                      int32_t lhs_offset, int32_t dst_offset, int32_t activation_min, int32_t activation_max,
                      int32_t row_address_offset, int32_t lhs_cols_offset)
{
    const int8_t *x0 = lhs;
    const int8_t *x1 = lhs + (n_rows > 1 ? lhs_cols_offset : 0);
    const int8_t *x2 = lhs + (n_rows > 2 ? 2 * lhs_cols_offset : 0);
    const int8_t *x3 = lhs + (n_rows > 3 ? 3 * lhs_cols_offset : 0);
    const uint32x4_t rows = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)row_address_offset);
    const mve_pred16_t store = vctp32q((uint32_t)n_rows);
    for (int32_t c = 0; c < rhs_rows; c++) {
        const int8_t *w = rhs + c * rhs_cols;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, sum = 0;
        const int8_t *p0 = x0, *p1 = x1, *p2 = x2, *p3 = x3;
        /* Whole vectors unpredicated (no predicate moves in the loop), then one predicated tail. */
        for (int32_t n = rhs_cols >> 4; n > 0; n--) {
            const int8x16_t wv = vldrbq_s8(w);
            sum = vaddvaq_s8(sum, wv);
            a0 = vmladavaq_s8(a0, vldrbq_s8(p0), wv);
            a1 = vmladavaq_s8(a1, vldrbq_s8(p1), wv);
            a2 = vmladavaq_s8(a2, vldrbq_s8(p2), wv);
            a3 = vmladavaq_s8(a3, vldrbq_s8(p3), wv);
            w += 16;
            p0 += 16;
            p1 += 16;
            p2 += 16;
            p3 += 16;
        }
        if (rhs_cols & 15) {
            const mve_pred16_t p = vctp8q((uint32_t)(rhs_cols & 15));
            const int8x16_t wv = vldrbq_z_s8(w, p);
            sum = vaddvaq_s8(sum, wv);
            a0 = vmladavaq_s8(a0, vldrbq_z_s8(p0, p), wv);
            a1 = vmladavaq_s8(a1, vldrbq_z_s8(p1, p), wv);
            a2 = vmladavaq_s8(a2, vldrbq_z_s8(p2, p), wv);
            a3 = vmladavaq_s8(a3, vldrbq_z_s8(p3, p), wv);
        }
        int32x4_t v = vdupq_n_s32(a0);
        v = vsetq_lane_s32(a1, v, 1);
        v = vsetq_lane_s32(a2, v, 2);
        v = vsetq_lane_s32(a3, v, 3);
        v = vaddq_n_s32(v, sum * lhs_offset + (bias ? bias[c] : 0));
        v = arm_nn_requantize_mve(v, dst_multipliers[c], dst_shifts[c]);
        v = vaddq_n_s32(v, dst_offset);
        v = vmaxq_s32(v, vdupq_n_s32(activation_min));
        v = vminq_s32(v, vdupq_n_s32(activation_max));
        vstrbq_scatter_offset_p_s32(dst + c, rows, v, store);
    }
}
#elif defined(ARM_NN_USE_DSP)
/* sum_k (lhs[k] + lhs_offset) * rhs_a[k] and the same for rhs_b: four bytes unpacked into two
 * halfword pairs (SXTB16 / SXTAB16, which adds the offset) feed two SMLADs per row. */
static void dot2_dsp(const int8_t *lhs, const int8_t *rhs_a, const int8_t *rhs_b, int32_t cols, int32_t lhs_offset,
                     int32_t *acc_a, int32_t *acc_b)
{
    const uint32_t off2 = ((uint32_t)(uint16_t)lhs_offset << 16) | (uint16_t)lhs_offset;
    int32_t a = *acc_a, b = *acc_b;
    int32_t k = 0;
    for (; k + 4 <= cols; k += 4) {
        const uint32_t x = (uint32_t)arm_nn_read_s8x4(lhs + k);
        const int32_t x02 = (int32_t)__sxtab16(off2, x);
        const int32_t x13 = (int32_t)__sxtab16(off2, arm_nn_ror8(x));
        const uint32_t wa = (uint32_t)arm_nn_read_s8x4(rhs_a + k);
        const uint32_t wb = (uint32_t)arm_nn_read_s8x4(rhs_b + k);
        a = __smlad(x02, (int32_t)__sxtb16(wa), a);
        a = __smlad(x13, (int32_t)__sxtb16(arm_nn_ror8(wa)), a);
        b = __smlad(x02, (int32_t)__sxtb16(wb), b);
        b = __smlad(x13, (int32_t)__sxtb16(arm_nn_ror8(wb)), b);
    }
    for (; k < cols; k++) {
        const int32_t x = lhs[k] + lhs_offset;
        a += x * rhs_a[k];
        b += x * rhs_b[k];
    }
    *acc_a = a;
    *acc_b = b;
}
#endif

arm_cmsis_nn_status arm_nn_mat_mult_nt_t_s8(const int8_t *lhs,
                                            const int8_t *rhs,
                                            const int32_t *bias,
                                            int8_t *dst,
                                            const int32_t *dst_multipliers,
                                            const int32_t *dst_shifts,
                                            int32_t lhs_rows,
                                            int32_t rhs_rows,
                                            int32_t rhs_cols,
                                            int32_t lhs_offset,
                                            int32_t dst_offset,
                                            int32_t activation_min,
                                            int32_t activation_max,
                                            int32_t row_address_offset,
                                            int32_t lhs_cols_offset)
{
#if defined(ARM_NN_USE_MVE)
    for (int32_t r = 0; r < lhs_rows; r += 4) {
        rows4_mve(lhs + r * lhs_cols_offset, MIN(4, lhs_rows - r), rhs, bias, dst + r * row_address_offset,
                  dst_multipliers, dst_shifts, rhs_rows, rhs_cols, lhs_offset, dst_offset, activation_min,
                  activation_max, row_address_offset, lhs_cols_offset);
    }
#else
    for (int32_t r = 0; r < lhs_rows; r++) {
        const int8_t *x = lhs + r * lhs_cols_offset;
        int8_t *out = dst + r * row_address_offset;
#if defined(ARM_NN_USE_DSP)
        int32_t c = 0;
        for (; c + 2 <= rhs_rows; c += 2) {
            int32_t a = bias ? bias[c] : 0;
            int32_t b = bias ? bias[c + 1] : 0;
            dot2_dsp(x, rhs + c * rhs_cols, rhs + (c + 1) * rhs_cols, rhs_cols, lhs_offset, &a, &b);
            out[c] = arm_nn_requantize_clamp_s8(a, dst_multipliers[c], dst_shifts[c], dst_offset, activation_min,
                                                activation_max);
            out[c + 1] = arm_nn_requantize_clamp_s8(b, dst_multipliers[c + 1], dst_shifts[c + 1], dst_offset,
                                                    activation_min, activation_max);
        }
        if (c < rhs_rows) {
            int32_t a = bias ? bias[c] : 0;
            int32_t unused = 0;
            dot2_dsp(x, rhs + c * rhs_cols, rhs + c * rhs_cols, rhs_cols, lhs_offset, &a, &unused);
            out[c] = arm_nn_requantize_clamp_s8(a, dst_multipliers[c], dst_shifts[c], dst_offset, activation_min,
                                                activation_max);
        }
#else
        for (int32_t c = 0; c < rhs_rows; c++) {
            const int8_t *w = rhs + c * rhs_cols;
            int32_t acc = bias ? bias[c] : 0;
            for (int32_t k = 0; k < rhs_cols; k++) {
                acc += (x[k] + lhs_offset) * w[k];
            }
            out[c] = arm_nn_requantize_clamp_s8(acc, dst_multipliers[c], dst_shifts[c], dst_offset, activation_min,
                                                activation_max);
        }
#endif
    }
#endif
    return ARM_CMSIS_NN_SUCCESS;
}
