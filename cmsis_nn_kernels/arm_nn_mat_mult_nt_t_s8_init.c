/* The GEMM of arm_nn_mat_mult_nt_t_s8 for an im2col block (up to four lhs rows), with each filter's
 * constant part precomputed: init[c] = bias[c] + lhs_offset * sum(rhs row c) (arm_vector_sum_s8, once per
 * convolution). The dot products then need no filter sum: on MVE a step of 16 columns is one filter load,
 * four lhs loads and four VMLADAVAs, and the sums start from init[c]. */
#include "arm_nn_mat_mult_mve.h"

arm_cmsis_nn_status arm_nn_mat_mult_nt_t_s8_init(const int8_t *lhs,
                                                 const int8_t *rhs,
                                                 const int32_t *init,
                                                 int8_t *dst,
                                                 const int32_t *dst_multipliers,
                                                 const int32_t *dst_shifts,
                                                 int32_t lhs_rows,
                                                 int32_t rhs_rows,
                                                 int32_t rhs_cols,
                                                 int32_t dst_offset,
                                                 int32_t activation_min,
                                                 int32_t activation_max,
                                                 int32_t row_address_offset,
                                                 int32_t lhs_cols_offset)
{
#if defined(ARM_NN_USE_MVE)
    const int32x4_t lo = vdupq_n_s32(activation_min), hi = vdupq_n_s32(activation_max);
    const int32x4_t out_off = vdupq_n_s32(dst_offset);
    const int32_t ro = row_address_offset;
    const uint32x4_t four = {0, (uint32_t)ro, 2u * (uint32_t)ro, 3u * (uint32_t)ro}, one = vdupq_n_u32(0);
    const int whole = lhs_rows == 4; /* four rows at once, or each row as four copies of itself */
    int32_t a[4];
    for (int32_t r = 0; r < lhs_rows; r += whole ? 4 : 1) {
        const int8_t *x = lhs + r * lhs_cols_offset;
        for (int32_t c = 0; c < rhs_rows; c++) {
            dot4(x, whole ? lhs_cols_offset : 0, rhs + c * rhs_cols, rhs_cols, init[c], a);
            store4(gather4(a), dst_multipliers[c], dst_shifts[c], out_off, lo, hi, dst + r * ro + c,
                   whole ? four : one);
        }
    }
#else
    for (int32_t r = 0; r < lhs_rows; r++) {
        const int8_t *x = lhs + r * lhs_cols_offset;
        for (int32_t c = 0; c < rhs_rows; c++) {
            const int8_t *w = rhs + c * rhs_cols;
            int32_t acc = init[c];
            for (int32_t k = 0; k < rhs_cols; k++) {
                acc += x[k] * w[k];
            }
            dst[r * row_address_offset + c] = arm_nn_requantize_clamp_s8(acc, dst_multipliers[c], dst_shifts[c],
                                                                         dst_offset, activation_min, activation_max);
        }
    }
#endif
    return ARM_CMSIS_NN_SUCCESS;
}
