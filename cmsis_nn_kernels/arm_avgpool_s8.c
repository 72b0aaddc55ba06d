/* NHWC int8 average pooling over the valid (unpadded) part of each window: the window's int32 sum is
 * divided by its count rounding half away from zero, then clamped to the activation range. */
#include <string.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

static inline int8_t average(int32_t sum, int32_t count, int32_t act_min, int32_t act_max)
{
    const int32_t half = count / 2;
    const int32_t avg = (sum > 0 ? sum + half : sum - half) / count;
    return (int8_t)CLAMP(avg, act_max, act_min);
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
/* Sixteen channels at a time, widened to four int32x4 accumulators; MVE has no integer divide, so the
 * rounding division runs lane by lane through average(). */
static void pool_pixel(const int8_t *src,
                       int32_t in_w,
                       int32_t ch,
                       int32_t y0,
                       int32_t y1,
                       int32_t x0,
                       int32_t x1,
                       int8_t *out,
                       int32_t act_min,
                       int32_t act_max,
                       int32_t *scratch)
{
    (void)scratch;
    const int32_t count = (y1 - y0) * (x1 - x0);
    for (int32_t c = 0; c < ch; c += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(ch - c));
        int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
        for (int32_t y = y0; y < y1; y++) {
            for (int32_t x = x0; x < x1; x++) {
                const int8x16_t v = vldrbq_z_s8(src + (y * in_w + x) * ch + c, p);
                const int16x8_t even = vmovlbq_s8(v), odd = vmovltq_s8(v);
                acc[0] = vaddq_s32(acc[0], vmovlbq_s16(even)); /* channels c + 0, 4, 8, 12 */
                acc[1] = vaddq_s32(acc[1], vmovltq_s16(even)); /* c + 2, 6, 10, 14 */
                acc[2] = vaddq_s32(acc[2], vmovlbq_s16(odd));  /* c + 1, 5, 9, 13 */
                acc[3] = vaddq_s32(acc[3], vmovltq_s16(odd));  /* c + 3, 7, 11, 15 */
            }
        }
        static const int32_t first_channel[4] = {0, 2, 1, 3};
        for (int32_t k = 0; k < 4; k++) {
            int32_t sums[4];
            vst1q_s32(sums, acc[k]);
            for (int32_t lane = 0; lane < 4; lane++) {
                const int32_t idx = c + first_channel[k] + 4 * lane;
                if (idx < ch) {
                    out[idx] = average(sums[lane], count, act_min, act_max);
                }
            }
        }
    }
}
#elif defined(__ARM_FEATURE_DSP)
/* Channel sums in the int32 scratch buffer; SXTB16 widens four channels into two int16 pairs per word. */
static void pool_pixel(const int8_t *src,
                       int32_t in_w,
                       int32_t ch,
                       int32_t y0,
                       int32_t y1,
                       int32_t x0,
                       int32_t x1,
                       int8_t *out,
                       int32_t act_min,
                       int32_t act_max,
                       int32_t *scratch)
{
    const int32_t count = (y1 - y0) * (x1 - x0);
    memset(scratch, 0, (size_t)ch * sizeof(int32_t));
    for (int32_t y = y0; y < y1; y++) {
        for (int32_t x = x0; x < x1; x++) {
            const int8_t *in = src + (y * in_w + x) * ch;
            int32_t c = 0;
            for (; c + 4 <= ch; c += 4) {
                uint32_t w;
                memcpy(&w, in + c, 4);
                const int32_t even = __sxtb16(w), odd = __sxtb16(arm_nn_ror8(w));
                scratch[c + 0] += (int16_t)even;
                scratch[c + 1] += (int16_t)odd;
                scratch[c + 2] += even >> 16;
                scratch[c + 3] += odd >> 16;
            }
            for (; c < ch; c++) {
                scratch[c] += in[c];
            }
        }
    }
    for (int32_t c = 0; c < ch; c++) {
        out[c] = average(scratch[c], count, act_min, act_max);
    }
}
#else
static void pool_pixel(const int8_t *src,
                       int32_t in_w,
                       int32_t ch,
                       int32_t y0,
                       int32_t y1,
                       int32_t x0,
                       int32_t x1,
                       int8_t *out,
                       int32_t act_min,
                       int32_t act_max,
                       int32_t *scratch)
{
    (void)scratch;
    const int32_t count = (y1 - y0) * (x1 - x0);
    for (int32_t c = 0; c < ch; c++) {
        int32_t sum = 0;
        for (int32_t y = y0; y < y1; y++) {
            for (int32_t x = x0; x < x1; x++) {
                sum += src[(y * in_w + x) * ch + c];
            }
        }
        out[c] = average(sum, count, act_min, act_max);
    }
}
#endif

arm_cmsis_nn_status arm_avgpool_s8(const cmsis_nn_context *ctx,
                                   const cmsis_nn_pool_params *pool_params,
                                   const cmsis_nn_dims *input_dims,
                                   const int8_t *input_data,
                                   const cmsis_nn_dims *filter_dims,
                                   const cmsis_nn_dims *output_dims,
                                   int8_t *output_data)
{
    const int32_t in_h = input_dims->h, in_w = input_dims->w, ch = input_dims->c;
    const int32_t out_h = output_dims->h, out_w = output_dims->w;
    const int32_t stride_h = pool_params->stride.h, stride_w = pool_params->stride.w;
    const int32_t pad_h = pool_params->padding.h, pad_w = pool_params->padding.w;
    int32_t *scratch = ctx != NULL ? (int32_t *)ctx->buf : NULL;
    if (scratch == NULL && arm_avgpool_s8_get_buffer_size(out_w, ch) > 0) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }

    for (int32_t b = 0; b < input_dims->n; b++) {
        const int8_t *src = input_data + b * in_h * in_w * ch;
        int8_t *dst = output_data + b * out_h * out_w * ch;
        for (int32_t oy = 0; oy < out_h; oy++) {
            const int32_t y0 = MAX(0, oy * stride_h - pad_h);
            const int32_t y1 = MIN(in_h, oy * stride_h - pad_h + filter_dims->h);
            for (int32_t ox = 0; ox < out_w; ox++) {
                const int32_t x0 = MAX(0, ox * stride_w - pad_w);
                const int32_t x1 = MIN(in_w, ox * stride_w - pad_w + filter_dims->w);
                if (y0 >= y1 || x0 >= x1) {
                    return ARM_CMSIS_NN_ARG_ERROR; /* an empty window has no average */
                }
                pool_pixel(src, in_w, ch, y0, y1, x0, x1, dst + (oy * out_w + ox) * ch, pool_params->activation.min,
                           pool_params->activation.max, scratch);
            }
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
