/* One input vector times the transposed weight matrix, per-tensor requantized (see arm_nn_vec_mat_mult_core.h). */
#include "arm_nn_vec_mat_mult_core.h"

arm_cmsis_nn_status arm_nn_vec_mat_mult_t_s8(const int8_t *lhs,
                                             const int8_t *rhs,
                                             const int32_t *kernel_sum,
                                             const int32_t *bias,
                                             int8_t *dst,
                                             int32_t lhs_offset,
                                             int32_t dst_offset,
                                             int32_t dst_multiplier,
                                             int32_t dst_shift,
                                             int32_t rhs_cols,
                                             int32_t rhs_rows,
                                             int32_t activation_min,
                                             int32_t activation_max,
                                             int32_t address_offset,
                                             int32_t rhs_offset)
{
    arm_nn_vec_mat_mult_t_core(lhs, rhs, kernel_sum, bias, dst, lhs_offset, dst_offset, &dst_multiplier, &dst_shift,
                               false, rhs_cols, rhs_rows, activation_min, activation_max, address_offset, rhs_offset);
    return ARM_CMSIS_NN_SUCCESS;
}
