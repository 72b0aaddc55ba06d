/* Scratch for arm_transpose_conv_s8: Arm's kernel keeps MAX(filter H, stride H) rows of int32 sums, each
 * ((in W - 1) * stride W + MAX(filter W, stride H)) pixels of C_out (stride H there as in Arm's code);
 * ours gathers and needs none, but asks for as much, so that a program sized for either runs on both. The
 * size is the same on every ISA. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

int32_t arm_transpose_conv_s8_get_buffer_size(const cmsis_nn_transpose_conv_params *transpose_conv_params,
                                              const cmsis_nn_dims *input_dims,
                                              const cmsis_nn_dims *filter_dims,
                                              const cmsis_nn_dims *out_dims)
{
    const int32_t stride_h = transpose_conv_params->stride.h;
    const int32_t buf_x =
        ((input_dims->w - 1) * transpose_conv_params->stride.w + MAX(filter_dims->w, stride_h)) * out_dims->c;
    const int32_t buf_y = MAX(filter_dims->h, stride_h);
    return buf_x * buf_y * (int32_t)sizeof(int32_t);
}
