/* General int8 depthwise convolution: any channel multiplier, kernel, stride, padding, dilation and batch.
 * Multiplier 1 runs the shared vectorized pixel helper; for a larger multiplier the output channels of one
 * input channel are interleaved in memory (oc = ic * ch_mult + m), so that case stays in plain C on every
 * ISA (as CMSIS-NN's arm_depthwise_conv_s8 does). */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_depthwise_conv_s8(const cmsis_nn_context *ctx,
                                          const cmsis_nn_dw_conv_params *dw_conv_params,
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
    (void)ctx;
    (void)bias_dims;
    const cmsis_nn_dw_conv_params *p = dw_conv_params;
    const int32_t in_h = input_dims->h, in_w = input_dims->w, in_c = input_dims->c;
    const int32_t k_h = filter_dims->h, k_w = filter_dims->w, mult = p->ch_mult;
    const int32_t out_h = output_dims->h, out_w = output_dims->w, out_c = output_dims->c;
    if (mult < 1 || out_c != in_c * mult) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    if (mult == 1) {
        arm_nn_dw_conv_ch_mult1_s8(dw_conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                                   bias_data, output_dims, output_data);
        return ARM_CMSIS_NN_SUCCESS;
    }
    for (int32_t b = 0; b < input_dims->n; b++) {
        const int8_t *in = input_data + b * in_h * in_w * in_c;
        for (int32_t oy = 0; oy < out_h; oy++) {
            for (int32_t ox = 0; ox < out_w; ox++) {
                const int32_t base_y = oy * p->stride.h - p->padding.h, base_x = ox * p->stride.w - p->padding.w;
                int8_t *out = output_data + ((b * out_h + oy) * out_w + ox) * out_c;
                for (int32_t oc = 0; oc < out_c; oc++) {
                    const int32_t ic = oc / mult;
                    int32_t acc = bias_data ? bias_data[oc] : 0;
                    for (int32_t ky = 0; ky < k_h; ky++) {
                        const int32_t y = base_y + ky * p->dilation.h;
                        if (y < 0 || y >= in_h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < k_w; kx++) {
                            const int32_t x = base_x + kx * p->dilation.w;
                            if (x < 0 || x >= in_w) {
                                continue;
                            }
                            acc += (in[(y * in_w + x) * in_c + ic] + p->input_offset) *
                                   filter_data[(ky * k_w + kx) * out_c + oc];
                        }
                    }
                    out[oc] = arm_nn_requantize_clamp_s8(acc, quant_params->multiplier[oc], quant_params->shift[oc],
                                                         p->output_offset, p->activation.min, p->activation.max);
                }
            }
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
