/* 1xN convolution over a one-row input (audio, keyword spotting): an output pixel whose taps all lie
 * inside the row reads its patch in place (consecutive patches are stride.w * C apart, one GEMM for the
 * run); only pixels touching the padding build their patch in the scratch buffer, one at a time, so the
 * buffer of CMSIS-NN's MVE 1xN kernel (one patch) suffices. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_convolve_1_x_n_s8(const cmsis_nn_context *ctx,
                                          const cmsis_nn_conv_params *conv_params,
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
    const int32_t in_w = input_dims->w, in_c = input_dims->c, kernel_w = filter_dims->w;
    const int32_t out_w = output_dims->w, out_c = output_dims->c;
    const int32_t stride_w = conv_params->stride.w, pad_w = conv_params->padding.w;
    if (input_dims->h != 1 || filter_dims->h != 1 || conv_params->dilation.w != 1 || filter_dims->c != in_c ||
        (stride_w * in_c) % 4 != 0) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const int32_t cols = kernel_w * in_c;
    int8_t *patch = (int8_t *)ctx->buf;
    const int8_t pad_value = (int8_t)(-conv_params->input_offset);

#define GEMM(lhs, rows, dst, lhs_pitch)                                                                          \
    arm_nn_mat_mult_nt_t_s8((lhs), filter_data, bias_data, (dst), quant_params->multiplier, quant_params->shift, \
                            (rows), out_c, cols, conv_params->input_offset, conv_params->output_offset,          \
                            conv_params->activation.min, conv_params->activation.max, out_c, (lhs_pitch))

    for (int32_t b = 0; b < input_dims->n; b++) {
        const int8_t *in = input_data + b * in_w * in_c;
        for (int32_t oy = 0; oy < output_dims->h; oy++) {
            /* With one input row, an output row other than the one over it sees only padding. */
            const int32_t row_inside = oy * conv_params->stride.h - conv_params->padding.h == 0;
            int8_t *out = output_data + ((b * output_dims->h + oy) * out_w) * out_c;
            int32_t ox = 0;
            while (ox < out_w) {
                const int32_t x0 = ox * stride_w - pad_w;
                if (row_inside && x0 >= 0 && x0 + kernel_w <= in_w) {
                    int32_t run = 1;
                    while (ox + run < out_w && (ox + run) * stride_w - pad_w + kernel_w <= in_w) {
                        run++;
                    }
                    GEMM(in + x0 * in_c, run, out + ox * out_c, stride_w * in_c);
                    ox += run;
                    continue;
                }
                if (patch == NULL) {
                    return ARM_CMSIS_NN_ARG_ERROR;
                }
                for (int32_t kx = 0; kx < kernel_w; kx++) {
                    const int32_t x = x0 + kx;
                    if (!row_inside || x < 0 || x >= in_w) {
                        memset(patch + kx * in_c, pad_value, (size_t)in_c);
                    } else {
                        memcpy(patch + kx * in_c, in + x * in_c, (size_t)in_c);
                    }
                }
                GEMM(patch, 1, out + ox * out_c, cols);
                ox++;
            }
        }
    }
#undef GEMM
    return ARM_CMSIS_NN_SUCCESS;
}
