/* Elementwise int8 multiply, TFLite's quantized MUL: (in1 + off1) * (in2 + off2) requantized once. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

static inline int8_t mul_one(
    int32_t prod, int32_t out_offset, int32_t out_mult, int32_t out_shift, int32_t act_min, int32_t act_max)
{
    const int32_t out = arm_nn_requantize(prod, out_mult, out_shift) + out_offset;
    return (int8_t)CLAMP(out, act_max, act_min);
}

arm_cmsis_nn_status arm_elementwise_mul_s8(const int8_t *input_1_vect,
                                           const int8_t *input_2_vect,
                                           const int32_t input_1_offset,
                                           const int32_t input_2_offset,
                                           int8_t *output,
                                           const int32_t out_offset,
                                           const int32_t out_mult,
                                           const int32_t out_shift,
                                           const int32_t out_activation_min,
                                           const int32_t out_activation_max,
                                           const int32_t block_size)
{
    int32_t i = 0;
#if defined(ARM_NN_USE_MVE)
    for (; i < block_size; i += 4) {
        const mve_pred16_t pred = vctp32q((uint32_t)(block_size - i));
        const int32x4_t a = vaddq_n_s32(vldrbq_z_s32(input_1_vect + i, pred), input_1_offset);
        const int32x4_t b = vaddq_n_s32(vldrbq_z_s32(input_2_vect + i, pred), input_2_offset);
        int32x4_t out = vaddq_n_s32(arm_nn_requantize_mve(vmulq_s32(a, b), out_mult, out_shift), out_offset);
        out = vminq_s32(vmaxq_s32(out, vdupq_n_s32(out_activation_min)), vdupq_n_s32(out_activation_max));
        vstrbq_p_s32(output + i, out, pred);
    }
#elif defined(ARM_NN_USE_DSP)
    /* Offset-added int16 pairs; the half-word products below compile to SMULBB/SMULTT. */
    for (; i + 4 <= block_size; i += 4) {
        int32_t even1, odd1, even2, odd2;
        arm_nn_s8x4_offset_s16x2(input_1_vect + i, input_1_offset, &even1, &odd1);
        arm_nn_s8x4_offset_s16x2(input_2_vect + i, input_2_offset, &even2, &odd2);
        output[i + 0] = mul_one((int16_t)even1 * (int16_t)even2, out_offset, out_mult, out_shift, out_activation_min,
                                out_activation_max);
        output[i + 1] = mul_one((int16_t)odd1 * (int16_t)odd2, out_offset, out_mult, out_shift, out_activation_min,
                                out_activation_max);
        output[i + 2] = mul_one((even1 >> 16) * (even2 >> 16), out_offset, out_mult, out_shift, out_activation_min,
                                out_activation_max);
        output[i + 3] = mul_one((odd1 >> 16) * (odd2 >> 16), out_offset, out_mult, out_shift, out_activation_min,
                                out_activation_max);
    }
#endif
    for (; i < block_size; i++) {
        const int32_t prod = (input_1_vect[i] + input_1_offset) * (input_2_vect[i] + input_2_offset);
        output[i] = mul_one(prod, out_offset, out_mult, out_shift, out_activation_min, out_activation_max);
    }
    return ARM_CMSIS_NN_SUCCESS;
}
