/* One or two output pixels of a channel-multiplier-1 depthwise convolution, consecutive in the output (across rows
 * too) and sharing their tap rows inside the input, all channels (MVE), eight channels at a time: int8 loaded as
 * eight int16 lanes, VMULLB / VMULLT multiply the even and the odd lanes into int32 sums (two accumulators per
 * pixel), so one weight load, one input load and four instructions make 8 multiply-accumulates.
 * The input offset is not added per tap: sum (x + off) * w = sum x * w + off * sum w, with sum w (at most 49 taps
 * of |w| <= 128: int16 holds it) over the same taps. A tap outside the input (padding) reads a small buffer of
 * zero points (x = -off), whose contribution -off * w + off * w is 0 as the padding's must be, so border pixels run
 * the same loop as interior ones. Rows of taps outside the input are left out by the caller.
 * The taps run as one loop over a table of each tap's input pointers (built once per group and 64-channel chunk):
 * no per-column or per-row bookkeeping in the loop, and few enough registers that nothing spills. */
#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_MVE)

#define GROUP 2
#define CHUNK 64 /* channels per pass over the tap table: the zero-point buffer's size */
#define LANES 8

typedef struct
{
    int32x4_t mult, left, right;
} requant;

/* arm_nn_requantize_mve_32x4 with its shift split once per block, the output offset and the clamp. */
static inline __attribute__((always_inline)) int32x4_t scale(
    int32x4_t acc, const requant *q, int32_t out_offset, int32x4_t lo, int32x4_t hi)
{
    acc = vqrdmulhq_s32(vshlq_s32(acc, q->left), q->mult);
    acc = vrshlq_s32(vqaddq_s32(acc, vshrq_n_s32(vandq_s32(acc, q->right), 31)), q->right);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(acc, out_offset), lo), hi);
}

static inline __attribute__((always_inline)) requant split(int32x4_t mult, int32x4_t shift)
{
    const requant q = {mult, vmaxq_s32(shift, vdupq_n_s32(0)), vminq_s32(shift, vdupq_n_s32(0))};
    return q;
}

/* The n-pixel block of channels [c, c + 8): the table's pointers are those of channel c - rel, the kernel's taps
 * follow each other `channels` apart from its first inside row on. n is a constant at each call site. */
static inline __attribute__((always_inline)) void block(const int n,
                                                        const arm_nn_dw_group_args *g,
                                                        const int8_t *const *table,
                                                        int32_t taps,
                                                        int32_t c,
                                                        int32_t rel,
                                                        int8_t *out)
{
    const int32_t ch = g->channels;
    int32x4_t e0 = vdupq_n_s32(0), o0 = e0;
    if (g->bias) {
        const int32x4x2_t b = vld2q_s32(g->bias + c);
        e0 = b.val[0];
        o0 = b.val[1];
    }
    int32x4_t e1 = e0, o1 = o0;
    const int16_t off = (int16_t)g->input_offset;
    const int8_t *w = g->kernel + c;
    for (int32_t t = taps; t > 0; t--, table += GROUP) {
        const int16x8_t wv = vldrbq_s16(w);
        w += ch;
        const int16x8_t x0 = vaddq_n_s16(vldrbq_s16(table[0] + rel), off);
        e0 = vaddq_s32(e0, vmullbq_int_s16(x0, wv));
        o0 = vaddq_s32(o0, vmulltq_int_s16(x0, wv));
        if (n > 1) {
            const int16x8_t x1 = vaddq_n_s16(vldrbq_s16(table[1] + rel), off);
            e1 = vaddq_s32(e1, vmullbq_int_s16(x1, wv));
            o1 = vaddq_s32(o1, vmulltq_int_s16(x1, wv));
        }
    }
    const int32x4x2_t m = vld2q_s32(g->multipliers + c), s = vld2q_s32(g->shifts + c);
    const requant qe = split(m.val[0], s.val[0]), qo = split(m.val[1], s.val[1]);
    const int32_t out_offset = g->output_offset;
    const int32x4_t lo = vdupq_n_s32(g->activation_min), hi = vdupq_n_s32(g->activation_max);
    out += c;
    int16x8_t r = vmovnbq_s32(vuninitializedq_s16(), scale(e0, &qe, out_offset, lo, hi));
    r = vmovntq_s32(r, scale(o0, &qo, out_offset, lo, hi));
    vstrbq_s16(out, r);
    if (n > 1) {
        r = vmovnbq_s32(r, scale(e1, &qe, out_offset, lo, hi));
        r = vmovntq_s32(r, scale(o1, &qo, out_offset, lo, hi));
        vstrbq_s16(out + ch, r);
    }
}

/* All channels of n pixels (input rows and first tap columns given): chunk by chunk, the tap table (tap by tap in the
 * kernel's order, each pixel's input pointer, or the zero-point buffer's), then the blocks of eight channels; a last
 * partial block is the chunk's last eight channels (recomputed, written again with the same values), which the
 * buffer allows for from 7 bytes before. */
static inline __attribute__((always_inline)) void pixels(const int n,
                                                         const arm_nn_dw_group_args *g,
                                                         const int8_t *zero_points,
                                                         const int8_t **table,
                                                         const int8_t *const *row,
                                                         const int32_t *base_x,
                                                         int8_t *out)
{
    const int32_t ch = g->channels, k_w = g->kernel_w, rows = g->rows;
    for (int32_t cc = 0; cc < ch; cc += CHUNK) {
        const int32_t cw = MIN(CHUNK, ch - cc);
        for (int k = 0; k < n; k++) {
            for (int32_t kx = 0; kx < k_w; kx++) {
                const int32_t x = base_x[k] + kx * g->dilation_w;
                const int inside = x >= 0 && x < g->input_w;
                const int8_t *p = inside ? row[k] + x * ch + cc : zero_points;
                const int32_t step = inside ? g->row_step : 0;
                const int8_t **t = table + kx * GROUP + k;
                for (int32_t ky = rows; ky > 0; ky--, p += step, t += k_w * GROUP) {
                    *t = p;
                }
            }
        }
        for (int32_t c = 0; c < cw; c += LANES) {
            const int32_t rel = MIN(c, cw - LANES);
            block(n, g, table, rows * k_w, cc + rel, rel, out);
        }
    }
}

void arm_nn_dw_conv_group_s8(const arm_nn_dw_group_args *g, int32_t oy, int32_t ox, int32_t count, int8_t *out)
{
    /* A copy the output stores cannot alias: its fields stay in registers across blocks. */
    const arm_nn_dw_group_args a = *g;
    int8_t zero_points[LANES + CHUNK];
    const int8x16_t zp = vdupq_n_s8((int8_t)-a.input_offset);
    for (int32_t i = 0; i < LANES + CHUNK; i += 16) {
        vstrbq_s8(zero_points + i, zp);
    }
    const int8_t *table[ARM_NN_DW_GROUP_MAX_TAPS * GROUP];
    const int32_t row_bytes = a.input_w * a.channels;
    const int8_t *row[GROUP];
    int32_t base_x[GROUP];
    for (; count > 0; count -= GROUP, out += GROUP * a.channels) {
        for (int k = 0; k < GROUP; k++) {
            row[k] = a.input + (oy * a.stride_h + a.first_row) * row_bytes;
            base_x[k] = ox * a.stride_w - a.padding_w;
            if (++ox == a.out_w) {
                ox = 0;
                oy++;
            }
        }
        if (count > 1) {
            pixels(2, &a, zero_points + LANES, table, row, base_x, out);
        } else {
            pixels(1, &a, zero_points + LANES, table, row, base_x, out);
        }
    }
}

#elif defined(ARM_NN_USE_DSP)

/* The tap columns k in [*k0, *k1) with 0 <= base + k * dilation < size (one range: see the pixel helper). */
static inline void inside_cols(int32_t base, int32_t dilation, int32_t taps, int32_t size, int32_t *k0, int32_t *k1)
{
    int32_t lo = 0, hi = taps;
    while (lo < hi && base + lo * dilation < 0) {
        lo++;
    }
    while (hi > lo && base + (hi - 1) * dilation >= size) {
        hi--;
    }
    *k0 = lo;
    *k1 = hi;
}

/* The run's next output pixel (row-major over the output), advancing (oy, ox): the input at its first inside
 * tap, that tap's column and how many tap columns are inside. */
static inline __attribute__((always_inline)) const int8_t *next_pixel(
    const arm_nn_dw_group_args *a, int32_t *oy, int32_t *ox, int32_t *kx0, int32_t *cols)
{
    const int8_t *row = a->input + (*oy * a->stride_h + a->first_row) * a->input_w * a->channels;
    const int32_t base_x = *ox * a->stride_w - a->padding_w;
    if (++*ox == a->out_w) {
        *ox = 0;
        (*oy)++;
    }
    int32_t kx1;
    inside_cols(base_x, 1, a->kernel_w, a->input_w, kx0, &kx1);
    *cols = kx1 - *kx0;
    return row + (base_x + *kx0) * a->channels;
}

/* One requantized output; `full`: the clamp is int8's own range, one SSAT. */
static inline __attribute__((always_inline)) int8_t requant1(
    int32_t acc, int32_t mult, int32_t shift, int32_t offset, int32_t lo, int32_t hi, int full)
{
    const int32_t r = arm_nn_requantize_1step(acc, mult, shift) + offset;
    return (int8_t)(full ? __ssat(r, 8) : MIN(MAX(r, lo), hi));
}

/* The four channels' accumulators requantized to out[c..c + 3]. */
static inline __attribute__((always_inline)) void store4(
    int32_t a0, int32_t a1, int32_t a2, int32_t a3, const arm_nn_dw_group_args *a, int32_t c, int full, int8_t *out)
{
    const int32_t *m = a->multipliers + c, *s = a->shifts + c, o = a->output_offset;
    const int32_t lo = a->activation_min, hi = a->activation_max;
    out += c;
    out[0] = requant1(a0, m[0], s[0], o, lo, hi, full);
    out[1] = requant1(a1, m[1], s[1], o, lo, hi, full);
    out[2] = requant1(a2, m[2], s[2], o, lo, hi, full);
    out[3] = requant1(a3, m[3], s[3], o, lo, hi, full);
}

/* Four channels' sums over the taps inside: from wr (the kernel at the first inside tap, channel c) and d (the input's
 * distance from it), `rows` tap rows of `cols` taps; along a tap row input and kernel step alike (dilation 1). */
static inline __attribute__((always_inline)) void taps4(const int8_t *wr,
                                                        int32_t d,
                                                        int32_t rows,
                                                        int32_t cols,
                                                        int32_t ch,
                                                        int32_t w_row,
                                                        int32_t x_row,
                                                        uint32_t off2,
                                                        int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (int32_t ky = rows; ky > 0; ky--, wr += w_row, d += x_row) {
        const int8_t *wp = wr;
        for (int32_t kx = cols; kx > 0; kx--, wp += ch) {
            const uint32_t xi = (uint32_t)arm_nn_read_s8x4(wp + d), wi = (uint32_t)arm_nn_read_s8x4(wp);
            const int32_t x02 = (int32_t)__sxtab16(off2, xi), x13 = (int32_t)arm_nn_sxtab16_ror8(off2, xi);
            const int32_t w02 = (int32_t)__sxtb16(wi), w13 = (int32_t)arm_nn_sxtb16_ror8(wi);
            a0 = __smlabb(x02, w02, a0);
            a2 = __smlatt(x02, w02, a2);
            a1 = __smlabb(x13, w13, a1);
            a3 = __smlatt(x13, w13, a3);
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* Fewer than four channels: the same four lanes, of which the first `ch` are kept. The kernel is read from a copy
 * with four bytes after it, and a pixel whose last word would pass the input's end is summed byte by byte, so no
 * load leaves either tensor. */
static void few_channels(const arm_nn_dw_group_args *g, int32_t oy, int32_t ox, int32_t count, int8_t *out)
{
    const arm_nn_dw_group_args a = *g;
    const int32_t ch = a.channels, row_bytes = a.input_w * ch, w_row = a.kernel_w * ch, x_row = a.row_step - w_row;
    const uint32_t off2 = ((uint32_t)(uint16_t)a.input_offset << 16) | (uint16_t)a.input_offset;
    const int8_t *end = a.input + a.input_h * row_bytes;
    int8_t kernel[ARM_NN_DW_GROUP_MAX_TAPS * 3 + 4] = {0};
    memcpy(kernel, a.kernel, (size_t)(a.rows * w_row));
    for (; count > 0; count--, out += ch) {
        int32_t kx0, cols;
        const int8_t *x0 = next_pixel(&a, &oy, &ox, &kx0, &cols);
        int32_t acc[4] = {0, 0, 0, 0};
        for (int32_t c = 0; c < ch; c++) {
            acc[c] = a.bias ? a.bias[c] : 0;
        }
        if (a.rows > 0 && cols > 0 && x0 + (a.rows - 1) * a.row_step + (cols - 1) * ch + 4 > end) {
            for (int32_t c = 0; c < ch; c++) {
                for (int32_t ky = 0; ky < a.rows; ky++) {
                    for (int32_t kx = 0; kx < cols; kx++) {
                        acc[c] += (x0[ky * a.row_step + kx * ch + c] + a.input_offset) *
                                  kernel[ky * w_row + (kx0 + kx) * ch + c];
                    }
                }
            }
        } else {
            const int8_t *wr = kernel + kx0 * ch;
            taps4(wr, (int32_t)(x0 - wr), a.rows, cols, ch, w_row, x_row, off2, acc);
        }
        for (int32_t c = 0; c < ch; c++) {
            out[c] = arm_nn_requantize_clamp_s8_1step(acc[c], a.multipliers[c], a.shifts[c], a.output_offset,
                                                      a.activation_min, a.activation_max);
        }
    }
}

/* DSP: pixel by pixel, four channels a word (SXTAB16 widens and adds the input offset, SMLABB / SMLATT keep the
 * lanes apart) over the taps inside; the run's tap rows and its invariants are set once, not per pixel. Dilation
 * 1 along x (the caller's condition): input and kernel then step alike along a tap row, so one pointer walks both.
 * A last partial block of channels is the last four (recomputed, written again with the same values). */
void arm_nn_dw_conv_group_s8(const arm_nn_dw_group_args *g, int32_t oy, int32_t ox, int32_t count, int8_t *out)
{
    if (g->channels < 4) {
        few_channels(g, oy, ox, count, out);
        return;
    }
    const arm_nn_dw_group_args a = *g;
    const int32_t ch = a.channels, w_row = a.kernel_w * ch, x_row = a.row_step - w_row;
    const uint32_t off2 = ((uint32_t)(uint16_t)a.input_offset << 16) | (uint16_t)a.input_offset;
    const int full = a.activation_min == -128 && a.activation_max == 127;
    for (; count > 0; count--, out += ch) {
        int32_t kx0, cols;
        const int8_t *x_first = next_pixel(&a, &oy, &ox, &kx0, &cols);
        /* The input's distance from the kernel at the first inside tap of the first tap row; it grows by
         * row_step - w_row from a tap row to the next. */
        const int32_t x_from_w = (int32_t)(x_first - (a.kernel + kx0 * ch));
        for (int32_t c = 0; c < ch; c += 4) {
            const int32_t cb = MIN(c, ch - 4);
            int32_t acc[4] = {0, 0, 0, 0};
            if (a.bias) {
                acc[0] = a.bias[cb];
                acc[1] = a.bias[cb + 1];
                acc[2] = a.bias[cb + 2];
                acc[3] = a.bias[cb + 3];
            }
            taps4(a.kernel + kx0 * ch + cb, x_from_w, a.rows, cols, ch, w_row, x_row, off2, acc);
            if (full) {
                store4(acc[0], acc[1], acc[2], acc[3], &a, cb, 1, out);
            } else {
                store4(acc[0], acc[1], acc[2], acc[3], &a, cb, 0, out);
            }
        }
    }
}

#endif
