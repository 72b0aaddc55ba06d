/* cortex_m::quantized_activation.out via arm_quantized_activation_s8: out[i] = lut[in[i] + 128], lut int8[256].
 * The table (sigmoid, tanh, ... with the input and output quantization folded in) is built ahead of time.
 * CMSIS-NN has no such function: with an installed CMSIS-NN the firmware still links ours, declared here so
 * the kernel compiles against either header. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

#define A(name) MX_ARG_cortex_m_quantized_activation_##name

arm_cmsis_nn_status arm_quantized_activation_s8(const int8_t *input, const int8_t *lut, int8_t *output,
                                                const int32_t block_size);

mx_arg_error mx_k_cortex_m_quantized_activation_out_check(mx_value *const *args) {
  const mx_tensor *in = mx_arg_tensor(args, A(input)), *lut = mx_arg_tensor(args, A(lut));
  const mx_tensor *out = mx_arg_tensor(args, A(out));
  MX_TRY(mx_check_arg_tensor(args, A(lut), MX_DTYPE_I8));
  MX_REFUSE_IF(in->dtype != MX_DTYPE_I8, A(input), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(out->dtype != MX_DTYPE_I8, A(out), MX_ERR_BAD_DTYPE);
  MX_REFUSE_IF(lut->numel != 256, A(lut), MX_ERR_BAD_SHAPE);
  MX_REFUSE_IF(!mx_cm_same_memory(in, out), A(out), MX_ERR_BAD_SHAPE);
  return MX_OK;
}

mx_error mx_k_cortex_m_quantized_activation_out(mx_kernel_ctx *ctx, mx_value *const *args) {
  (void)ctx;
  const mx_tensor *in = mx_arg_tensor(args, A(input));
  return mx_cm_status(arm_quantized_activation_s8((const int8_t *)in->data,
                                                  (const int8_t *)mx_arg_tensor(args, A(lut))->data,
                                                  (int8_t *)mx_arg_tensor(args, A(out))->data, (int32_t)in->numel));
}
