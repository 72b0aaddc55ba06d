/* Scratch sizes of the int8 convolutions, equal to CMSIS-NN's for the same ISA so that either library
 * runs in an arena planned with them. The un-suffixed functions answer for the ISA being compiled; the
 * _dsp / _mve ones answer for that ISA from any host (the exporter plans a Cortex-M55 arena on x86).
 * Scalar builds use the DSP sizes, as CMSIS-NN does. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

/* Four im2col rows of int8, each padded to a multiple of 4 (DSP / scalar) ... */
int32_t arm_convolve_s8_get_buffer_size_dsp(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims)
{
    const int32_t cols = filter_dims->w * filter_dims->h * input_dims->c;
    const int32_t aligned = (cols + 3) & ~3;
    return 2 * aligned * (int32_t)sizeof(int16_t);
}

/* ... or to a multiple of 16, one Q register (MVE). */
int32_t arm_convolve_s8_get_buffer_size_mve(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims)
{
    const int32_t cols = filter_dims->w * filter_dims->h * input_dims->c;
    return 4 * ((cols + 15) / 16) * 16 * (int32_t)sizeof(int8_t);
}

int32_t arm_convolve_s8_get_buffer_size(const cmsis_nn_dims *input_dims, const cmsis_nn_dims *filter_dims)
{
#if defined(ARM_NN_USE_MVE)
    return arm_convolve_s8_get_buffer_size_mve(input_dims, filter_dims);
#else
    return arm_convolve_s8_get_buffer_size_dsp(input_dims, filter_dims);
#endif
}

int32_t arm_convolve_1x1_s8_fast_get_buffer_size(const cmsis_nn_dims *input_dims)
{
    (void)input_dims;
    return 0;
}

/* CMSIS-NN's MVE 1xN kernel keeps one padded patch; when its left/right padded column counts do not add
 * up to the output width it falls back to the general kernel's size. */
int32_t arm_convolve_1_x_n_s8_get_buffer_size_mve(const cmsis_nn_conv_params *conv_params,
                                                  const cmsis_nn_dims *input_dims,
                                                  const cmsis_nn_dims *filter_dims,
                                                  const cmsis_nn_dims *output_dims)
{
    const int32_t pad_x = conv_params->padding.w;
    const int32_t stride_x = conv_params->stride.w;
    const int32_t total_pad = (output_dims->w - 1) * stride_x + filter_dims->w - input_dims->w;
    const int32_t asym_pad = total_pad % 2;
    const int32_t right_pad_num = pad_x + asym_pad != 0 ? MAX(1, (pad_x + asym_pad + stride_x - 1) / stride_x) : 0;
    const int32_t left_pad_num = pad_x != 0 ? MAX(1, (pad_x + stride_x - 1) / stride_x) : 0;
    const int32_t no_pad_num = MAX(output_dims->w - (right_pad_num + left_pad_num), 0);
    if (right_pad_num + no_pad_num + left_pad_num != output_dims->w) {
        return arm_convolve_s8_get_buffer_size_mve(input_dims, filter_dims);
    }
    const int32_t pad_size_left = pad_x * input_dims->c;
    const int32_t pad_size_right = asym_pad ? right_pad_num * input_dims->c : pad_size_left;
    const int32_t num_elem_left = filter_dims->w * input_dims->c;
    const int32_t num_elem_right = num_elem_left - input_dims->c;
    return MAX(num_elem_left + pad_size_left, num_elem_right + pad_size_right);
}

int32_t arm_convolve_1_x_n_s8_get_buffer_size(const cmsis_nn_conv_params *conv_params,
                                              const cmsis_nn_dims *input_dims,
                                              const cmsis_nn_dims *filter_dims,
                                              const cmsis_nn_dims *output_dims)
{
#if defined(ARM_NN_USE_MVE)
    return arm_convolve_1_x_n_s8_get_buffer_size_mve(conv_params, input_dims, filter_dims, output_dims);
#else
    (void)conv_params;
    (void)output_dims;
    return arm_convolve_s8_get_buffer_size_dsp(input_dims, filter_dims);
#endif
}

/* Which kernel arm_convolve_wrapper_s8 runs; the size functions and the wrapper share this choice. */
typedef enum
{
    CONV_1X1_FAST,
    CONV_1X1,
    CONV_1_X_N,
    CONV_GENERAL
} conv_kind;

static conv_kind choose(const cmsis_nn_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f)
{
    if (f->c != in->c) {
        return CONV_GENERAL; /* grouped */
    }
    if (p->padding.w == 0 && p->padding.h == 0 && f->w == 1 && f->h == 1 && p->dilation.w == 1 && p->dilation.h == 1) {
        return (p->stride.w == 1 && p->stride.h == 1) ? CONV_1X1_FAST : CONV_1X1;
    }
    if (in->h == 1 && p->dilation.w == 1 && f->h == 1 && (p->stride.w * in->c) % 4 == 0) {
        return CONV_1_X_N;
    }
    return CONV_GENERAL;
}

int32_t arm_convolve_wrapper_s8_get_buffer_size_dsp(const cmsis_nn_conv_params *conv_params,
                                                    const cmsis_nn_dims *input_dims,
                                                    const cmsis_nn_dims *filter_dims,
                                                    const cmsis_nn_dims *output_dims)
{
    (void)output_dims;
    switch (choose(conv_params, input_dims, filter_dims)) {
    case CONV_1X1_FAST:
    case CONV_1X1:
        return 0;
    default: /* the DSP 1xN kernel needs what the general one does */
        return arm_convolve_s8_get_buffer_size_dsp(input_dims, filter_dims);
    }
}

int32_t arm_convolve_wrapper_s8_get_buffer_size_mve(const cmsis_nn_conv_params *conv_params,
                                                    const cmsis_nn_dims *input_dims,
                                                    const cmsis_nn_dims *filter_dims,
                                                    const cmsis_nn_dims *output_dims)
{
    switch (choose(conv_params, input_dims, filter_dims)) {
    case CONV_1X1_FAST:
    case CONV_1X1:
        return 0;
    case CONV_1_X_N:
        return arm_convolve_1_x_n_s8_get_buffer_size_mve(conv_params, input_dims, filter_dims, output_dims);
    default:
        return arm_convolve_s8_get_buffer_size_mve(input_dims, filter_dims);
    }
}

int32_t arm_convolve_wrapper_s8_get_buffer_size(const cmsis_nn_conv_params *conv_params,
                                                const cmsis_nn_dims *input_dims,
                                                const cmsis_nn_dims *filter_dims,
                                                const cmsis_nn_dims *output_dims)
{
#if defined(ARM_NN_USE_MVE)
    return arm_convolve_wrapper_s8_get_buffer_size_mve(conv_params, input_dims, filter_dims, output_dims);
#else
    return arm_convolve_wrapper_s8_get_buffer_size_dsp(conv_params, input_dims, filter_dims, output_dims);
#endif
}
