/* Constant padding of an NHWC int8 tensor, written front to back: runs of pad_value and copied input rows. */
#include <string.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

/* Writes len bytes of value at *out and advances it. */
static void fill(int8_t **out, int8_t value, int32_t len)
{
    int8_t *dst = *out;
    int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    const int8x16_t v = vdupq_n_s8(value);
    for (; i < len; i += 16) {
        vstrbq_p_s8(dst + i, v, vctp8q((uint32_t)(len - i)));
    }
#elif defined(__ARM_FEATURE_DSP)
    const uint32_t word = 0x01010101u * (uint8_t)value;
    for (; i + 4 <= len; i += 4) {
        memcpy(dst + i, &word, 4);
    }
#endif
    for (; i < len; i++) {
        dst[i] = value;
    }
    *out = dst + MAX(len, 0);
}

/* Copies len bytes from *in to *out and advances both. */
static void copy(int8_t **out, const int8_t **in, int32_t len)
{
    int8_t *dst = *out;
    const int8_t *src = *in;
    int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    for (; i < len; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(len - i));
        vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, p), p);
    }
#elif defined(__ARM_FEATURE_DSP)
    for (; i + 4 <= len; i += 4) {
        uint32_t w;
        memcpy(&w, src + i, 4);
        memcpy(dst + i, &w, 4);
    }
#endif
    for (; i < len; i++) {
        dst[i] = src[i];
    }
    *out = dst + MAX(len, 0);
    *in = src + MAX(len, 0);
}

arm_cmsis_nn_status arm_pad_s8(const int8_t *input,
                               int8_t *output,
                               const int8_t pad_value,
                               const cmsis_nn_dims *input_size,
                               const cmsis_nn_dims *pre_pad,
                               const cmsis_nn_dims *post_pad)
{
    const int32_t out_h = pre_pad->h + input_size->h + post_pad->h;
    const int32_t out_w = pre_pad->w + input_size->w + post_pad->w;
    const int32_t out_c = pre_pad->c + input_size->c + post_pad->c;
    const int32_t pixel = out_c, row = out_w * out_c, image = out_h * row;

    fill(&output, pad_value, pre_pad->n * image);
    for (int32_t b = 0; b < input_size->n; b++) {
        fill(&output, pad_value, pre_pad->h * row);
        for (int32_t y = 0; y < input_size->h; y++) {
            fill(&output, pad_value, pre_pad->w * pixel);
            if (out_c == input_size->c) { /* no channel padding: the whole input row is one run */
                copy(&output, &input, input_size->w * input_size->c);
            } else {
                for (int32_t x = 0; x < input_size->w; x++) {
                    fill(&output, pad_value, pre_pad->c);
                    copy(&output, &input, input_size->c);
                    fill(&output, pad_value, post_pad->c);
                }
            }
            fill(&output, pad_value, post_pad->w * pixel);
        }
        fill(&output, pad_value, post_pad->h * row);
    }
    fill(&output, pad_value, post_pad->n * image);
    return ARM_CMSIS_NN_SUCCESS;
}
