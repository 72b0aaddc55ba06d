/* Table-lookup activation: any int8 -> int8 function (sigmoid, tanh, hardswish, ...) as 256 entries built
 * on the host from the input and output quantization; out[i] = lut[in[i] + 128], ExecuTorch's
 * cortex_m::quantized_activation. */
#include <string.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

arm_cmsis_nn_status arm_quantized_activation_s8(const int8_t *input,
                                                const int8_t *lut,
                                                int8_t *output,
                                                const int32_t block_size)
{
    int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    /* Sixteen byte gathers per instruction: the 8-bit offset in + 128 is the input's bit pattern with its
     * top bit flipped. */
    const uint8_t *table = (const uint8_t *)lut;
    for (; i < block_size; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(block_size - i));
        const uint8x16_t idx = veorq_u8(vldrbq_z_u8((const uint8_t *)input + i, p), vdupq_n_u8(0x80));
        vstrbq_p_u8((uint8_t *)output + i, vldrbq_gather_offset_z_u8(table, idx, p), p);
    }
#elif defined(__ARM_FEATURE_DSP)
    /* One word in, four lookups, one word out: halves the memory operations of the byte loop. */
    for (; i + 4 <= block_size; i += 4) {
        uint32_t w;
        memcpy(&w, input + i, 4);
        w ^= 0x80808080u;
        const uint32_t r = (uint32_t)(uint8_t)lut[w & 0xFF] | (uint32_t)(uint8_t)lut[(w >> 8) & 0xFF] << 8 |
                           (uint32_t)(uint8_t)lut[(w >> 16) & 0xFF] << 16 | (uint32_t)(uint8_t)lut[w >> 24] << 24;
        memcpy(output + i, &r, 4);
    }
#endif
    for (; i < block_size; i++) {
        output[i] = lut[input[i] + 128];
    }
    return ARM_CMSIS_NN_SUCCESS;
}
