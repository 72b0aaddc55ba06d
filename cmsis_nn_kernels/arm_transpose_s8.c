/* int8 transpose of up to four dimensions. The shape is padded in front to 4-D; the output is written in
 * order, and its innermost dimension reads the input either contiguously (a block copy) or with a fixed
 * stride (a gather). */
#include <string.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

static void copy_run(int8_t *dst, const int8_t *src, int32_t len, int32_t stride)
{
    int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    if (stride == 1) {
        for (; i < len; i += 16) {
            const mve_pred16_t p = vctp8q((uint32_t)(len - i));
            vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, p), p);
        }
    } else if (stride * 7 <= 0xFFFF) { /* eight byte gathers at 16-bit offsets 0, s, ..., 7s */
        const uint16x8_t offsets = vmulq_n_u16(vidupq_n_u16(0, 1), (uint16_t)stride);
        for (; i < len; i += 8) {
            const mve_pred16_t p = vctp16q((uint32_t)(len - i));
            const uint16x8_t v = vldrbq_gather_offset_z_u16((const uint8_t *)src + i * stride, offsets, p);
            vstrbq_p_u16((uint8_t *)dst + i, v, p);
        }
    }
#elif defined(__ARM_FEATURE_DSP)
    /* Four loads, one word store. */
    for (; i + 4 <= len; i += 4) {
        const int8_t *s = src + i * stride;
        const uint32_t w = (uint32_t)(uint8_t)s[0] | (uint32_t)(uint8_t)s[stride] << 8 |
                           (uint32_t)(uint8_t)s[2 * stride] << 16 | (uint32_t)(uint8_t)s[3 * stride] << 24;
        memcpy(dst + i, &w, 4);
    }
#endif
    for (; i < len; i++) {
        dst[i] = src[i * stride];
    }
}

arm_cmsis_nn_status arm_transpose_s8(const int8_t *input,
                                     int8_t *const output,
                                     const cmsis_nn_dims *const input_dims,
                                     const cmsis_nn_dims *const output_dims,
                                     const cmsis_nn_transpose_params *const transpose_params)
{
    const int32_t k = transpose_params->num_dims;
    if (k < 1 || k > 4) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const int32_t given_in[4] = {input_dims->n, input_dims->h, input_dims->w, input_dims->c};
    const int32_t given_out[4] = {output_dims->n, output_dims->h, output_dims->w, output_dims->c};
    const int32_t lead = 4 - k;
    int32_t dims[4], perm[4], in_stride[4], out_dims[4];
    uint32_t seen = 0;
    for (int32_t j = 0; j < 4; j++) {
        dims[j] = j < lead ? 1 : given_in[j - lead];
        perm[j] = j < lead ? j : (int32_t)transpose_params->permutations[j - lead] + lead;
        if ((j >= lead && perm[j] < lead) || perm[j] > 3 || (seen & (1U << perm[j]))) {
            return ARM_CMSIS_NN_ARG_ERROR;
        }
        seen |= 1U << perm[j];
    }
    for (int32_t j = 3, s = 1; j >= 0; j--) {
        in_stride[j] = s;
        s *= dims[j];
    }
    for (int32_t j = 0; j < 4; j++) {
        out_dims[j] = dims[perm[j]];
        if (j >= lead && out_dims[j] != given_out[j - lead]) {
            return ARM_CMSIS_NN_ARG_ERROR;
        }
    }

    int8_t *dst = output;
    for (int32_t a = 0; a < out_dims[0]; a++) {
        for (int32_t b = 0; b < out_dims[1]; b++) {
            for (int32_t c = 0; c < out_dims[2]; c++) {
                const int8_t *src = input + a * in_stride[perm[0]] + b * in_stride[perm[1]] + c * in_stride[perm[2]];
                copy_run(dst, src, out_dims[3], in_stride[perm[3]]);
                dst += out_dims[3];
            }
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
