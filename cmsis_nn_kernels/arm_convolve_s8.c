/* General int8 convolution (any kernel, stride, padding, dilation, groups): im2col of up to four output
 * pixels into the scratch buffer, then the shared GEMM. Padded taps are filled with the input zero point
 * (-input_offset), which the GEMM's offset turns into zero; so are the zeros an upscale inserts. DSP: two
 * pixels, each widened to int16 with the offset added, so the GEMM's loop unpacks only the filters. */
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_DSP) && !defined(ARM_NN_USE_MVE)
#define IM2COL_ROWS 2
#else
#define IM2COL_ROWS 4
#endif
/* MVE: up to this many filters per group get their constant parts (bias + input_offset * filter sum) once
 * per call, on the stack, so that the GEMM's loop needs no filter sum (arm_nn_mat_mult_nt_t_s8_init). */
#define INIT_FILTERS 64

#if defined(ARM_NN_USE_MVE)
/* Tail-predicated copy and fill (WLSTP/LETP: the last step stores only the bytes left): 16 bytes per three
 * instructions and no call, where newlib's memcpy moves a word per two after its alignment checks, and short or
 * unaligned runs (an RGB or one-channel input's) a byte or halfword at a time. */
static inline void copy_s8(int8_t *dst, const int8_t *src, int32_t n)
{
    __asm__ volatile("   wlstp.8 lr, %[n], 1f       \n"
                     "2: vldrb.8 q0, [%[s]], #16    \n"
                     "   vstrb.8 q0, [%[d]], #16    \n"
                     "   letp    lr, 2b             \n"
                     "1:                            \n"
                     : [d] "+r"(dst), [s] "+r"(src)
                     : [n] "r"(n)
                     : "q0", "memory", "lr");
}

static inline void fill_s8(int8_t *dst, int8_t value, int32_t n)
{
    __asm__ volatile("   vdup.8  q0, %[v]           \n"
                     "   wlstp.8 lr, %[n], 1f       \n"
                     "2: vstrb.8 q0, [%[d]], #16    \n"
                     "   letp    lr, 2b             \n"
                     "1:                            \n"
                     : [d] "+r"(dst)
                     : [n] "r"(n), [v] "r"((int32_t)value)
                     : "q0", "memory", "lr");
}
#else
#if defined(ARM_NN_USE_DSP)
/* n int8 (a multiple of 4) plus the offset as int16, each word's bytes 0 and 2 then 1 and 3: the order in
 * which SXTB16 unpacks a filter word. dst may be src - n (in place, upwards): each word is read before the
 * two it becomes are written, and those end below the next word read. */
static void widen_s8_dsp(int8_t *dst, const int8_t *src, int32_t n, uint32_t off2)
{
    for (; n > 0; n -= 4, src += 4, dst += 8) {
        const uint32_t w = (uint32_t)arm_nn_read_s8x4(src);
        const uint32_t even = __sxtab16(off2, w), odd = arm_nn_sxtab16_ror8(off2, w);
        *(arm_nn_unaligned_s32 *)dst = (int32_t)even;
        *(arm_nn_unaligned_s32 *)(dst + 4) = (int32_t)odd;
    }
}

/* One step of four columns: the two filters' words (wa, wb: four int8 each, unpacked here) against the two
 * widened rows at p (the second x_step bytes on), eight SMLADs. */
static inline void step4_s16_dsp(
    uint32_t wa, uint32_t wb, const int8_t *p, int32_t x_step, int32_t *a00, int32_t *a01, int32_t *a10, int32_t *a11)
{
    const int32_t xa02 = arm_nn_read_s8x4(p), xa13 = arm_nn_read_s8x4(p + 4);
    const int32_t xb02 = arm_nn_read_s8x4(p + x_step), xb13 = arm_nn_read_s8x4(p + x_step + 4);
    const int32_t wa02 = (int32_t)__sxtb16(wa), wa13 = (int32_t)arm_nn_sxtb16_ror8(wa);
    const int32_t wb02 = (int32_t)__sxtb16(wb), wb13 = (int32_t)arm_nn_sxtb16_ror8(wb);
    *a00 = __smlad(xa13, wa13, __smlad(xa02, wa02, *a00));
    *a10 = __smlad(xb13, wa13, __smlad(xb02, wa02, *a10));
    *a01 = __smlad(xa13, wb13, __smlad(xa02, wb02, *a01));
    *a11 = __smlad(xb13, wb13, __smlad(xb02, wb02, *a11));
}

/* n8 passes of eight columns of two filters (the second dw bytes on) against two widened rows (the second
 * x_step bytes on), 39 instructions per 32 MACs. In assembly because GCC 12, given this loop in C, keeps the
 * loop bound and a distance on the stack and steps three pointers (25 instructions per 16 MACs). Each filter
 * word is unpacked once per halfword pair and meets both rows; x stays 4 bytes behind (pre-indexed loads),
 * w steps after the second filter's load. At -O0, where GCC 12 finds no registers for it, the same in C. */
static inline void pass8_s16_dsp(const int8_t *x,
                                 int32_t x_step,
                                 const int8_t *w,
                                 int32_t dw,
                                 int32_t n8,
                                 int32_t *a00,
                                 int32_t *a01,
                                 int32_t *a10,
                                 int32_t *a11)
{
    int32_t s00 = *a00, s01 = *a01, s10 = *a10, s11 = *a11;
#if defined(__OPTIMIZE__)
    const int8_t *const end = w + 8 * n8;
    int32_t wa, wb, x0, x1, t;
#define MX_HALF                                \
    "   ldr    %[wb], [%[w], %[dw]]        \n" \
    "   ldr    %[wa], [%[w]], #4           \n" \
    "   ldr    %[x0], [%[x], #4]!          \n" \
    "   ldr    %[x1], [%[x], %[xs]]        \n" \
    "   sxtb16 %[t], %[wa]                 \n" \
    "   smlad  %[s00], %[x0], %[t], %[s00] \n" \
    "   smlad  %[s10], %[x1], %[t], %[s10] \n" \
    "   sxtb16 %[t], %[wb]                 \n" \
    "   smlad  %[s01], %[x0], %[t], %[s01] \n" \
    "   smlad  %[s11], %[x1], %[t], %[s11] \n" \
    "   ldr    %[x0], [%[x], #4]!          \n" \
    "   ldr    %[x1], [%[x], %[xs]]        \n" \
    "   sxtb16 %[wa], %[wa], ror #8        \n" \
    "   smlad  %[s00], %[x0], %[wa], %[s00]\n" \
    "   smlad  %[s10], %[x1], %[wa], %[s10]\n" \
    "   sxtb16 %[wb], %[wb], ror #8        \n" \
    "   smlad  %[s01], %[x0], %[wb], %[s01]\n" \
    "   smlad  %[s11], %[x1], %[wb], %[s11]\n"
    __asm__ volatile("   sub    %[x], %[x], #4              \n"
                     "1:                                    \n" MX_HALF MX_HALF
                     "   ldr    %[t], %[end]                \n"
                     "   cmp    %[w], %[t]                  \n"
                     "   bne    1b                          \n"
                     : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11), [x] "+r"(x), [w] "+r"(w),
                       [wa] "=&r"(wa), [wb] "=&r"(wb), [x0] "=&r"(x0), [x1] "=&r"(x1), [t] "=&r"(t)
                     : [xs] "r"(x_step), [dw] "r"(dw), [end] "m"(end)
                     : "cc", "memory");
#undef MX_HALF
#else
    for (const int8_t *const end = w + 8 * n8; w != end; w += 4, x += 8) {
        step4_s16_dsp((uint32_t)arm_nn_read_s8x4(w), (uint32_t)arm_nn_read_s8x4(w + dw), x, x_step, &s00, &s01, &s10,
                      &s11);
    }
#endif
    *a00 = s00;
    *a01 = s01;
    *a10 = s10;
    *a11 = s11;
}

/* Two filters times two widened im2col rows per step of four columns: two filter words unpacked, four
 * row words read as they are, eight SMLADs. A last partial step takes the filters' remaining bytes into
 * zeroed words (the rows' padding is zero). With one row, x_step is 0 and d1 NULL. */
static void gemm_s16_dsp(const int8_t *x,
                         int32_t x_step,
                         int8_t *d0,
                         int8_t *d1,
                         const int8_t *rhs,
                         const int32_t *bias,
                         const int32_t *dst_multipliers,
                         const int32_t *dst_shifts,
                         int32_t rhs_rows,
                         int32_t rhs_cols,
                         int32_t dst_offset,
                         int32_t activation_min,
                         int32_t activation_max)
{
    for (int32_t c = 0; c < rhs_rows; c += 2) {
        const int32_t c1 = c + 1 < rhs_rows ? c + 1 : c; /* an odd last filter pairs with itself */
        const int8_t *w = rhs + c * rhs_cols;
        const int32_t dw = (c1 - c) * rhs_cols;
        int32_t a00 = bias ? bias[c] : 0, a01 = bias ? bias[c1] : 0;
        int32_t a10 = a00, a11 = a01;
        const int8_t *p = x;
        const int32_t n8 = rhs_cols >> 3;
        if (n8 > 0) {
            pass8_s16_dsp(p, x_step, w, dw, n8, &a00, &a01, &a10, &a11);
            w += 8 * n8;
            p += 16 * n8;
        }
        const int8_t *const end = w + (rhs_cols & 4);
        for (; w != end; w += 4, p += 8) {
            step4_s16_dsp((uint32_t)arm_nn_read_s8x4(w), (uint32_t)arm_nn_read_s8x4(w + dw), p, x_step, &a00, &a01,
                          &a10, &a11);
        }
        const int32_t left = rhs_cols & 3;
        if (left) {
            uint32_t wa = 0, wb = 0;
            for (int32_t k = left - 1; k >= 0; k--) {
                wa = (wa << 8) | (uint8_t)w[k];
                wb = (wb << 8) | (uint8_t)w[dw + k];
            }
            step4_s16_dsp(wa, wb, p, x_step, &a00, &a01, &a10, &a11);
        }
        const int32_t m0 = dst_multipliers[c], s0 = dst_shifts[c];
        d0[c] = arm_nn_requantize_clamp_s8_1step(a00, m0, s0, dst_offset, activation_min, activation_max);
        if (d1) {
            d1[c] = arm_nn_requantize_clamp_s8_1step(a10, m0, s0, dst_offset, activation_min, activation_max);
        }
        if (c1 != c) {
            const int32_t m1 = dst_multipliers[c1], s1 = dst_shifts[c1];
            d0[c1] = arm_nn_requantize_clamp_s8_1step(a01, m1, s1, dst_offset, activation_min, activation_max);
            if (d1) {
                d1[c1] = arm_nn_requantize_clamp_s8_1step(a11, m1, s1, dst_offset, activation_min, activation_max);
            }
        }
    }
}
#endif

static inline void copy_s8(int8_t *dst, const int8_t *src, int32_t n)
{
    memcpy(dst, src, (size_t)n);
}

static inline void fill_s8(int8_t *dst, int8_t value, int32_t n)
{
    memset(dst, value, (size_t)n);
}
#endif

/* The input as im2col sees it: in_h x in_w upscaled positions; a position is data where its coordinate's low
 * up_y (up_x) bits are 0, at the coordinate shifted right by them, else an inserted zero. */
typedef struct
{
    int32_t in_h, in_w, in_c, up_y, up_x;
} im2col_input;

static void im2col_row(const int8_t *input,
                       const im2col_input *g,
                       int32_t ch_start,
                       int32_t kernel_h,
                       int32_t kernel_w,
                       int32_t kernel_c,
                       int32_t base_y,
                       int32_t base_x,
                       int32_t dil_y,
                       int32_t dil_x,
                       int8_t pad_value,
                       int8_t *dst)
{
    /* A kernel row whose taps are all inside the input and whose channels are all of them is one run of the
     * input (NHWC): one copy instead of one per tap, which with few channels (the 10x4 stem's one, an RGB
     * input's three) is most of the im2col's cost. */
    const int32_t in_c = g->in_c, data_w = g->in_w >> g->up_x, row_bytes = kernel_w * kernel_c;
    const int contiguous =
        dil_x == 1 && g->up_x == 0 && kernel_c == in_c && base_x >= 0 && base_x + kernel_w <= g->in_w;
    for (int32_t ky = 0; ky < kernel_h; ky++) {
        const int32_t y = base_y + ky * dil_y;
        if (y < 0 || y >= g->in_h || (y & g->up_y) != 0) {
            fill_s8(dst, pad_value, row_bytes);
            dst += row_bytes;
            continue;
        }
        if (contiguous) {
            copy_s8(dst, input + ((y >> g->up_y) * data_w + base_x) * in_c, row_bytes);
            dst += row_bytes;
            continue;
        }
        for (int32_t kx = 0; kx < kernel_w; kx++) {
            const int32_t x = base_x + kx * dil_x;
            if (x < 0 || x >= g->in_w || (x & g->up_x) != 0) {
                fill_s8(dst, pad_value, kernel_c);
            } else {
                copy_s8(dst, input + ((y >> g->up_y) * data_w + (x >> g->up_x)) * in_c + ch_start, kernel_c);
            }
            dst += kernel_c;
        }
    }
}

arm_cmsis_nn_status arm_convolve_s8(const cmsis_nn_context *ctx,
                                    const cmsis_nn_conv_params *conv_params,
                                    const cmsis_nn_per_channel_quant_params *quant_params,
                                    const cmsis_nn_dims *input_dims,
                                    const int8_t *input_data,
                                    const cmsis_nn_dims *filter_dims,
                                    const int8_t *filter_data,
                                    const cmsis_nn_dims *bias_dims,
                                    const int32_t *bias_data,
                                    const cmsis_nn_dims *upscale_dims,
                                    const cmsis_nn_dims *output_dims,
                                    int8_t *output_data)
{
    (void)bias_dims;
    if (ctx->buf == NULL) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const int32_t in_h = input_dims->h, in_w = input_dims->w, in_c = input_dims->c;
    const int32_t kernel_h = filter_dims->h, kernel_w = filter_dims->w, kernel_c = filter_dims->c;
    const int32_t out_h = output_dims->h, out_w = output_dims->w, out_c = output_dims->c;
    if (kernel_c <= 0 || in_c % kernel_c != 0) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const int32_t groups = in_c / kernel_c;
    if (out_c % groups != 0) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const int32_t out_c_per_group = out_c / groups;
    const int32_t rhs_cols = kernel_h * kernel_w * kernel_c;
    /* Row pitch inside the scratch: the one CMSIS-NN's buffer size is computed with. */
#if defined(ARM_NN_USE_MVE)
    const int32_t pitch = (rhs_cols + 15) & ~15;
#else
    const int32_t pitch = (rhs_cols + 3) & ~3;
#endif
    int8_t *im2col = (int8_t *)ctx->buf;
    const int8_t pad_value = (int8_t)(-conv_params->input_offset);
    const int32_t n_pixels = out_h * out_w;
#if defined(ARM_NN_USE_DSP) && !defined(ARM_NN_USE_MVE)
    const uint32_t off2 = ((uint32_t)(uint16_t)conv_params->input_offset << 16) | (uint16_t)conv_params->input_offset;
#endif
    const int32_t up_y = upscale_dims != NULL && upscale_dims->h == 2,
                  up_x = upscale_dims != NULL && upscale_dims->w == 2;
    if (upscale_dims != NULL && ((upscale_dims->h != 1 && !up_y) || (upscale_dims->w != 1 && !up_x))) {
        return ARM_CMSIS_NN_ARG_ERROR;
    }
    const im2col_input geometry = {in_h, in_w, in_c, up_y, up_x};
#if defined(ARM_NN_USE_MVE)
    int32_t init[INIT_FILTERS];
    const int use_init = out_c_per_group <= INIT_FILTERS;
#endif

    for (int32_t b = 0; b < input_dims->n; b++) {
        const int8_t *in = input_data + b * (in_h >> up_y) * (in_w >> up_x) * in_c;
        int8_t *out = output_data + b * n_pixels * out_c;
        for (int32_t g = 0; g < groups; g++) {
            const int32_t oc0 = g * out_c_per_group;
#if defined(ARM_NN_USE_MVE)
            if (use_init) {
                arm_vector_sum_s8(init, rhs_cols, out_c_per_group, filter_data + oc0 * rhs_cols,
                                  conv_params->input_offset, 0, bias_data ? bias_data + oc0 : NULL);
            }
#endif
            for (int32_t p0 = 0; p0 < n_pixels; p0 += IM2COL_ROWS) {
                const int32_t rows = MIN(IM2COL_ROWS, n_pixels - p0);
                for (int32_t r = 0; r < rows; r++) {
                    const int32_t oy = (p0 + r) / out_w, ox = (p0 + r) % out_w;
#if defined(ARM_NN_USE_DSP) && !defined(ARM_NN_USE_MVE)
                    /* Row r's int16 take bytes [2r, 2r + 2) pitches; its int8 go to the upper one, padded
                     * with the zero point to the pitch, and widen in place. */
                    int8_t *row = im2col + (2 * r + 1) * pitch;
#else
                    int8_t *row = im2col + r * pitch;
#endif
                    im2col_row(in, &geometry, g * kernel_c, kernel_h, kernel_w, kernel_c,
                               oy * conv_params->stride.h - conv_params->padding.h,
                               ox * conv_params->stride.w - conv_params->padding.w, conv_params->dilation.h,
                               conv_params->dilation.w, pad_value, row);
#if defined(ARM_NN_USE_DSP) && !defined(ARM_NN_USE_MVE)
                    fill_s8(row + rhs_cols, pad_value, pitch - rhs_cols);
                    widen_s8_dsp(row - pitch, row, pitch, off2);
#endif
                }
#if defined(ARM_NN_USE_DSP) && !defined(ARM_NN_USE_MVE)
                gemm_s16_dsp(im2col, rows == 2 ? 2 * pitch : 0, out + p0 * out_c + oc0,
                             rows == 2 ? out + (p0 + 1) * out_c + oc0 : NULL, filter_data + oc0 * rhs_cols,
                             bias_data ? bias_data + oc0 : NULL, quant_params->multiplier + oc0,
                             quant_params->shift + oc0, out_c_per_group, rhs_cols, conv_params->output_offset,
                             conv_params->activation.min, conv_params->activation.max);
                continue;
#endif
#if defined(ARM_NN_USE_MVE)
                if (use_init) {
                    arm_nn_mat_mult_nt_t_s8_init(im2col, filter_data + oc0 * rhs_cols, init, out + p0 * out_c + oc0,
                                                 quant_params->multiplier + oc0, quant_params->shift + oc0, rows,
                                                 out_c_per_group, rhs_cols, conv_params->output_offset,
                                                 conv_params->activation.min, conv_params->activation.max, out_c,
                                                 pitch);
                    continue;
                }
#endif
                arm_nn_mat_mult_nt_t_s8(im2col, filter_data + oc0 * rhs_cols, bias_data ? bias_data + oc0 : NULL,
                                        out + p0 * out_c + oc0, quant_params->multiplier + oc0,
                                        quant_params->shift + oc0, rows, out_c_per_group, rhs_cols,
                                        conv_params->input_offset, conv_params->output_offset,
                                        conv_params->activation.min, conv_params->activation.max, out_c, pitch);
            }
        }
    }
    return ARM_CMSIS_NN_SUCCESS;
}
