/* Elementwise int8 add, TFLite's quantized ADD: both inputs are brought to a common scale (left shift for
 * headroom, then each input's own requantization), summed in int32 and requantized to the output. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

typedef struct
{
    int32_t off1, mult1, shift1, off2, mult2, shift2, left_shift, out_off, out_mult, out_shift, act_min, act_max;
} add_params;

/* One output from the two offset-added inputs; every path ends here (or in its vector twin). */
static inline int8_t add_one(const add_params *p, int32_t a, int32_t b)
{
    a = arm_nn_requantize((int32_t)((uint32_t)a << p->left_shift), p->mult1, p->shift1);
    b = arm_nn_requantize((int32_t)((uint32_t)b << p->left_shift), p->mult2, p->shift2);
    int32_t sum = arm_nn_requantize(a + b, p->out_mult, p->out_shift) + p->out_off;
    return (int8_t)CLAMP(sum, p->act_max, p->act_min);
}

arm_cmsis_nn_status arm_elementwise_add_s8(const int8_t *input_1_vect,
                                           const int8_t *input_2_vect,
                                           const int32_t input_1_offset,
                                           const int32_t input_1_mult,
                                           const int32_t input_1_shift,
                                           const int32_t input_2_offset,
                                           const int32_t input_2_mult,
                                           const int32_t input_2_shift,
                                           const int32_t left_shift,
                                           int8_t *output,
                                           const int32_t out_offset,
                                           const int32_t out_mult,
                                           const int32_t out_shift,
                                           const int32_t out_activation_min,
                                           const int32_t out_activation_max,
                                           const int32_t block_size)
{
    const add_params p = {input_1_offset, input_1_mult,  input_1_shift,      input_2_offset,
                          input_2_mult,   input_2_shift, left_shift,         out_offset,
                          out_mult,       out_shift,     out_activation_min, out_activation_max};
    int32_t i = 0;
#if defined(ARM_NN_USE_MVE)
    for (; i < block_size; i += 4) {
        const mve_pred16_t pred = vctp32q((uint32_t)(block_size - i));
        int32x4_t a = vaddq_n_s32(vldrbq_z_s32(input_1_vect + i, pred), input_1_offset);
        int32x4_t b = vaddq_n_s32(vldrbq_z_s32(input_2_vect + i, pred), input_2_offset);
        a = arm_nn_requantize_mve(vshlq_s32(a, vdupq_n_s32(left_shift)), input_1_mult, input_1_shift);
        b = arm_nn_requantize_mve(vshlq_s32(b, vdupq_n_s32(left_shift)), input_2_mult, input_2_shift);
        int32x4_t sum = vaddq_n_s32(arm_nn_requantize_mve(vaddq_s32(a, b), out_mult, out_shift), out_offset);
        sum = vminq_s32(vmaxq_s32(sum, vdupq_n_s32(out_activation_min)), vdupq_n_s32(out_activation_max));
        vstrbq_p_s32(output + i, sum, pred);
    }
#elif defined(ARM_NN_USE_DSP)
    /* Four lanes per word, as offset-added int16 pairs. */
    for (; i + 4 <= block_size; i += 4) {
        int32_t even1, odd1, even2, odd2;
        arm_nn_s8x4_offset_s16x2(input_1_vect + i, input_1_offset, &even1, &odd1);
        arm_nn_s8x4_offset_s16x2(input_2_vect + i, input_2_offset, &even2, &odd2);
        output[i + 0] = add_one(&p, (int16_t)even1, (int16_t)even2);
        output[i + 1] = add_one(&p, (int16_t)odd1, (int16_t)odd2);
        output[i + 2] = add_one(&p, even1 >> 16, even2 >> 16);
        output[i + 3] = add_one(&p, odd1 >> 16, odd2 >> 16);
    }
#endif
    for (; i < block_size; i++) {
        output[i] = add_one(&p, input_1_vect[i] + input_1_offset, input_2_vect[i] + input_2_offset);
    }
    return ARM_CMSIS_NN_SUCCESS;
}
