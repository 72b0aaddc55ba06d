/* int8 batch matmul, CMSIS-NN v7 contract: lhs [n, h, w, c] times rhs [n, h, w', c] transposed (rows of
 * the right-hand matrix are contiguous), out [n, h, w, w']; a batch dim of 1 on one side is broadcast.
 * Each lhs row is one arm_nn_vec_mat_mult_t_s8 (the fully-connected inner loop) with the rhs offset; on MVE
 * ctx->buf holds the kernel sums of the current rhs matrix (arm_vector_sum_s8, recomputed per matrix,
 * arm_fully_connected_s8_get_buffer_size(output_dims) bytes), elsewhere ctx is unread. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_batch_matmul_s8(const cmsis_nn_context *ctx,
                                        const cmsis_nn_bmm_params *bmm_params,
                                        const cmsis_nn_per_tensor_quant_params *quant_params,
                                        const cmsis_nn_dims *input_lhs_dims,
                                        const int8_t *input_lhs,
                                        const cmsis_nn_dims *input_rhs_dims,
                                        const int8_t *input_rhs,
                                        const cmsis_nn_dims *output_dims,
                                        int8_t *output)
{
    const cmsis_nn_fc_params *fc = &bmm_params->fc_params;
    int32_t *kernel_sum = NULL;
#if defined(ARM_NN_USE_MVE)
    if (ctx->buf == NULL) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    kernel_sum = (int32_t *)ctx->buf;
#else
    (void)ctx;
#endif
    const int32_t lhs_rows = input_lhs_dims->w, rhs_rows = input_rhs_dims->w, cols = input_rhs_dims->c;
    const int32_t lhs_matrix = lhs_rows * cols, rhs_matrix = rhs_rows * cols;
    for (int32_t n = 0; n < output_dims->n; n++) {
        const int32_t lhs_n = input_lhs_dims->n == 1 ? 0 : n, rhs_n = input_rhs_dims->n == 1 ? 0 : n;
        for (int32_t h = 0; h < output_dims->h; h++) {
            const int32_t lhs_h = input_lhs_dims->h == 1 ? 0 : h, rhs_h = input_rhs_dims->h == 1 ? 0 : h;
            const int8_t *lhs = input_lhs + (lhs_n * input_lhs_dims->h + lhs_h) * lhs_matrix;
            const int8_t *rhs = input_rhs + (rhs_n * input_rhs_dims->h + rhs_h) * rhs_matrix;
            if (kernel_sum != NULL) {
                arm_vector_sum_s8(kernel_sum, cols, rhs_rows, rhs, fc->input_offset, fc->filter_offset, NULL);
            }
            for (int32_t r = 0; r < lhs_rows; r++) {
                arm_nn_vec_mat_mult_t_s8(lhs + r * cols, rhs, kernel_sum, NULL, output, fc->input_offset,
                                         fc->output_offset, quant_params->multiplier, quant_params->shift, cols,
                                         rhs_rows, fc->activation.min, fc->activation.max, 1, fc->filter_offset);
                output += rhs_rows;
            }
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
