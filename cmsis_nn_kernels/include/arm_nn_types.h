/* Types of the CMSIS-NN public API (v7.x layout), so that kernels written against these names link
 * unchanged with Arm's CMSIS-NN library and with ours. Field order and widths are the ABI: keep them. */
#ifndef ARM_NN_TYPES_H
#define ARM_NN_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef enum
{
    ARM_SIGMOID = 0,
    ARM_TANH = 1,
} arm_nn_activation_type;

typedef enum
{
    ARM_CMSIS_NN_SUCCESS = 0,
    ARM_CMSIS_NN_ARG_ERROR = -1,
    ARM_CMSIS_NN_NO_IMPL_ERROR = -2,
    ARM_CMSIS_NN_FAILURE = -3,
} arm_cmsis_nn_status;

typedef struct
{
    int32_t w;
    int32_t h;
} cmsis_nn_tile;

/* Scratch memory handed to a kernel; its size comes from the kernel's _get_buffer_size. */
typedef struct
{
    void *buf;
    int32_t size;
} cmsis_nn_context;

typedef struct
{
    const void *data;
    const bool is_int32_bias;
} cmsis_nn_bias_data;

/* n is the batch for activations, the output channels for conv filters, the accumulation depth for
 * fully-connected filters (whose c is then the output depth). */
typedef struct
{
    int32_t n;
    int32_t h;
    int32_t w;
    int32_t c;
} cmsis_nn_dims;

typedef struct
{
    int32_t *multiplier;
    int32_t *shift;
} cmsis_nn_per_channel_quant_params;

typedef struct
{
    int32_t multiplier;
    int32_t shift;
} cmsis_nn_per_tensor_quant_params;

typedef struct
{
    int32_t *multiplier;
    int32_t *shift;
    int32_t is_per_channel;
} cmsis_nn_quant_params;

typedef struct
{
    int32_t min;
    int32_t max;
} cmsis_nn_activation;

/* input_offset = -input_zero_point, output_offset = output_zero_point. */
typedef struct
{
    int32_t input_offset;
    int32_t output_offset;
    cmsis_nn_tile stride;
    cmsis_nn_tile padding;
    cmsis_nn_tile dilation;
    cmsis_nn_activation activation;
} cmsis_nn_conv_params;

typedef struct
{
    int32_t input_offset;
    int32_t output_offset;
    cmsis_nn_tile stride;
    cmsis_nn_tile padding;
    cmsis_nn_tile padding_offsets;
    cmsis_nn_tile dilation;
    cmsis_nn_activation activation;
} cmsis_nn_transpose_conv_params;

typedef struct
{
    int32_t input_offset;
    int32_t output_offset;
    int32_t ch_mult; /* output channels = ch_mult * input channels */
    cmsis_nn_tile stride;
    cmsis_nn_tile padding;
    cmsis_nn_tile dilation;
    cmsis_nn_activation activation;
} cmsis_nn_dw_conv_params;

typedef struct
{
    cmsis_nn_tile stride;
    cmsis_nn_tile padding;
    cmsis_nn_activation activation;
} cmsis_nn_pool_params;

typedef struct
{
    int32_t input_offset;
    int32_t filter_offset; /* -filter_zero_point */
    int32_t output_offset;
    cmsis_nn_activation activation;
} cmsis_nn_fc_params;

typedef struct
{
    const bool adj_x;
    const bool adj_y;
    cmsis_nn_fc_params fc_params;
} cmsis_nn_bmm_params;

typedef struct
{
    const int32_t num_dims;
    const uint32_t *permutations;
} cmsis_nn_transpose_params;

typedef struct
{
    int32_t rank;
    int32_t input_offset;
    int32_t output_offset;
    cmsis_nn_activation input_activation;
    cmsis_nn_activation output_activation;
} cmsis_nn_svdf_params;

typedef struct
{
    const int16_t *exp_lut;
    const int16_t *one_by_one_lut;
} cmsis_nn_softmax_lut_s16;

typedef struct
{
    int32_t multiplier;
    int32_t shift;
} cmsis_nn_scaling;

#endif /* ARM_NN_TYPES_H */
