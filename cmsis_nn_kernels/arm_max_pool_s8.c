/* NHWC int8 max pooling. Each output pixel starts as a copy of the first valid input pixel of its window
 * and takes the lane-wise max of the others; the activation clamp runs once over the batch at the end. */
#include <string.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

/* base[i] = max(base[i], other[i]) for i < len. */
static void max_into(int8_t *base, const int8_t *other, int32_t len)
{
    int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    for (; i < len; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(len - i));
        vstrbq_p_s8(base + i, vmaxq_s8(vldrbq_z_s8(base + i, p), vldrbq_z_s8(other + i, p)), p);
    }
#elif defined(__ARM_FEATURE_DSP)
    /* SSUB8 sets one GE flag per byte where a >= b; SEL then picks a there and b elsewhere. */
    for (; i + 4 <= len; i += 4) {
        int32_t a, b;
        memcpy(&a, base + i, 4);
        memcpy(&b, other + i, 4);
        (void)__ssub8(a, b);
        const int32_t m = (int32_t)__sel(a, b);
        memcpy(base + i, &m, 4);
    }
#endif
    for (; i < len; i++) {
        base[i] = MAX(base[i], other[i]);
    }
}

static void clamp_s8(int8_t *data, int32_t len, int32_t act_min, int32_t act_max)
{
    int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    const int8x16_t lo = vdupq_n_s8((int8_t)act_min), hi = vdupq_n_s8((int8_t)act_max);
    for (; i < len; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(len - i));
        vstrbq_p_s8(data + i, vminq_s8(vmaxq_s8(vldrbq_z_s8(data + i, p), lo), hi), p);
    }
#elif defined(__ARM_FEATURE_DSP)
    const uint32_t lo = 0x01010101u * (uint8_t)act_min, hi = 0x01010101u * (uint8_t)act_max;
    for (; i + 4 <= len; i += 4) {
        int32_t v;
        memcpy(&v, data + i, 4);
        (void)__ssub8(v, lo);
        v = (int32_t)__sel(v, lo);
        (void)__ssub8(hi, v);
        v = (int32_t)__sel(v, hi);
        memcpy(data + i, &v, 4);
    }
#endif
    for (; i < len; i++) {
        data[i] = (int8_t)CLAMP(data[i], act_max, act_min);
    }
}

arm_cmsis_nn_status arm_max_pool_s8(const cmsis_nn_context *ctx,
                                    const cmsis_nn_pool_params *pool_params,
                                    const cmsis_nn_dims *input_dims,
                                    const int8_t *input_data,
                                    const cmsis_nn_dims *filter_dims,
                                    const cmsis_nn_dims *output_dims,
                                    int8_t *output_data)
{
    (void)ctx;
    const int32_t in_h = input_dims->h, in_w = input_dims->w, ch = input_dims->c;
    const int32_t out_h = output_dims->h, out_w = output_dims->w;
    const int32_t stride_h = pool_params->stride.h, stride_w = pool_params->stride.w;
    const int32_t pad_h = pool_params->padding.h, pad_w = pool_params->padding.w;

    for (int32_t b = 0; b < input_dims->n; b++) {
        const int8_t *src = input_data + b * in_h * in_w * ch;
        int8_t *dst = output_data + b * out_h * out_w * ch;
        for (int32_t oy = 0; oy < out_h; oy++) {
            const int32_t y0 = MAX(0, oy * stride_h - pad_h);
            const int32_t y1 = MIN(in_h, oy * stride_h - pad_h + filter_dims->h);
            for (int32_t ox = 0; ox < out_w; ox++) {
                const int32_t x0 = MAX(0, ox * stride_w - pad_w);
                const int32_t x1 = MIN(in_w, ox * stride_w - pad_w + filter_dims->w);
                int8_t *out = dst + (oy * out_w + ox) * ch;
                if (y0 >= y1 || x0 >= x1) {
                    return ARM_CMSIS_NN_ARG_ERROR; /* a window wholly in the padding has no maximum */
                }
                memcpy(out, src + (y0 * in_w + x0) * ch, (size_t)ch);
                for (int32_t y = y0; y < y1; y++) {
                    for (int32_t x = (y == y0 ? x0 + 1 : x0); x < x1; x++) {
                        max_into(out, src + (y * in_w + x) * ch, ch);
                    }
                }
            }
        }
        clamp_s8(dst, out_h * out_w * ch, pool_params->activation.min, pool_params->activation.max);
    }
    return ARM_CMSIS_NN_SUCCESS;
}
