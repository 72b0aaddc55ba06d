/* cortex_m::quantized_activation.out via arm_quantized_activation_s8: out[i] = lut[in[i] + 128].
 * Args: (input, lut int8[256], out, ret). The table (sigmoid, tanh, ... with the input and output
 * quantization folded in) is built ahead of time. CMSIS-NN has no such function: with an installed
 * CMSIS-NN the firmware still links ours, declared here so the kernel compiles against either header. */
#include "arm_nnfunctions.h"
#include "util/mx_cm_args.h"

arm_cmsis_nn_status arm_quantized_activation_s8(const int8_t *input, const int8_t *lut, int8_t *output,
                                                const int32_t block_size);

mx_error mx_k_cortex_m_quantized_activation_out(mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  (void)ctx;
  if (nargs != 4) {
    return MX_ERR_BAD_ARG_COUNT;
  }
  mx_tensor *in = NULL, *lut = NULL, *out = NULL;
  MX_TRY(mx_arg_tensor(args[0], &in));
  MX_TRY(mx_arg_tensor(args[1], &lut));
  MX_TRY(mx_arg_tensor(args[2], &out));
  MX_TRY(mx_arg_ret_is(args[3], out));
  MX_TRY(mx_tensor_check(in));
  MX_TRY(mx_tensor_check(out));
  MX_TRY(mx_check_tensor(lut, MX_DTYPE_I8));
  if (in->dtype != MX_DTYPE_I8 || out->dtype != MX_DTYPE_I8) {
    return MX_ERR_BAD_DTYPE;
  }
  if (lut->numel != 256) {
    return MX_ERR_BAD_SHAPE;
  }
  if (!mx_cm_same_memory(in, out)) {
    return MX_ERR_BAD_SHAPE;
  }
  return mx_cm_status(arm_quantized_activation_s8((const int8_t *)in->data, (const int8_t *)lut->data,
                                                  (int8_t *)out->data, (int32_t)in->numel));
}
