/* The GEMM under every convolution: lhs rows are im2col patches (or input pixels for 1x1), rhs rows are
 * filters, each output is requantized with its filter's multiplier and shift. Integer sums are exact, so
 * the three ISA paths below only reorder additions and agree to the bit. */
#include "arm_nn_mat_mult_mve.h"

/* (the MVE path's helpers: arm_nn_mat_mult_mve.h) */
#if defined(ARM_NN_USE_DSP) && !defined(ARM_NN_USE_MVE)
/* Four columns of two lhs rows against two rhs rows: each word is unpacked once into two halfword pairs
 * (SXTAB16 adds the lhs offset on the way) and feeds four SMLADs. */
static inline void step4_dsp(const int8_t *xa_p,
                             const int8_t *xb_p,
                             const int8_t *wa_p,
                             const int8_t *wb_p,
                             uint32_t off2,
                             int32_t *a00,
                             int32_t *a01,
                             int32_t *a10,
                             int32_t *a11)
{
    const uint32_t wa = (uint32_t)arm_nn_read_s8x4(wa_p), wb = (uint32_t)arm_nn_read_s8x4(wb_p);
    const uint32_t xa = (uint32_t)arm_nn_read_s8x4(xa_p), xb = (uint32_t)arm_nn_read_s8x4(xb_p);
    const int32_t wa02 = (int32_t)__sxtb16(wa), wa13 = (int32_t)arm_nn_sxtb16_ror8(wa);
    const int32_t wb02 = (int32_t)__sxtb16(wb), wb13 = (int32_t)arm_nn_sxtb16_ror8(wb);
    const int32_t xa02 = (int32_t)__sxtab16(off2, xa), xa13 = (int32_t)arm_nn_sxtab16_ror8(off2, xa);
    *a00 = __smlad(xa13, wa13, __smlad(xa02, wa02, *a00));
    *a01 = __smlad(xa13, wb13, __smlad(xa02, wb02, *a01));
    const int32_t xb02 = (int32_t)__sxtab16(off2, xb), xb13 = (int32_t)arm_nn_sxtab16_ror8(off2, xb);
    *a10 = __smlad(xb13, wa13, __smlad(xb02, wa02, *a10));
    *a11 = __smlad(xb13, wb13, __smlad(xb02, wb02, *a11));
}

/* n8 passes of eight columns of two lhs rows (the second dp bytes on) against two widened filters
 * (filters2_dsp's layout), 34 instructions per 32 MACs. In assembly because GCC 12, given this loop in C,
 * reloads filter words and keeps the loop bound on the stack (43 instructions): the loop needs 13 of the 14
 * allocatable registers. Each half: a pre-indexed load per lhs row (p stays 4 bytes behind the columns), a
 * pre-indexed LDRD per filter (w 16 bytes behind), the two rows unpacked once, eight SMLADs. */
static inline void pass8_wide_dsp(
    const int8_t *p, int32_t dp, const int32_t *w, int32_t n8, int32_t *a00, int32_t *a01, int32_t *a10, int32_t *a11)
{
    int32_t s00 = *a00, s01 = *a01, s10 = *a10, s11 = *a11;
    const int8_t *const end = p + 8 * n8 - 4;
    int32_t xa, xb, t0, t1, w0, w1;
#define MX_HALF                                \
    "   ldr    %[xa], [%[p], #4]!          \n" \
    "   ldr    %[xb], [%[p], %[dp]]        \n" \
    "   ldrd   %[w0], %[w1], [%[w], #16]!  \n" \
    "   sxtb16 %[t0], %[xa]                \n" \
    "   sxtb16 %[xa], %[xa], ror #8        \n" \
    "   sxtb16 %[t1], %[xb]                \n" \
    "   sxtb16 %[xb], %[xb], ror #8        \n" \
    "   smlad  %[s00], %[t0], %[w0], %[s00]\n" \
    "   smlad  %[s00], %[xa], %[w1], %[s00]\n" \
    "   smlad  %[s10], %[t1], %[w0], %[s10]\n" \
    "   smlad  %[s10], %[xb], %[w1], %[s10]\n" \
    "   ldrd   %[w0], %[w1], [%[w], #8]    \n" \
    "   smlad  %[s01], %[t0], %[w0], %[s01]\n" \
    "   smlad  %[s01], %[xa], %[w1], %[s01]\n" \
    "   smlad  %[s11], %[t1], %[w0], %[s11]\n" \
    "   smlad  %[s11], %[xb], %[w1], %[s11]\n"
    __asm__ volatile("   sub    %[p], %[p], #4              \n"
                     "   sub    %[w], %[w], #16             \n"
                     "1:                                    \n" MX_HALF MX_HALF
                     "   ldr    %[t0], %[end]               \n"
                     "   cmp    %[p], %[t0]                 \n"
                     "   bne    1b                          \n"
                     : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11), [p] "+r"(p), [w] "+r"(w),
                       [xa] "=&r"(xa), [xb] "=&r"(xb), [t0] "=&r"(t0), [t1] "=&r"(t1), [w0] "=&r"(w0), [w1] "=&r"(w1)
                     : [dp] "r"(dp), [end] "m"(end)
                     : "cc", "memory");
#undef MX_HALF
    *a00 = s00;
    *a01 = s01;
    *a10 = s10;
    *a11 = s11;
}

/* Four columns of two lhs rows (the second dp bytes on) against two widened filters. */
static inline void step4_wide_dsp(
    const int8_t *p, int32_t dp, const int32_t *w, int32_t *a00, int32_t *a01, int32_t *a10, int32_t *a11)
{
    const uint32_t xa = (uint32_t)arm_nn_read_s8x4(p), xb = (uint32_t)arm_nn_read_s8x4(p + dp);
    const int32_t xa02 = (int32_t)__sxtb16(xa), xa13 = (int32_t)arm_nn_sxtb16_ror8(xa);
    const int32_t xb02 = (int32_t)__sxtb16(xb), xb13 = (int32_t)arm_nn_sxtb16_ror8(xb);
    *a00 = __smlad(xa13, w[1], __smlad(xa02, w[0], *a00));
    *a10 = __smlad(xb13, w[1], __smlad(xb02, w[0], *a10));
    *a01 = __smlad(xa13, w[3], __smlad(xa02, w[2], *a01));
    *a11 = __smlad(xb13, w[3], __smlad(xb02, w[2], *a11));
}

/* Filters up to this long are widened to int16 once per pair, on the stack (16 bytes per 4 columns). */
#define WIDE_COLS 128

/* Two filters against all lhs rows, for long lhs (1x1 convolutions): the lhs offset enters once per
 * filter as lhs_offset * sum(w) (sum((x + o) * w) = sum(x * w) + o * sum(w)), so the loop needs no offset
 * register. Filters of up to WIDE_COLS columns are widened once, interleaved per 4 columns as the two
 * filters' halfword pairs (bytes 0 and 2, then 1 and 3: SXTB16's order), so that a step of 4 columns unpacks
 * only the two lhs words. w1 may repeat w0 (then d1 is NULL). */
static void filters2_dsp(const int8_t *lhs,
                         int32_t lhs_rows,
                         int32_t lhs_cols_offset,
                         const int8_t *w0,
                         const int8_t *w1,
                         int32_t init0,
                         int32_t init1,
                         int8_t *d0,
                         int8_t *d1,
                         int32_t row_address_offset,
                         int32_t m0,
                         int32_t s0,
                         int32_t m1,
                         int32_t s1,
                         int32_t rhs_cols,
                         int32_t lhs_offset,
                         int32_t dst_offset,
                         int32_t activation_min,
                         int32_t activation_max)
{
    int32_t wide[WIDE_COLS];
    const int widened = rhs_cols <= WIDE_COLS;
    int32_t sum0 = 0, sum1 = 0, k = 0;
    if (widened) {
        const int32_t ones = 0x00010001;
        for (int32_t *o = wide; k + 4 <= rhs_cols; k += 4, o += 4) {
            const uint32_t wa = (uint32_t)arm_nn_read_s8x4(w0 + k), wb = (uint32_t)arm_nn_read_s8x4(w1 + k);
            o[0] = (int32_t)__sxtb16(wa);
            o[1] = (int32_t)arm_nn_sxtb16_ror8(wa);
            o[2] = (int32_t)__sxtb16(wb);
            o[3] = (int32_t)arm_nn_sxtb16_ror8(wb);
            sum0 = __smlad(o[1], ones, __smlad(o[0], ones, sum0));
            sum1 = __smlad(o[3], ones, __smlad(o[2], ones, sum1));
        }
    }
    for (; k < rhs_cols; k++) {
        sum0 += w0[k];
        sum1 += w1[k];
    }
    init0 += lhs_offset * sum0;
    init1 += lhs_offset * sum1;
    for (int32_t r = 0; r < lhs_rows; r += 2) {
        const int two = r + 1 < lhs_rows;
        const int8_t *p0 = lhs + r * lhs_cols_offset, *p1 = two ? p0 + lhs_cols_offset : p0;
        const int8_t *q0 = w0, *q1 = w1;
        int32_t a00 = init0, a01 = init1, a10 = init0, a11 = init1;
        const int8_t *const end = p0 + (rhs_cols & ~3);
        const int32_t dq = (int32_t)(q1 - q0), dp = (int32_t)(p1 - p0);
        if (widened) {
            const int32_t *w = wide;
            const int32_t n8 = rhs_cols >> 3;
            if (n8 > 0) {
                pass8_wide_dsp(p0, dp, w, n8, &a00, &a01, &a10, &a11);
                p0 += 8 * n8;
                w += 8 * n8;
            }
            if (rhs_cols & 4) {
                step4_wide_dsp(p0, dp, w, &a00, &a01, &a10, &a11);
                p0 += 4;
            }
            q0 += rhs_cols & ~3;
        }
        while (p0 != end) {
            const uint32_t wa = (uint32_t)arm_nn_read_s8x4(q0), wb = (uint32_t)arm_nn_read_s8x4(q0 + dq);
            const uint32_t xa = (uint32_t)arm_nn_read_s8x4(p0), xb = (uint32_t)arm_nn_read_s8x4(p0 + dp);
            q0 += 4;
            p0 += 4;
            const int32_t wa02 = (int32_t)__sxtb16(wa), wa13 = (int32_t)arm_nn_sxtb16_ror8(wa);
            const int32_t wb02 = (int32_t)__sxtb16(wb), wb13 = (int32_t)arm_nn_sxtb16_ror8(wb);
            const int32_t xa02 = (int32_t)__sxtb16(xa), xa13 = (int32_t)arm_nn_sxtb16_ror8(xa);
            a00 = __smlad(xa13, wa13, __smlad(xa02, wa02, a00));
            a01 = __smlad(xa13, wb13, __smlad(xa02, wb02, a01));
            const int32_t xb02 = (int32_t)__sxtb16(xb), xb13 = (int32_t)arm_nn_sxtb16_ror8(xb);
            a10 = __smlad(xb13, wa13, __smlad(xb02, wa02, a10));
            a11 = __smlad(xb13, wb13, __smlad(xb02, wb02, a11));
        }
        p1 = p0 + dp;
        q1 = q0 + dq;
        for (int32_t n = rhs_cols & 3; n > 0; n--) {
            const int32_t xa = *p0++, xb = *p1++, wa = *q0++, wb = *q1++;
            a00 += xa * wa;
            a01 += xa * wb;
            a10 += xb * wa;
            a11 += xb * wb;
        }
        int8_t *o = d0 + r * row_address_offset;
        o[0] = arm_nn_requantize_clamp_s8_1step(a00, m0, s0, dst_offset, activation_min, activation_max);
        if (two) {
            o[row_address_offset] =
                arm_nn_requantize_clamp_s8_1step(a10, m0, s0, dst_offset, activation_min, activation_max);
        }
        if (d1) {
            o = d1 + r * row_address_offset;
            o[0] = arm_nn_requantize_clamp_s8_1step(a01, m1, s1, dst_offset, activation_min, activation_max);
            if (two) {
                o[row_address_offset] =
                    arm_nn_requantize_clamp_s8_1step(a11, m1, s1, dst_offset, activation_min, activation_max);
            }
        }
    }
}

/* Two lhs rows against two rhs rows, so each unpacked word serves two outputs and the multiplier and
 * shift of a filter serve both rows. With one row left, x1 repeats x0 and d1 is not written. */
static void rows2_dsp(const int8_t *x0,
                      const int8_t *x1,
                      int8_t *d0,
                      int8_t *d1,
                      const int8_t *rhs,
                      const int32_t *bias,
                      const int32_t *dst_multipliers,
                      const int32_t *dst_shifts,
                      int32_t rhs_rows,
                      int32_t rhs_cols,
                      int32_t lhs_offset,
                      int32_t dst_offset,
                      int32_t activation_min,
                      int32_t activation_max)
{
    const uint32_t off2 = ((uint32_t)(uint16_t)lhs_offset << 16) | (uint16_t)lhs_offset;
    for (int32_t c = 0; c < rhs_rows; c += 2) {
        const int32_t c1 = c + 1 < rhs_rows ? c + 1 : c; /* an odd last filter pairs with itself */
        const int8_t *w0 = rhs + c * rhs_cols, *w1 = rhs + c1 * rhs_cols;
        const int8_t *p0 = x0, *p1 = x1;
        int32_t a00 = bias ? bias[c] : 0, a01 = bias ? bias[c1] : 0;
        int32_t a10 = a00, a11 = a01;
        /* Second row and filter as distances from the first: two registers fewer than four pointers. */
        const int32_t dw = (int32_t)(w1 - w0), dp = (int32_t)(p1 - p0);
        for (const int8_t *const end = p0 + (rhs_cols & ~3); p0 != end; p0 += 4, w0 += 4) {
            step4_dsp(p0, p0 + dp, w0, w0 + dw, off2, &a00, &a01, &a10, &a11);
        }
        p1 = p0 + dp;
        w1 = w0 + dw;
        for (int32_t n = rhs_cols & 3; n > 0; n--) {
            const int32_t xa = *p0++ + lhs_offset, xb = *p1++ + lhs_offset;
            const int32_t wa = *w0++, wb = *w1++;
            a00 += xa * wa;
            a01 += xa * wb;
            a10 += xb * wa;
            a11 += xb * wb;
        }
        const int32_t m0 = dst_multipliers[c], s0 = dst_shifts[c];
        const int32_t m1 = dst_multipliers[c1], s1 = dst_shifts[c1];
        d0[c] = arm_nn_requantize_clamp_s8_1step(a00, m0, s0, dst_offset, activation_min, activation_max);
        if (d1) {
            d1[c] = arm_nn_requantize_clamp_s8_1step(a10, m0, s0, dst_offset, activation_min, activation_max);
        }
        if (c1 != c) {
            d0[c1] = arm_nn_requantize_clamp_s8_1step(a01, m1, s1, dst_offset, activation_min, activation_max);
            if (d1) {
                d1[c1] = arm_nn_requantize_clamp_s8_1step(a11, m1, s1, dst_offset, activation_min, activation_max);
            }
        }
    }
}
#endif

arm_cmsis_nn_status arm_nn_mat_mult_nt_t_s8(const int8_t *lhs,
                                            const int8_t *rhs,
                                            const int32_t *bias,
                                            int8_t *dst,
                                            const int32_t *dst_multipliers,
                                            const int32_t *dst_shifts,
                                            int32_t lhs_rows,
                                            int32_t rhs_rows,
                                            int32_t rhs_cols,
                                            int32_t lhs_offset,
                                            int32_t dst_offset,
                                            int32_t activation_min,
                                            int32_t activation_max,
                                            int32_t row_address_offset,
                                            int32_t lhs_cols_offset)
{
#if defined(ARM_NN_USE_MVE)
    const int32x4_t lo = vdupq_n_s32(activation_min), hi = vdupq_n_s32(activation_max);
    const int32x4_t out_off = vdupq_n_s32(dst_offset);
    const int32_t ro = row_address_offset;
    const uint32x4_t four = {0, (uint32_t)ro, 2u * (uint32_t)ro, 3u * (uint32_t)ro}, one = vdupq_n_u32(0);
    int32_t a[4];
    if (lhs_rows > 4) {
        /* Filters outer: each filter's sum, bias, multiplier and shift once for all the rows. */
        for (int32_t c = 0; c < rhs_rows; c++) {
            const int8_t *w = rhs + c * rhs_cols;
            const int32_t init = sum_mve(w, rhs_cols) * lhs_offset + (bias ? bias[c] : 0);
            const int32_t m = dst_multipliers[c], s = dst_shifts[c];
            int32_t r = 0;
            for (; r + 4 <= lhs_rows; r += 4) {
                dot4(lhs + r * lhs_cols_offset, lhs_cols_offset, w, rhs_cols, init, a);
                store4(gather4(a), m, s, out_off, lo, hi, dst + r * ro + c, four);
            }
            /* A row left over: four copies of it, stored four times to its one output. */
            for (; r < lhs_rows; r++) {
                dot4(lhs + r * lhs_cols_offset, 0, w, rhs_cols, init, a);
                store4(gather4(a), m, s, out_off, lo, hi, dst + r * ro + c, one);
            }
        }
        return ARM_CMSIS_NN_SUCCESS;
    }
    /* Up to four rows (im2col patches): rows inner, each filter's sum taken along its dot products and its
     * lhs_offset multiple added to the four sums at once (VMLA by a scalar). */
    const int32x4_t in_off = vdupq_n_s32(lhs_offset);
    const int whole = lhs_rows == 4; /* four rows at once, or each row as four copies of itself */
    for (int32_t r = 0; r < lhs_rows; r += whole ? 4 : 1) {
        const int8_t *x = lhs + r * lhs_cols_offset;
        for (int32_t c = 0; c < rhs_rows; c++) {
            int32_t sum;
            dot4_sum(x, whole ? lhs_cols_offset : 0, rhs + c * rhs_cols, rhs_cols, bias ? bias[c] : 0, a, &sum);
            store4(vmlaq_n_s32(gather4(a), in_off, sum), dst_multipliers[c], dst_shifts[c], out_off, lo, hi,
                   dst + r * ro + c, whole ? four : one);
        }
    }
#elif defined(ARM_NN_USE_DSP)
    if (lhs_rows > 8) {
        for (int32_t c = 0; c < rhs_rows; c += 2) {
            const int32_t c1 = c + 1 < rhs_rows ? c + 1 : c;
            filters2_dsp(lhs, lhs_rows, lhs_cols_offset, rhs + c * rhs_cols, rhs + c1 * rhs_cols, bias ? bias[c] : 0,
                         bias ? bias[c1] : 0, dst + c, c1 != c ? dst + c1 : NULL, row_address_offset,
                         dst_multipliers[c], dst_shifts[c], dst_multipliers[c1], dst_shifts[c1], rhs_cols, lhs_offset,
                         dst_offset, activation_min, activation_max);
        }
        return ARM_CMSIS_NN_SUCCESS;
    }
    for (int32_t r = 0; r < lhs_rows; r += 2) {
        const int8_t *x0 = lhs + r * lhs_cols_offset;
        const int two = r + 1 < lhs_rows;
        rows2_dsp(x0, two ? x0 + lhs_cols_offset : x0, dst + r * row_address_offset,
                  two ? dst + (r + 1) * row_address_offset : NULL, rhs, bias, dst_multipliers, dst_shifts, rhs_rows,
                  rhs_cols, lhs_offset, dst_offset, activation_min, activation_max);
    }
#else
    for (int32_t r = 0; r < lhs_rows; r++) {
        const int8_t *x = lhs + r * lhs_cols_offset;
        int8_t *out = dst + r * row_address_offset;
        for (int32_t c = 0; c < rhs_rows; c++) {
            const int8_t *w = rhs + c * rhs_cols;
            int32_t acc = bias ? bias[c] : 0;
            for (int32_t k = 0; k < rhs_cols; k++) {
                acc += (x[k] + lhs_offset) * w[k];
            }
            out[c] = arm_nn_requantize_clamp_s8(acc, dst_multipliers[c], dst_shifts[c], dst_offset, activation_min,
                                                activation_max);
        }
    }
#endif
    return ARM_CMSIS_NN_SUCCESS;
}
