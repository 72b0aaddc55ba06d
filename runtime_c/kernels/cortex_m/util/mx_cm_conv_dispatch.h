#ifndef MX_CM_CONV_DISPATCH_H
#define MX_CM_CONV_DISPATCH_H
/* Which CMSIS-NN function runs a convolution, a depthwise convolution or a fully connected layer, and the
 * scratch it needs.
 *
 * CMSIS-NN's wrappers choose among all their variants at run time, so calling a wrapper links every
 * variant. A model's firmware knows its convolutions ahead of time: it defines mx_cm_conv_s8 and
 * mx_cm_dw_conv_s8 in model/mx_model_cmsis_nn.c (codegen/model/), calling only the variants the wrappers
 * would pick for that model, and the host build defines them as the wrappers themselves
 * (mx_cm_conv_dispatch_wrappers.c). Both pick with mx_cm_conv_kind / mx_cm_dw_conv_kind, the wrappers'
 * own rules; a variant that the firmware left out answers ARM_CMSIS_NN_NO_IMPL_ERROR. The buffer sizes
 * are those of the chosen variant (what the wrapper's _get_buffer_size returns for it, or less). */
#include "arm_nnfunctions.h"

typedef enum { MX_CM_CONV_1X1_FAST, MX_CM_CONV_1X1, MX_CM_CONV_1_X_N, MX_CM_CONV_GENERAL } mx_cm_conv_kind;
typedef enum { MX_CM_DW_3X3, MX_CM_DW_OPT, MX_CM_DW_GENERAL } mx_cm_dw_kind;

/* arm_convolve_wrapper_s8's choice. */
mx_cm_conv_kind mx_cm_conv_kind_of(const cmsis_nn_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f);

/* arm_depthwise_conv_wrapper_s8's choice on the target being compiled (no 3x3 kernel on MVE). */
mx_cm_dw_kind mx_cm_dw_conv_kind_of(const cmsis_nn_dw_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f,
                                    const cmsis_nn_dims *out);

int32_t mx_cm_conv_s8_buffer_size(const cmsis_nn_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f,
                                  const cmsis_nn_dims *out);
arm_cmsis_nn_status mx_cm_conv_s8(const cmsis_nn_context *ctx, const cmsis_nn_conv_params *p,
                                  const cmsis_nn_per_channel_quant_params *q, const cmsis_nn_dims *in_dims,
                                  const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                  const cmsis_nn_dims *bias_dims, const int32_t *bias, const cmsis_nn_dims *out_dims,
                                  int8_t *out);

int32_t mx_cm_dw_conv_s8_buffer_size(const cmsis_nn_dw_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f,
                                     const cmsis_nn_dims *out);
arm_cmsis_nn_status mx_cm_dw_conv_s8(const cmsis_nn_context *ctx, const cmsis_nn_dw_conv_params *p,
                                     const cmsis_nn_per_channel_quant_params *q, const cmsis_nn_dims *in_dims,
                                     const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                     const cmsis_nn_dims *bias_dims, const int32_t *bias, const cmsis_nn_dims *out_dims,
                                     int8_t *out);

/* Fully connected, per-tensor (arm_fully_connected_s8) or per-channel (arm_fully_connected_per_channel_s8)
 * requantization: the model's firmware defines the one its layers use and the other as a refusal, so that only
 * one library path is linked (a per-tensor layer's code is ~700 B on Cortex-M55). */
arm_cmsis_nn_status mx_cm_fc_s8(const cmsis_nn_context *ctx, const cmsis_nn_fc_params *p,
                                const cmsis_nn_per_tensor_quant_params *q, const cmsis_nn_dims *in_dims,
                                const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                const cmsis_nn_dims *bias_dims, const int32_t *bias, const cmsis_nn_dims *out_dims,
                                int8_t *out);
arm_cmsis_nn_status mx_cm_fc_per_channel_s8(const cmsis_nn_context *ctx, const cmsis_nn_fc_params *p,
                                            const cmsis_nn_per_channel_quant_params *q, const cmsis_nn_dims *in_dims,
                                            const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                            const cmsis_nn_dims *bias_dims, const int32_t *bias,
                                            const cmsis_nn_dims *out_dims, int8_t *out);

#endif
