/* int8 fully connected, one requantization scale per output channel (CMSIS-NN v7 contract): all channels
 * and batches in one call. Scratch as arm_fully_connected_s8 (arm_fully_connected_s8_get_buffer_size):
 * on MVE ctx->buf holds the kernel sums from arm_vector_sum_s8 (bias folded in, bias_data unread);
 * elsewhere ctx is unread. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_fully_connected_per_channel_s8(const cmsis_nn_context *ctx,
                                                       const cmsis_nn_fc_params *fc_params,
                                                       const cmsis_nn_per_channel_quant_params *quant_params,
                                                       const cmsis_nn_dims *input_dims,
                                                       const int8_t *input_data,
                                                       const cmsis_nn_dims *filter_dims,
                                                       const int8_t *filter_data,
                                                       const cmsis_nn_dims *bias_dims,
                                                       const int32_t *bias_data,
                                                       const cmsis_nn_dims *output_dims,
                                                       int8_t *output_data)
{
    (void)bias_dims;
#if defined(ARM_NN_USE_MVE)
    if (ctx->buf == NULL) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
#endif
    const int32_t *kernel_sum = (const int32_t *)ctx->buf;
    const int32_t depth = filter_dims->n, out_c = output_dims->c;
    for (int32_t b = 0; b < input_dims->n; b++) {
        arm_nn_vec_mat_mult_t_per_ch_s8(
            input_data + b * depth, filter_data, kernel_sum, bias_data, output_data + b * out_c,
            fc_params->input_offset, fc_params->output_offset, quant_params->multiplier, quant_params->shift, depth,
            out_c, fc_params->activation.min, fc_params->activation.max, 1, fc_params->filter_offset);
    }
    return ARM_CMSIS_NN_SUCCESS;
}
