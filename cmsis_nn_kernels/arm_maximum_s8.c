/* Elementwise int8 maximum of two NHWC tensors, either one repeated along its dims of size 1 (TFLite's MAXIMUM). */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_maximum_s8(const cmsis_nn_context *ctx,
                                   const int8_t *input_1_data,
                                   const cmsis_nn_dims *input_1_dims,
                                   const int8_t *input_2_data,
                                   const cmsis_nn_dims *input_2_dims,
                                   int8_t *output_data,
                                   const cmsis_nn_dims *output_dims)
{
    (void)ctx;
    return arm_nn_elementwise_min_max_s8(input_1_data, input_1_dims, input_2_data, input_2_dims, output_data,
                                         output_dims, 1);
}
