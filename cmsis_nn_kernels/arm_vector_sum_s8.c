/* Per weight row: lhs_offset * sum(row + rhs_offset) + bias, the constant part of a fully-connected
 * output that the MVE kernel reads from its context buffer. Run once, ahead of inference. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_vector_sum_s8(int32_t *vector_sum_buf,
                                      int32_t vector_cols,
                                      int32_t vector_rows,
                                      const int8_t *vector_data,
                                      int32_t lhs_offset,
                                      int32_t rhs_offset,
                                      const int32_t *bias_data)
{
    for (int32_t r = 0; r < vector_rows; r++) {
        const int8_t *row = vector_data + r * vector_cols;
        int32_t sum = 0;
        int32_t k = 0;
#if defined(ARM_NN_USE_MVE)
        for (; k < vector_cols; k += 16) {
            sum = vaddvaq_s8(sum, vldrbq_z_s8(row + k, vctp8q((uint32_t)(vector_cols - k))));
        }
#elif defined(ARM_NN_USE_DSP)
        for (; k + 4 <= vector_cols; k += 4) {
            const uint32_t w = (uint32_t)arm_nn_read_s8x4(row + k);
            sum = __smlad((int32_t)__sxtb16(w), 0x00010001, sum);
            sum = __smlad((int32_t)__sxtb16(arm_nn_ror8(w)), 0x00010001, sum);
        }
#endif
        for (; k < vector_cols; k++) {
            sum += row[k];
        }
        vector_sum_buf[r] = lhs_offset * (sum + rhs_offset * vector_cols) + (bias_data ? bias_data[r] : 0);
    }
    return ARM_CMSIS_NN_SUCCESS;
}
