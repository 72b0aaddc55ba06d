/* NHWC int8 transposed convolution, CMSIS-NN's signature and arithmetic: every output element is
 * requantize(bias + sum of (input + input_offset) * filter over the input pixels whose stride-spaced
 * kernel footprint covers it) + output_offset, clamped. Arm's kernel scatters each input row into a
 * rolling int32 buffer (ctx); this scalar one gathers per output element instead, so it needs no scratch,
 * and the int32 sums are the same whatever order they are added in. Dilation is 1, as in Arm's kernel. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

/* The first kernel tap (ky) that lands on full-output row `full`, and how many do: taps ky, ky + stride,
 * ... read input rows (full - ky) / stride, which must lie in [0, in). */
static void taps(int32_t full, int32_t kernel, int32_t stride, int32_t in, int32_t *first, int32_t *last)
{
    int32_t k = full % stride;
    int32_t i = full / stride;
    if (i >= in) {
        k += (i - in + 1) * stride;
    }
    *first = k;
    *last = MIN(kernel - 1, full);
}

arm_cmsis_nn_status arm_transpose_conv_s8(const cmsis_nn_context *ctx,
                                          const cmsis_nn_context *output_ctx,
                                          const cmsis_nn_transpose_conv_params *transpose_conv_params,
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
    (void)output_ctx;
    (void)bias_dims;
    const int32_t in_h = input_dims->h, in_w = input_dims->w, in_c = input_dims->c;
    const int32_t out_h = output_dims->h, out_w = output_dims->w, out_c = output_dims->c;
    const int32_t k_h = filter_dims->h, k_w = filter_dims->w;
    const int32_t stride_h = transpose_conv_params->stride.h, stride_w = transpose_conv_params->stride.w;
    const int32_t pad_h = transpose_conv_params->padding.h, pad_w = transpose_conv_params->padding.w;
    const int32_t input_offset = transpose_conv_params->input_offset;
    const int32_t output_offset = transpose_conv_params->output_offset;
    const int32_t act_min = transpose_conv_params->activation.min;
    const int32_t act_max = transpose_conv_params->activation.max;

    for (int32_t n = 0; n < input_dims->n; n++) {
        const int8_t *input = input_data + n * in_h * in_w * in_c;
        for (int32_t oy = 0; oy < out_h; oy++) {
            int32_t ky0, ky1;
            taps(oy + pad_h, k_h, stride_h, in_h, &ky0, &ky1);
            for (int32_t ox = 0; ox < out_w; ox++) {
                int32_t kx0, kx1;
                taps(ox + pad_w, k_w, stride_w, in_w, &kx0, &kx1);
                for (int32_t o = 0; o < out_c; o++) {
                    int32_t acc = bias_data != NULL ? bias_data[o] : 0;
                    for (int32_t ky = ky0; ky <= ky1; ky += stride_h) {
                        const int32_t iy = (oy + pad_h - ky) / stride_h;
                        for (int32_t kx = kx0; kx <= kx1; kx += stride_w) {
                            const int32_t ix = (ox + pad_w - kx) / stride_w;
                            const int8_t *x = input + (iy * in_w + ix) * in_c;
                            const int8_t *w = filter_data + ((o * k_h + ky) * k_w + kx) * in_c;
                            for (int32_t i = 0; i < in_c; i++) {
                                acc += (x[i] + input_offset) * w[i];
                            }
                        }
                    }
                    acc = arm_nn_requantize(acc, quant_params->multiplier[o], quant_params->shift[o]);
                    acc += output_offset;
                    acc = MAX(acc, act_min);
                    acc = MIN(acc, act_max);
                    *output_data++ = (int8_t)acc;
                }
            }
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
