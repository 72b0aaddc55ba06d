/* int8 softmax, TFLite's fixed-point algorithm: differences from the row max are scaled by beta into Q5.26,
 * exponentiated in Q0.31 (gemmlowp's exp_on_negative_values), summed in Q12.19, and each exponential is
 * divided by the sum through a Newton-Raphson reciprocal; output scale 1/256, zero point -128. */
#include <string.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

#define ACCUM_BITS 12
#define MUL_SAT(a, b) arm_nn_doubling_high_mult((a), (b))
#define DIV_POW2(a, b) arm_nn_divide_by_power_of_two((a), (b))

/* Constants of gemmlowp's exp on [-1/4, 0) and of exp(-2^k / 4) for the 7 higher bits of the argument. */
static const int32_t EXP_QUARTER_POLY_C = 1895147668;  /* exp(-1/8) in Q0.31 */
static const int32_t ONE_THIRD_Q31 = 715827883;
static const int32_t EXP_BIT_FACTOR[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};

/* exp(val) for val <= 0 in Q5.26, result in Q0.31. */
static int32_t exp_on_negative_values(int32_t val)
{
    const int32_t mod_minus_quarter = (val & ((1 << 24) - 1)) - (1 << 24);
    const int32_t remainder = mod_minus_quarter - val;
    const int32_t x = mod_minus_quarter * 32 + (1 << 28);
    const int32_t x2 = MUL_SAT(x, x);
    const int32_t x4_over_4 = DIV_POW2(MUL_SAT(x2, x2), 2);
    const int32_t poly = x + DIV_POW2(MUL_SAT(x4_over_4 + MUL_SAT(x2, x), ONE_THIRD_Q31) + x2, 1);
    int32_t result = EXP_QUARTER_POLY_C + MUL_SAT(EXP_QUARTER_POLY_C, poly);
    for (int32_t k = 0; k < 7; k++) {
        if (remainder & (1 << (24 + k))) {
            result = MUL_SAT(result, EXP_BIT_FACTOR[k]);
        }
    }
    return val == 0 ? NN_Q31_MAX : result;
}

/* Saturating val * 2^exp. */
static int32_t mult_by_power_of_two(int32_t val, int32_t exp)
{
    const int32_t thresh = (int32_t)((1U << (31 - exp)) - 1);
    if (val > thresh) {
        return NN_Q31_MAX;
    }
    if (val < -thresh) {
        return NN_Q31_MIN;
    }
    return (int32_t)((uint32_t)val << exp);
}

/* 1 / (1 + val) for val in [0, 1) in Q0.31: three Newton-Raphson steps from 48/17 - 32/17 * d. */
static int32_t one_over_one_plus_x(int32_t val)
{
    const int64_t sum = (int64_t)val + NN_Q31_MAX;
    const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int32_t x = 1515870810 + MUL_SAT(half_denominator, -1010580540);
    for (int32_t i = 0; i < 3; i++) {
        x += mult_by_power_of_two(MUL_SAT(x, (1 << 29) - MUL_SAT(half_denominator, x)), 2);
    }
    return mult_by_power_of_two(x, 1);
}

static int8_t row_max(const int8_t *in, int32_t n)
{
    int8_t m = in[0];
    int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    for (; i < n; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(n - i));
        m = vmaxvq_p_s8(m, vldrbq_z_s8(in + i, p), p);
    }
#elif defined(__ARM_FEATURE_DSP)
    if (n >= 4) {
        int32_t acc;
        memcpy(&acc, in, 4);
        for (i = 4; i + 4 <= n; i += 4) { /* SSUB8 + SEL: byte-wise max of four lanes */
            int32_t w;
            memcpy(&w, in + i, 4);
            (void)__ssub8(acc, w);
            acc = (int32_t)__sel(acc, w);
        }
        int8_t lanes[4];
        memcpy(lanes, &acc, 4);
        m = MAX(MAX(lanes[0], lanes[1]), MAX(lanes[2], lanes[3]));
    }
#endif
    for (; i < n; i++) {
        m = MAX(m, in[i]);
    }
    return m;
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
/* exp_on_negative_values on four lanes: VQRDMULH is MUL_SAT to the bit, VPSEL replaces the branches.
 * No 32-bit-lane == / != compare against a constant scalar (vcmpeqq_n_s32(v, 0), vcmpneq_n_s32(v & m, 0)) on
 * a vector computed here: arm-none-eabi-gcc 12.2 (12.2.rel1) ICEs on it in the combine pass (trunc_int_for_mode,
 * explow.cc:59), a three-line reduction at -O1 and up, this function at -O3 and -Ofast. The bit test shifts
 * bit 24 + k to the sign and compares < 0 (one instruction fewer), and val == 0 compares with a zero vector. */
static int32x4_t exp_on_negative_values_s32x4(int32x4_t val)
{
    const int32x4_t mod_minus_quarter = vsubq_s32(vandq_s32(val, vdupq_n_s32((1 << 24) - 1)), vdupq_n_s32(1 << 24));
    const int32x4_t remainder = vsubq_s32(mod_minus_quarter, val);
    const int32x4_t x = vaddq_n_s32(vmulq_n_s32(mod_minus_quarter, 32), 1 << 28);
    const int32x4_t x2 = vqrdmulhq_s32(x, x);
    const int32x4_t x4_over_4 = arm_nn_divide_by_power_of_two_mve(vqrdmulhq_s32(x2, x2), 2);
    const int32x4_t cubic = vqrdmulhq_n_s32(vaddq_s32(x4_over_4, vqrdmulhq_s32(x2, x)), ONE_THIRD_Q31);
    const int32x4_t poly = vaddq_s32(x, arm_nn_divide_by_power_of_two_mve(vaddq_s32(cubic, x2), 1));
    int32x4_t result = vaddq_n_s32(vqrdmulhq_n_s32(poly, EXP_QUARTER_POLY_C), EXP_QUARTER_POLY_C);
    for (int32_t k = 0; k < 7; k++) {
        const mve_pred16_t bit = vcmpltq_n_s32(vshlq_r_s32(remainder, 7 - k), 0);
        result = vpselq_s32(vqrdmulhq_n_s32(result, EXP_BIT_FACTOR[k]), result, bit);
    }
    return vpselq_s32(vdupq_n_s32(NN_Q31_MAX), result, vcmpeqq_s32(val, vdupq_n_s32(0)));
}
#endif

void arm_softmax_s8(const int8_t *input,
                    const int32_t num_rows,
                    const int32_t row_size,
                    const int32_t mult,
                    const int32_t shift,
                    const int32_t diff_min,
                    int8_t *output)
{
    /* 2^shift as a uint32: shift may be 31, where TFLite's diff_min leaves only diff == 0 to scale */
    const uint32_t mask = 1u << shift;
    for (int32_t row = 0; row < num_rows; row++, input += row_size, output += row_size) {
        const int32_t max = row_max(input, row_size);
        int32_t sum = 0;
        int32_t col = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
        for (; col < row_size; col += 4) {
            const mve_pred16_t in_row = vctp32q((uint32_t)(row_size - col));
            const int32x4_t diff = vsubq_n_s32(vldrbq_z_s32(input + col, in_row), max);
            const mve_pred16_t p = vcmpgeq_m_n_s32(diff, diff_min, in_row);
            const int32x4_t e = exp_on_negative_values_s32x4(vqrdmulhq_n_s32(vmulq_n_s32(diff, (int32_t)mask), mult));
            sum = vaddvaq_p_s32(sum, arm_nn_divide_by_power_of_two_mve(e, ACCUM_BITS), p);
        }
#endif
        for (; col < row_size; col++) {
            const int32_t diff = input[col] - max;
            if (diff >= diff_min) {
                sum += DIV_POW2(exp_on_negative_values(MUL_SAT((int32_t)((uint32_t)diff * mask), mult)), ACCUM_BITS);
            }
        }

        /* sum >= 2^19 (the max element contributes exp(0)), so the normalised sum has its top bit set. */
        const int32_t headroom = __builtin_clz((uint32_t)sum);
        const int32_t bits_over_unit = ACCUM_BITS - headroom + 23;
        const int32_t shifted_scale = one_over_one_plus_x((int32_t)(((uint32_t)sum << headroom) - 0x80000000u));

        col = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
        for (; col < row_size; col += 4) {
            const mve_pred16_t in_row = vctp32q((uint32_t)(row_size - col));
            const int32x4_t diff = vsubq_n_s32(vldrbq_z_s32(input + col, in_row), max);
            const mve_pred16_t p = vcmpgeq_n_s32(diff, diff_min);
            const int32x4_t e = exp_on_negative_values_s32x4(vqrdmulhq_n_s32(vmulq_n_s32(diff, (int32_t)mask), mult));
            int32x4_t res = arm_nn_divide_by_power_of_two_mve(vqrdmulhq_n_s32(e, shifted_scale), bits_over_unit);
            res = vminq_s32(vmaxq_s32(vaddq_n_s32(res, NN_Q7_MIN), vdupq_n_s32(NN_Q7_MIN)), vdupq_n_s32(NN_Q7_MAX));
            res = vpselq_s32(res, vdupq_n_s32(NN_Q7_MIN), p);
            vstrbq_p_s32(output + col, res, in_row);
        }
#endif
        for (; col < row_size; col++) {
            const int32_t diff = input[col] - max;
            int32_t res = NN_Q7_MIN;
            /* a sum of more than 2^28 (rows over 512) divides by up to 2^34: the quotient of a Q0.31 is 0 */
            if (diff >= diff_min && bits_over_unit < 32) {
                const int32_t e = exp_on_negative_values(MUL_SAT((int32_t)((uint32_t)diff * mask), mult));
                res = DIV_POW2(MUL_SAT(shifted_scale, e), bits_over_unit) + NN_Q7_MIN;
            }
            output[col] = (int8_t)CLAMP(res, NN_Q7_MAX, NN_Q7_MIN);
        }
    }
}
