/* Up to four neighbouring output pixels of one output row of a channel-multiplier-1 depthwise convolution, all
 * channels (MVE). Each weight vector (four channels of one tap) is loaded once for the four pixels, and the input
 * offset is not added per tap: sum (x + off) * w = sum x * w + off * sum w, with sum w taken over the same taps.
 * A tap outside the input (padding) reads a small buffer of zero points (x = -off) instead, whose contribution
 * -off * w + off * w is 0 as the padding's must be; so border pixels run the same loop as interior ones. Rows of
 * taps outside the input are left out by the caller (the same for the whole output row).
 * Loop order: channel block, tap column (where a pixel's tap is inside or not stays the same down the column),
 * tap row: each pixel's input pointer then steps by one input row, or by 0 on the zero-point buffer. */
#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_MVE)

#define GROUP 4
#define CHUNK 64 /* channels per pass over the taps' pointer table: the zero-point buffer's size */

/* arm_nn_requantize_mve_32x4 with its shift split once per block, the output offset, the clamp, four bytes out. */
typedef struct
{
    int32x4_t mult, left, right;
    int32_t out_offset, lo, hi;
} requant;

static inline __attribute__((always_inline)) void store(int32x4_t acc, const requant *q, int8_t *out)
{
    acc = vqrdmulhq_s32(vshlq_s32(acc, q->left), q->mult);
    acc = vrshlq_s32(vqaddq_s32(acc, vshrq_n_s32(vandq_s32(acc, q->right), 31)), q->right);
    acc = vaddq_n_s32(acc, q->out_offset);
    acc = vminq_s32(vmaxq_s32(acc, vdupq_n_s32(q->lo)), vdupq_n_s32(q->hi));
    vstrbq_s32(out, acc);
}

/* The n-pixel block of channels [c, c + 4); the tap table's pointers are those of channel c - rel. n is a constant
 * at each of the four call sites. */
static inline __attribute__((always_inline)) void block(const int n,
                                                        const arm_nn_dw_group_args *g,
                                                        const int8_t *const *xs,
                                                        const int32_t *steps,
                                                        int32_t c,
                                                        int32_t rel,
                                                        int8_t *out)
{
    const int32_t ch = g->channels, k_w = g->kernel_w, w_row = k_w * ch;
    const int32x4_t b = g->bias ? vldrwq_s32(g->bias + c) : vdupq_n_s32(0);
    int32x4_t a0 = b, a1 = b, a2 = b, a3 = b, sum_w = vdupq_n_s32(0);
    const int8_t *w_col = g->kernel + c;
    for (int32_t kx = 0; kx < k_w; kx++, xs += GROUP, steps += GROUP, w_col += ch) {
        const int8_t *x0 = xs[0] + rel, *x1 = xs[1] + rel, *x2 = xs[2] + rel, *x3 = xs[3] + rel, *w = w_col;
        const int32_t s0 = steps[0], s1 = steps[1], s2 = steps[2], s3 = steps[3];
        for (int32_t ky = g->rows; ky > 0; ky--) {
            const int32x4_t wv = vldrbq_s32(w);
            w += w_row;
            sum_w = vaddq_s32(sum_w, wv);
            a0 = vaddq_s32(a0, vmulq_s32(vldrbq_s32(x0), wv));
            x0 += s0;
            if (n > 1) {
                a1 = vaddq_s32(a1, vmulq_s32(vldrbq_s32(x1), wv));
                x1 += s1;
            }
            if (n > 2) {
                a2 = vaddq_s32(a2, vmulq_s32(vldrbq_s32(x2), wv));
                x2 += s2;
            }
            if (n > 3) {
                a3 = vaddq_s32(a3, vmulq_s32(vldrbq_s32(x3), wv));
                x3 += s3;
            }
        }
    }
    /* Every field read before the first byte store (which may alias *g). */
    const int32x4_t shift = vldrwq_s32(g->shifts + c);
    const requant q = {vldrwq_s32(g->multipliers + c),
                       vmaxq_s32(shift, vdupq_n_s32(0)),
                       vminq_s32(shift, vdupq_n_s32(0)),
                       g->output_offset,
                       g->activation_min,
                       g->activation_max};
    const int32_t off = g->input_offset;
    a0 = vmlaq_n_s32(a0, sum_w, off);
    a1 = vmlaq_n_s32(a1, sum_w, off);
    a2 = vmlaq_n_s32(a2, sum_w, off);
    a3 = vmlaq_n_s32(a3, sum_w, off);
    out += c;
    store(a0, &q, out);
    if (n > 1) {
        store(a1, &q, out + ch);
    }
    if (n > 2) {
        store(a2, &q, out + 2 * ch);
    }
    if (n > 3) {
        store(a3, &q, out + 3 * ch);
    }
}

/* All channels of n pixels: chunk by chunk, the tap table (each pixel's pointer at each tap column, and its step
 * down the column), then the blocks of four channels; a last partial block is the chunk's last four channels
 * (recomputed, written again with the same values), which the zero-point buffer allows for from 3 bytes before. */
static inline __attribute__((always_inline)) void pixels(const int n, const arm_nn_dw_group_args *g, int8_t *out)
{
    const int32_t ch = g->channels, k_w = g->kernel_w;
    int8_t zero_points[4 + CHUNK];
    memset(zero_points, (int8_t)-g->input_offset, sizeof(zero_points));
    const int8_t *xs[ARM_NN_DW_GROUP_MAX_KW * GROUP];
    int32_t steps[ARM_NN_DW_GROUP_MAX_KW * GROUP];
    for (int32_t cc = 0; cc < ch; cc += CHUNK) {
        const int32_t cw = MIN(CHUNK, ch - cc);
        for (int32_t kx = 0; kx < k_w; kx++) {
            for (int k = 0; k < GROUP; k++) {
                const int32_t x = g->base_x + k * g->stride_x + kx * g->dilation_x;
                const int inside = k < n && x >= 0 && x < g->input_w;
                xs[kx * GROUP + k] = inside ? g->input + x * ch + cc : zero_points + 4;
                steps[kx * GROUP + k] = inside ? g->row_step : 0;
            }
        }
        for (int32_t c = 0; c < cw; c += 4) {
            const int32_t rel = MIN(c, cw - 4);
            block(n, g, xs, steps, cc + rel, rel, out);
        }
    }
}

void arm_nn_dw_conv_group_s8(const arm_nn_dw_group_args *g, int32_t n, int8_t *out)
{
    switch (n) {
    case 4:
        pixels(4, g, out);
        break;
    case 3:
        pixels(3, g, out);
        break;
    case 2:
        pixels(2, g, out);
        break;
    default:
        pixels(1, g, out);
        break;
    }
}

#endif
