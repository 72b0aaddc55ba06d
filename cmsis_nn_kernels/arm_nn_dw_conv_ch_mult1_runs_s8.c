/* The runs path of a channel-multiplier-1 depthwise convolution (arm_nn_dw_conv_ch_mult1_s8), for arguments where
 * arm_nn_dw_conv_runs_fit: on MVE and DSP, runs of output rows through arm_nn_dw_conv_group_s8 (MVE: two pixels
 * per weight load, eight channels a vector; DSP: the run's invariants set once). Plain C has no runs: there it
 * takes the pixels path. */
#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_MVE) || defined(ARM_NN_USE_DSP)
/* The tap rows k in [*k0, *k1) with 0 <= base + k * dilation < size (a rectangle with the columns: see the pixel
 * helper). */
static inline void inside_rows(int32_t base, int32_t dilation, int32_t taps, int32_t size, int32_t *k0, int32_t *k1)
{
    int32_t lo = 0, hi = taps;
    while (lo < hi && base + lo * dilation < 0) {
        lo++;
    }
    while (hi > lo && base + (hi - 1) * dilation >= size) {
        hi--;
    }
    *k0 = lo;
    *k1 = hi;
}

void arm_nn_dw_conv_ch_mult1_runs_s8(const cmsis_nn_dw_conv_params *dw_conv_params,
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
    arm_nn_dw_group_args g = {NULL,
                              NULL,
                              0,
                              0,
                              p->stride.h,
                              p->stride.w,
                              p->padding.w,
                              p->dilation.w,
                              out_w,
                              in_h,
                              in_w,
                              p->dilation.h * in_w * ch,
                              ch,
                              filter_dims->w,
                              bias_data,
                              quant_params->multiplier,
                              quant_params->shift,
                              p->input_offset,
                              p->output_offset,
                              p->activation.min,
                              p->activation.max};
    /* Runs of whole output rows whose tap rows inside the input are the same (all the rows the top and bottom
     * padding leave alone make one run), so that narrow rows pair up across row ends too. */
    for (int32_t b = 0; b < input_dims->n; b++) {
        g.input = input_data + b * in_h * in_w * ch;
        int8_t *out = output_data + b * out_h * out_w * ch;
        for (int32_t oy = 0, end; oy < out_h; oy = end) {
            int32_t ky0, ky1, k0, k1;
            inside_rows(oy * p->stride.h - p->padding.h, p->dilation.h, filter_dims->h, in_h, &ky0, &ky1);
            for (end = oy + 1; end < out_h; end++) {
                inside_rows(end * p->stride.h - p->padding.h, p->dilation.h, filter_dims->h, in_h, &k0, &k1);
                if (k0 != ky0 || k1 != ky1) {
                    break;
                }
            }
            g.kernel = filter_data + ky0 * filter_dims->w * ch;
            g.rows = ky1 - ky0;
            g.first_row = ky0 * p->dilation.h - p->padding.h;
            arm_nn_dw_conv_group_s8(&g, oy, 0, (end - oy) * out_w, out + oy * out_w * ch);
        }
    }
}
#else
void arm_nn_dw_conv_ch_mult1_runs_s8(const cmsis_nn_dw_conv_params *dw_conv_params,
                                     const cmsis_nn_per_channel_quant_params *quant_params,
                                     const cmsis_nn_dims *input_dims,
                                     const int8_t *input_data,
                                     const cmsis_nn_dims *filter_dims,
                                     const int8_t *filter_data,
                                     const int32_t *bias_data,
                                     const cmsis_nn_dims *output_dims,
                                     int8_t *output_data)
{
    arm_nn_dw_conv_ch_mult1_pixels_s8(dw_conv_params, quant_params, input_dims, input_data, filter_dims, filter_data,
                                      bias_data, output_dims, output_data);
}
#endif
