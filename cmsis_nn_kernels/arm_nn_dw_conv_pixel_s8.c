/* One output pixel of a channel-multiplier-1 depthwise convolution: per channel, the sum over the kernel
 * taps inside the input (taps in the padding add (zero point + input_offset) * w = 0, so they are
 * skipped), requantized with that channel's multiplier and shift. MVE does four channels per vector,
 * DSP four per word (SXTB16 unpacks, SMLABB/SMLATT keep the lanes apart); the tail is plain C. */
#include "arm_nnsupportfunctions.h"

/* The taps k in [*k0, *k1) with 0 <= base + k * dilation < size: "inside" is separable in y and x and
 * monotone in k, so the taps inside form one rectangle, found once per pixel rather than tested per tap. */
static inline void inside_taps(int32_t base, int32_t dilation, int32_t taps, int32_t size, int32_t *k0, int32_t *k1)
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

void arm_nn_dw_conv_pixel_s8(const int8_t *input,
                             int32_t input_h,
                             int32_t input_w,
                             int32_t channels,
                             const int8_t *kernel,
                             int32_t kernel_h,
                             int32_t kernel_w,
                             int32_t base_y,
                             int32_t base_x,
                             int32_t dilation_y,
                             int32_t dilation_x,
                             const int32_t *bias,
                             int32_t input_offset,
                             int32_t output_offset,
                             const int32_t *multipliers,
                             const int32_t *shifts,
                             int32_t activation_min,
                             int32_t activation_max,
                             int8_t *output)
{
    int32_t ky0, ky1, kx0, kx1;
    inside_taps(base_y, dilation_y, kernel_h, input_h, &ky0, &ky1);
    inside_taps(base_x, dilation_x, kernel_w, input_w, &kx0, &kx1);
    const int32_t tap_x = dilation_x * channels, tap_y = dilation_y * input_w * channels;
    int32_t c = 0;
#if defined(ARM_NN_USE_MVE)
    for (; c < channels; c += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(channels - c));
        int32x4_t acc = bias ? vldrwq_z_s32(bias + c, p) : vdupq_n_s32(0);
        for (int32_t ky = ky0; ky < ky1; ky++) {
            const int8_t *x = input + ((base_y + ky * dilation_y) * input_w + base_x + kx0 * dilation_x) * channels + c;
            const int8_t *w = kernel + (ky * kernel_w + kx0) * channels + c;
            for (int32_t kx = kx0; kx < kx1; kx++) {
                const int32x4_t xv = vaddq_n_s32(vldrbq_z_s32(x, p), input_offset);
                acc = vaddq_s32(acc, vmulq_s32(xv, vldrbq_z_s32(w, p)));
                x += dilation_x * channels;
                w += channels;
            }
        }
        acc = arm_nn_requantize_mve_32x4(acc, vldrwq_z_s32(multipliers + c, p), vldrwq_z_s32(shifts + c, p));
        acc = vaddq_n_s32(acc, output_offset);
        acc = vmaxq_s32(acc, vdupq_n_s32(activation_min));
        acc = vminq_s32(acc, vdupq_n_s32(activation_max));
        vstrbq_p_s32(output + c, acc, p);
    }
#elif defined(ARM_NN_USE_DSP)
    const uint32_t off2 = ((uint32_t)(uint16_t)input_offset << 16) | (uint16_t)input_offset;
    for (; c + 4 <= channels; c += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        if (bias) {
            a0 = bias[c];
            a1 = bias[c + 1];
            a2 = bias[c + 2];
            a3 = bias[c + 3];
        }
        /* Walk the inside taps with pointers: a step along x is dilation_x pixels of input and one tap of
         * kernel, a step along y the rest of a row of each. */
        const int8_t *xp = input + ((base_y + ky0 * dilation_y) * input_w + base_x + kx0 * dilation_x) * channels + c;
        const int8_t *wp = kernel + (ky0 * kernel_w + kx0) * channels + c;
        for (int32_t ky = ky1 - ky0; ky > 0; ky--) {
            const int8_t *xr = xp, *wr = wp;
            for (int32_t kx = kx1 - kx0; kx > 0; kx--) {
                const uint32_t xi = (uint32_t)arm_nn_read_s8x4(xr), wi = (uint32_t)arm_nn_read_s8x4(wr);
                xr += tap_x;
                wr += channels;
                const int32_t x02 = (int32_t)__sxtab16(off2, xi), x13 = (int32_t)arm_nn_sxtab16_ror8(off2, xi);
                const int32_t w02 = (int32_t)__sxtb16(wi), w13 = (int32_t)arm_nn_sxtb16_ror8(wi);
                a0 = __smlabb(x02, w02, a0);
                a2 = __smlatt(x02, w02, a2);
                a1 = __smlabb(x13, w13, a1);
                a3 = __smlatt(x13, w13, a3);
            }
            xp += tap_y;
            wp += kernel_w * channels;
        }
        const int32_t acc[4] = {a0, a1, a2, a3};
        for (int32_t i = 0; i < 4; i++) {
            output[c + i] = arm_nn_requantize_clamp_s8_1step(acc[i], multipliers[c + i], shifts[c + i], output_offset,
                                                             activation_min, activation_max);
        }
    }
#endif
    if (c == channels) {
        return; /* MVE's predicated blocks and DSP's words took them all */
    }
    /* The channels left (past DSP's words; all of them in plain C), each walking its taps with pointers as the lanes
     * do. */
    const int8_t *x0 = input + ((base_y + ky0 * dilation_y) * input_w + base_x + kx0 * dilation_x) * channels;
    const int8_t *w0 = kernel + (ky0 * kernel_w + kx0) * channels;
    for (; c < channels; c++) {
        int32_t acc = bias ? bias[c] : 0;
        const int8_t *xp = x0 + c, *wp = w0 + c;
        for (int32_t ky = ky1 - ky0; ky > 0; ky--) {
            const int8_t *xr = xp, *wr = wp;
            for (int32_t kx = kx1 - kx0; kx > 0; kx--) {
                acc += (*xr + input_offset) * *wr;
                xr += tap_x;
                wr += channels;
            }
            xp += tap_y;
            wp += kernel_w * channels;
        }
#if defined(ARM_NN_USE_DSP)
        output[c] = arm_nn_requantize_clamp_s8_1step(acc, multipliers[c], shifts[c], output_offset, activation_min,
                                                     activation_max);
#else
        output[c] =
            arm_nn_requantize_clamp_s8(acc, multipliers[c], shifts[c], output_offset, activation_min, activation_max);
#endif
    }
}
