/* Elementwise int8 maximum or minimum of two NHWC tensors, either one repeated along its dims of size 1 (TFLite's
 * MAXIMUM/MINIMUM: operands and output share one quantization, so raw values compare). The body of
 * arm_maximum_s8 and arm_minimum_s8. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

static inline int8_t pick(int8_t a, int8_t b, int32_t take_max)
{
    return (take_max ? a >= b : a <= b) ? a : b;
}

static void same_shape(const int8_t *in_1, const int8_t *in_2, int8_t *out, int32_t size, int32_t take_max)
{
    int32_t i = 0;
#if defined(ARM_NN_USE_MVE)
    for (; i < size; i += 16) {
        const mve_pred16_t pred = vctp8q((uint32_t)(size - i));
        const int8x16_t a = vldrbq_z_s8(in_1 + i, pred);
        const int8x16_t b = vldrbq_z_s8(in_2 + i, pred);
        vstrbq_p_s8(out + i, take_max ? vmaxq_s8(a, b) : vminq_s8(a, b), pred);
    }
#else
    for (; i < size; ++i) {
        out[i] = pick(in_1[i], in_2[i], take_max);
    }
#endif
}

/* Elements to advance per step of each NHWC dim: 0 along a dim the tensor repeats. */
static void strides(const cmsis_nn_dims *d, int32_t s[4])
{
    s[3] = d->c == 1 ? 0 : 1;
    s[2] = d->w == 1 ? 0 : d->c;
    s[1] = d->h == 1 ? 0 : d->w * d->c;
    s[0] = d->n == 1 ? 0 : d->h * d->w * d->c;
}

static int32_t same_dims(const cmsis_nn_dims *a, const cmsis_nn_dims *b)
{
    return a->n == b->n && a->h == b->h && a->w == b->w && a->c == b->c;
}

arm_cmsis_nn_status arm_nn_elementwise_min_max_s8(const int8_t *input_1_data,
                                                  const cmsis_nn_dims *input_1_dims,
                                                  const int8_t *input_2_data,
                                                  const cmsis_nn_dims *input_2_dims,
                                                  int8_t *output_data,
                                                  const cmsis_nn_dims *output_dims,
                                                  const int32_t take_max)
{
    const cmsis_nn_dims *o = output_dims;
    if (same_dims(input_1_dims, o) && same_dims(input_2_dims, o)) {
        same_shape(input_1_data, input_2_data, output_data, o->n * o->h * o->w * o->c, take_max);
        return ARM_CMSIS_NN_SUCCESS;
    }
    int32_t s1[4], s2[4];
    strides(input_1_dims, s1);
    strides(input_2_dims, s2);
    for (int32_t n = 0; n < o->n; ++n) {
        for (int32_t h = 0; h < o->h; ++h) {
            for (int32_t w = 0; w < o->w; ++w) {
                const int8_t *a = input_1_data + n * s1[0] + h * s1[1] + w * s1[2];
                const int8_t *b = input_2_data + n * s2[0] + h * s2[1] + w * s2[2];
                for (int32_t c = 0; c < o->c; ++c) {
                    *output_data++ = pick(a[c * s1[3]], b[c * s2[3]], take_max);
                }
            }
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
