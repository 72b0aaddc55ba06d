/* Up to four output pixels of a channel-multiplier-1 depthwise convolution, consecutive in the output (across rows
 * too) and sharing their tap rows inside the input, all channels (MVE). Each weight vector (four channels of one
 * tap) is loaded once for the four pixels, and the input offset is not added per tap: sum (x + off) * w =
 * sum x * w + off * sum w, with sum w taken over the same taps. A tap outside the input (padding) reads a small
 * buffer of zero points (x = -off) instead, whose contribution -off * w + off * w is 0 as the padding's must be, so
 * border pixels run the same loop as interior ones. Rows of taps outside the input are left out by the caller.
 * The taps run as one loop over a table of each tap's four input pointers (built once per group and 64-channel
 * chunk): no per-column or per-row bookkeeping in the loop, and few enough registers that nothing spills. */
#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_MVE)

#define GROUP 4
#define CHUNK 64 /* channels per pass over the tap table: the zero-point buffer's size */

typedef struct
{
    int32x4_t mult, left, right;
    int32_t out_offset, lo, hi;
} requant;

/* arm_nn_requantize_mve_32x4 with its shift split once per block, the output offset, the clamp, four bytes out. */
static inline __attribute__((always_inline)) void store(int32x4_t acc, const requant *q, int8_t *out)
{
    acc = vqrdmulhq_s32(vshlq_s32(acc, q->left), q->mult);
    acc = vrshlq_s32(vqaddq_s32(acc, vshrq_n_s32(vandq_s32(acc, q->right), 31)), q->right);
    acc = vaddq_n_s32(acc, q->out_offset);
    acc = vminq_s32(vmaxq_s32(acc, vdupq_n_s32(q->lo)), vdupq_n_s32(q->hi));
    vstrbq_s32(out, acc);
}

/* The n-pixel block of channels [c, c + 4): the table's pointers are those of channel c - rel, the kernel's taps
 * follow each other `channels` apart from its first inside row on. n is a constant at each of the four call sites. */
static inline __attribute__((always_inline)) void block(const int n,
                                                        const arm_nn_dw_group_args *g,
                                                        const int8_t *const *table,
                                                        int32_t taps,
                                                        int32_t c,
                                                        int32_t rel,
                                                        int8_t *out)
{
    const int32_t ch = g->channels;
    const int32x4_t b = g->bias ? vldrwq_s32(g->bias + c) : vdupq_n_s32(0);
    int32x4_t a0 = b, a1 = b, a2 = b, a3 = b, sum_w = vdupq_n_s32(0);
    const int8_t *w = g->kernel + c;
    for (int32_t t = taps; t > 0; t--, table += GROUP) {
        const int32x4_t wv = vldrbq_s32(w);
        w += ch;
        sum_w = vaddq_s32(sum_w, wv);
        a0 = vaddq_s32(a0, vmulq_s32(vldrbq_s32(table[0] + rel), wv));
        if (n > 1) {
            a1 = vaddq_s32(a1, vmulq_s32(vldrbq_s32(table[1] + rel), wv));
        }
        if (n > 2) {
            a2 = vaddq_s32(a2, vmulq_s32(vldrbq_s32(table[2] + rel), wv));
        }
        if (n > 3) {
            a3 = vaddq_s32(a3, vmulq_s32(vldrbq_s32(table[3] + rel), wv));
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
    out += c;
    store(vmlaq_n_s32(a0, sum_w, off), &q, out);
    if (n > 1) {
        store(vmlaq_n_s32(a1, sum_w, off), &q, out + ch);
    }
    if (n > 2) {
        store(vmlaq_n_s32(a2, sum_w, off), &q, out + 2 * ch);
    }
    if (n > 3) {
        store(vmlaq_n_s32(a3, sum_w, off), &q, out + 3 * ch);
    }
}

/* All channels of n pixels: chunk by chunk, the tap table (tap by tap in the kernel's order, each pixel's input
 * pointer, or the zero-point buffer's), then the blocks of four channels; a last partial block is the chunk's last
 * four channels (recomputed, written again with the same values), which the buffer allows for from 3 bytes before. */
static inline __attribute__((always_inline)) void pixels(const int n, const arm_nn_dw_group_args *g, int8_t *out)
{
    const int32_t ch = g->channels, k_w = g->kernel_w, taps = g->rows * k_w;
    int8_t zero_points[4 + CHUNK];
    const int8x16_t zp = vdupq_n_s8((int8_t)-g->input_offset);
    for (int32_t i = 0; i < CHUNK; i += 16) {
        vstrbq_s8(zero_points + i, zp);
    }
    vstrbq_s8(zero_points + 4 + CHUNK - 16, zp);
    const int8_t *table[ARM_NN_DW_GROUP_MAX_TAPS * GROUP];
    for (int32_t cc = 0; cc < ch; cc += CHUNK) {
        const int32_t cw = MIN(CHUNK, ch - cc);
        for (int k = 0; k < GROUP; k++) {
            for (int32_t kx = 0; kx < k_w; kx++) {
                const int32_t x = k < n ? g->base_x[k] + kx * g->dilation_x : -1;
                const int inside = x >= 0 && x < g->input_w;
                const int8_t *p = inside ? g->row[k] + x * ch + cc : zero_points + 4;
                const int32_t step = inside ? g->row_step : 0;
                for (int32_t ky = 0; ky < g->rows; ky++, p += step) {
                    table[(ky * k_w + kx) * GROUP + k] = p;
                }
            }
        }
        for (int32_t c = 0; c < cw; c += 4) {
            const int32_t rel = MIN(c, cw - 4);
            block(n, g, table, taps, cc + rel, rel, out);
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
