/* Host builds: the convolutions go through CMSIS-NN's wrappers, which link every variant, and fully connected
 * layers reach both requantizations (firmware builds define these per model instead, see mx_cm_conv_dispatch.h). */
#include "mx_cm_conv_dispatch.h"

int32_t mx_cm_conv_s8_buffer_size(const cmsis_nn_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f,
                                  const cmsis_nn_dims *out) {
  return arm_convolve_wrapper_s8_get_buffer_size(p, in, f, out);
}

arm_cmsis_nn_status mx_cm_conv_s8(const cmsis_nn_context *ctx, const cmsis_nn_conv_params *p,
                                  const cmsis_nn_per_channel_quant_params *q, const cmsis_nn_dims *in_dims,
                                  const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                  const cmsis_nn_dims *bias_dims, const int32_t *bias, const cmsis_nn_dims *out_dims,
                                  int8_t *out) {
  return arm_convolve_wrapper_s8(ctx, p, q, in_dims, in, f_dims, f, bias_dims, bias, out_dims, out);
}

int32_t mx_cm_dw_conv_s8_buffer_size(const cmsis_nn_dw_conv_params *p, const cmsis_nn_dims *in, const cmsis_nn_dims *f,
                                     const cmsis_nn_dims *out) {
  return arm_depthwise_conv_wrapper_s8_get_buffer_size(p, in, f, out);
}

arm_cmsis_nn_status mx_cm_dw_conv_s8(const cmsis_nn_context *ctx, const cmsis_nn_dw_conv_params *p,
                                     const cmsis_nn_per_channel_quant_params *q, const cmsis_nn_dims *in_dims,
                                     const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                     const cmsis_nn_dims *bias_dims, const int32_t *bias, const cmsis_nn_dims *out_dims,
                                     int8_t *out) {
  return arm_depthwise_conv_wrapper_s8(ctx, p, q, in_dims, in, f_dims, f, bias_dims, bias, out_dims, out);
}

arm_cmsis_nn_status mx_cm_fc_s8(const cmsis_nn_context *ctx, const cmsis_nn_fc_params *p,
                                const cmsis_nn_per_tensor_quant_params *q, const cmsis_nn_dims *in_dims,
                                const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                const cmsis_nn_dims *bias_dims, const int32_t *bias, const cmsis_nn_dims *out_dims,
                                int8_t *out) {
  return arm_fully_connected_s8(ctx, p, q, in_dims, in, f_dims, f, bias_dims, bias, out_dims, out);
}

arm_cmsis_nn_status mx_cm_fc_per_channel_s8(const cmsis_nn_context *ctx, const cmsis_nn_fc_params *p,
                                            const cmsis_nn_per_channel_quant_params *q, const cmsis_nn_dims *in_dims,
                                            const int8_t *in, const cmsis_nn_dims *f_dims, const int8_t *f,
                                            const cmsis_nn_dims *bias_dims, const int32_t *bias,
                                            const cmsis_nn_dims *out_dims, int8_t *out) {
  return arm_fully_connected_per_channel_s8(ctx, p, q, in_dims, in, f_dims, f, bias_dims, bias, out_dims, out);
}
