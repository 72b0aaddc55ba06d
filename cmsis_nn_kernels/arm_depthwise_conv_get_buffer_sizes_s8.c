/* Scratch sizes of the int8 depthwise convolutions: CMSIS-NN's, for the same ISA (ours need none, but an
 * arena planned with these runs either library). _dsp / _mve answer for that ISA from any host. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

#define CH_IN_BLOCK_MVE 124 /* channels per block of CMSIS-NN's MVE depthwise kernel */
/* Above this many output channels from one input channel, CMSIS-NN's MVE wrapper runs the depthwise as a
 * convolution (1 with GCC/clang builds of CMSIS-NN, 8 with armclang's). */
#define DW_AS_CONV_OUTPUT_CH_THRESHOLD 1

int32_t arm_depthwise_conv_s8_opt_get_buffer_size_mve(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims)
{
    (void)input_dims;
    return 4 * CH_IN_BLOCK_MVE * filter_dims->w * filter_dims->h * (int32_t)sizeof(int8_t);
}

int32_t arm_depthwise_conv_s8_opt_get_buffer_size_dsp(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims)
{
    return input_dims->c * filter_dims->w * filter_dims->h * (int32_t)sizeof(int16_t);
}

int32_t arm_depthwise_conv_s8_opt_get_buffer_size(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims)
{
#if defined(ARM_NN_USE_MVE)
    return arm_depthwise_conv_s8_opt_get_buffer_size_mve(input_dims, filter_dims);
#elif defined(ARM_NN_USE_DSP)
    return arm_depthwise_conv_s8_opt_get_buffer_size_dsp(input_dims, filter_dims);
#else
    (void)input_dims;
    (void)filter_dims;
    return 0;
#endif
}

static int uses_opt(const cmsis_nn_dw_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *out)
{
    return in->c == out->c && in->n == 1 && p->dilation.w == 1 && p->dilation.h == 1;
}

static int uses_3x3(const cmsis_nn_dw_conv_params *p, const cmsis_nn_dims *f)
{
    return f->w == 3 && f->h == 3 && p->padding.h <= 1 && p->padding.w <= 1;
}

int32_t arm_depthwise_conv_wrapper_s8_get_buffer_size_dsp(const cmsis_nn_dw_conv_params *dw_conv_params,
                                                          const cmsis_nn_dims *input_dims,
                                                          const cmsis_nn_dims *filter_dims,
                                                          const cmsis_nn_dims *output_dims)
{
    if (!uses_opt(dw_conv_params, input_dims, output_dims) || uses_3x3(dw_conv_params, filter_dims)) {
        return 0;
    }
    return arm_depthwise_conv_s8_opt_get_buffer_size_dsp(input_dims, filter_dims);
}

int32_t arm_depthwise_conv_wrapper_s8_get_buffer_size_mve(const cmsis_nn_dw_conv_params *dw_conv_params,
                                                          const cmsis_nn_dims *input_dims,
                                                          const cmsis_nn_dims *filter_dims,
                                                          const cmsis_nn_dims *output_dims)
{
    if (input_dims->c == 1 && output_dims->c > DW_AS_CONV_OUTPUT_CH_THRESHOLD) {
        /* the convolution's scratch, then the filter transposed to [C_OUT, H, W, 1] */
        const cmsis_nn_dw_conv_params *p = dw_conv_params;
        const cmsis_nn_conv_params conv = {p->input_offset, p->output_offset, p->stride,
                                           p->padding,      p->dilation,      p->activation};
        const cmsis_nn_dims conv_filter = {output_dims->c, filter_dims->h, filter_dims->w, 1};
        return arm_convolve_wrapper_s8_get_buffer_size_mve(&conv, input_dims, &conv_filter, output_dims) +
               output_dims->c * filter_dims->h * filter_dims->w;
    }
    if (!uses_opt(dw_conv_params, input_dims, output_dims)) {
        return 0;
    }
    return arm_depthwise_conv_s8_opt_get_buffer_size_mve(input_dims, filter_dims);
}

int32_t arm_depthwise_conv_wrapper_s8_get_buffer_size(const cmsis_nn_dw_conv_params *dw_conv_params,
                                                      const cmsis_nn_dims *input_dims,
                                                      const cmsis_nn_dims *filter_dims,
                                                      const cmsis_nn_dims *output_dims)
{
#if defined(ARM_NN_USE_MVE)
    return arm_depthwise_conv_wrapper_s8_get_buffer_size_mve(dw_conv_params, input_dims, filter_dims, output_dims);
#elif defined(ARM_NN_USE_DSP)
    return arm_depthwise_conv_wrapper_s8_get_buffer_size_dsp(dw_conv_params, input_dims, filter_dims, output_dims);
#else
    if (!uses_opt(dw_conv_params, input_dims, output_dims) || uses_3x3(dw_conv_params, filter_dims)) {
        return 0;
    }
    return arm_depthwise_conv_s8_opt_get_buffer_size(input_dims, filter_dims);
#endif
}
