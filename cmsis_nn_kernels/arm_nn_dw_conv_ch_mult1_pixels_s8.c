/* The pixels path of a channel-multiplier-1 depthwise convolution (arm_nn_dw_conv_ch_mult1_s8): each output pixel,
 * batch by batch, through the vectorized pixel helper (any channels, kernel and dilation). */
#include "arm_nnsupportfunctions.h"

void arm_nn_dw_conv_ch_mult1_pixels_s8(const cmsis_nn_dw_conv_params *dw_conv_params,
                                       const cmsis_nn_per_channel_quant_params *quant_params,
                                       const cmsis_nn_dims *input_dims,
                                       const int8_t *input_data,
                                       const cmsis_nn_dims *filter_dims,
                                       const int8_t *filter_data,
                                       const int32_t *bias_data,
                                       const cmsis_nn_dims *output_dims,
                                       int8_t *output_data)
{
    const cmsis_nn_dw_conv_params *p = dw_conv_params;
    const int32_t in_h = input_dims->h, in_w = input_dims->w, ch = input_dims->c;
    const int32_t out_h = output_dims->h, out_w = output_dims->w;
    for (int32_t b = 0; b < input_dims->n; b++) {
        const int8_t *in = input_data + b * in_h * in_w * ch;
        for (int32_t oy = 0; oy < out_h; oy++) {
            for (int32_t ox = 0; ox < out_w; ox++) {
                arm_nn_dw_conv_pixel_s8(in, in_h, in_w, ch, filter_data, filter_dims->h, filter_dims->w,
                                        oy * p->stride.h - p->padding.h, ox * p->stride.w - p->padding.w, p->dilation.h,
                                        p->dilation.w, bias_data, p->input_offset, p->output_offset,
                                        quant_params->multiplier, quant_params->shift, p->activation.min,
                                        p->activation.max, output_data + ((b * out_h + oy) * out_w + ox) * ch);
            }
        }
    }
}
