/* The GEMM under every convolution: lhs rows are im2col patches (or input pixels for 1x1), rhs rows are
 * filters, each output is requantized with its filter's multiplier and shift. Integer sums are exact, so
 * the three ISA paths below only reorder additions and agree to the bit. */
#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_MVE)
/* dot(lhs, rhs) and sum(rhs) over cols, 16 lanes at a time; predicated tail loads read zeros. */
static void dot4_mve(const int8_t *lhs, const int8_t *rhs, int32_t rhs_rows_left, int32_t cols, int32_t acc[4],
                     int32_t rsum[4])
{
    const int8_t *r0 = rhs;
    const int8_t *r1 = rhs + (rhs_rows_left > 1 ? cols : 0);
    const int8_t *r2 = rhs + (rhs_rows_left > 2 ? 2 * cols : 0);
    const int8_t *r3 = rhs + (rhs_rows_left > 3 ? 3 * cols : 0);
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int32_t k = 0; k < cols; k += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(cols - k));
        const int8x16_t x = vldrbq_z_s8(lhs + k, p);
        const int8x16_t w0 = vldrbq_z_s8(r0 + k, p);
        const int8x16_t w1 = vldrbq_z_s8(r1 + k, p);
        const int8x16_t w2 = vldrbq_z_s8(r2 + k, p);
        const int8x16_t w3 = vldrbq_z_s8(r3 + k, p);
        a0 = vmladavaq_s8(a0, x, w0);
        a1 = vmladavaq_s8(a1, x, w1);
        a2 = vmladavaq_s8(a2, x, w2);
        a3 = vmladavaq_s8(a3, x, w3);
        s0 = vaddvaq_s8(s0, w0);
        s1 = vaddvaq_s8(s1, w1);
        s2 = vaddvaq_s8(s2, w2);
        s3 = vaddvaq_s8(s3, w3);
    }
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
    rsum[0] = s0; rsum[1] = s1; rsum[2] = s2; rsum[3] = s3;
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
    for (int32_t r = 0; r < lhs_rows; r++) {
        const int8_t *x = lhs + r * lhs_cols_offset;
        int8_t *out = dst + r * row_address_offset;
#if defined(ARM_NN_USE_MVE)
        for (int32_t c = 0; c < rhs_rows; c += 4) {
            const int32_t n = MIN(4, rhs_rows - c);
            int32_t acc[4], rsum[4];
            dot4_mve(x, rhs + c * rhs_cols, n, rhs_cols, acc, rsum);
            int32x4_t v = vldrwq_s32(acc);
            v = vmlaq_n_s32(v, vldrwq_s32(rsum), lhs_offset);
            const mve_pred16_t p = vctp32q((uint32_t)n);
            if (bias) {
                v = vaddq_s32(v, vldrwq_z_s32(bias + c, p));
            }
            v = arm_nn_requantize_mve_32x4(v, vldrwq_z_s32(dst_multipliers + c, p), vldrwq_z_s32(dst_shifts + c, p));
            v = vaddq_n_s32(v, dst_offset);
            v = vmaxq_s32(v, vdupq_n_s32(activation_min));
            v = vminq_s32(v, vdupq_n_s32(activation_max));
            vstrbq_p_s32(out + c, v, p);
        }
#elif defined(ARM_NN_USE_DSP)
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
    return ARM_CMSIS_NN_SUCCESS;
}
