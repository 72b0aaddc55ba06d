/* Shared arithmetic of the int8 kernels: CMSIS-NN's fixed-point requantization (the default
 * double-rounding variant, CMSIS_NN_USE_SINGLE_ROUNDING undefined), clamps, unaligned loads, and the
 * inner helpers the convolution / fully-connected families share. The ISA is chosen by the
 * compiler's own feature macros, through CMSIS-NN's ARM_MATH_* (arm_nn_math_types.h): MVE
 * (__ARM_FEATURE_MVE, Cortex-M55/M85) before DSP (__ARM_FEATURE_DSP, Cortex-M4/M33), else plain C.
 * mcu_export/int8/arith.py is the Python twin. */
#ifndef ARM_NNSUPPORTFUNCTIONS_H
#define ARM_NNSUPPORTFUNCTIONS_H

#include <stdint.h>
#include <string.h>

#include "Internal/arm_nn_compiler.h"
#include "arm_nn_math_types.h"
#include "arm_nn_types.h"

/* Our kernels' path: Helium when there is integer Helium, else DSP when there is DSP, else plain C. */
#if defined(ARM_MATH_MVEI)
#define ARM_NN_USE_MVE 1
#include <arm_mve.h>
#elif defined(ARM_MATH_DSP)
#define ARM_NN_USE_DSP 1
#include <arm_acle.h>
#endif

#define MAX(A, B) ((A) > (B) ? (A) : (B))
#define MIN(A, B) ((A) < (B) ? (A) : (B))
#define CLAMP(x, h, l) MAX(MIN((x), (h)), (l))
#define LEFT_SHIFT(_shift) ((_shift) > 0 ? (_shift) : 0)
#define RIGHT_SHIFT(_shift) ((_shift) > 0 ? 0 : -(_shift))

/* Round-to-nearest high half of 2*m1*m2, without the saturation of the corner m1 == m2 == INT32_MIN
 * (a multiplier is never INT32_MIN). */
static inline int32_t arm_nn_doubling_high_mult_no_sat(const int32_t m1, const int32_t m2)
{
    const int64_t prod = (int64_t)m1 * m2 + ((int64_t)1 << 30);
    return (int32_t)(prod >> 31);
}

/* dividend / 2^exponent rounded half away from zero; exponent in [0, 31]. */
static inline int32_t arm_nn_divide_by_power_of_two(const int32_t dividend, const int32_t exponent)
{
    const int32_t mask = (int32_t)(((uint32_t)1 << exponent) - 1u);
    const int32_t remainder = dividend & mask;
    int32_t result = dividend >> exponent;
    const int32_t threshold = (mask >> 1) + (result < 0 ? 1 : 0);
    if (remainder > threshold) {
        result++;
    }
    return result;
}

/* val * multiplier * 2^shift / 2^31 with CMSIS-NN's double rounding: a positive shift scales val first
 * (wrapping as the C multiply does on every Arm target), a negative one divides the product after. */
static inline int32_t arm_nn_requantize(const int32_t val, const int32_t multiplier, const int32_t shift)
{
    const int32_t scaled = (int32_t)((uint32_t)val << LEFT_SHIFT(shift));
    return arm_nn_divide_by_power_of_two(arm_nn_doubling_high_mult_no_sat(scaled, multiplier), RIGHT_SHIFT(shift));
}

/* Requantize, add the output offset, clamp: the tail of every int8 kernel. */
static inline int8_t arm_nn_requantize_clamp_s8(
    int32_t acc, int32_t multiplier, int32_t shift, int32_t out_offset, int32_t act_min, int32_t act_max)
{
    acc = arm_nn_requantize(acc, multiplier, shift) + out_offset;
    acc = MAX(acc, act_min);
    acc = MIN(acc, act_max);
    return (int8_t)acc;
}

/* Four int8 from any address as one word: a plain LDR (Cortex-M3 and up allow unaligned words). Not
 * memcpy: a user may build these sources freestanding (-fno-builtin), where memcpy stays a call; our
 * firmware builds the kernel library hosted (codegen/firmware/compile_flags.toml). */
typedef int32_t __attribute__((aligned(1), may_alias)) arm_nn_unaligned_s32;

static inline int32_t arm_nn_read_s8x4(const int8_t *in)
{
    return *(const arm_nn_unaligned_s32 *)in;
}

#if defined(ARM_NN_USE_DSP)
static inline uint32_t arm_nn_ror8(uint32_t x)
{
    return (x >> 8) | (x << 24);
}

/* arm_nn_requantize in one 64-bit rounding step, bit for bit (about 5 instructions fewer per output):
 * with Q = val * multiplier + 2^30 and e = -shift > 0, rounding Q / 2^31 and then dividing by 2^e half
 * away from zero equals floor((Q + t * 2^31) / 2^(31 + e)) with t = 2^(e-1) - (Q < 0), since
 * floor((floor(a / b) + t) / c) = floor((a + t * b) / (b * c)) for integer t. */
static inline int32_t arm_nn_requantize_1step(const int32_t val, const int32_t multiplier, const int32_t shift)
{
    if (shift >= 0) {
        const int32_t scaled = (int32_t)((uint32_t)val << shift);
        return (int32_t)(((int64_t)scaled * multiplier + ((int64_t)1 << 30)) >> 31);
    }
    int64_t q = (int64_t)val * multiplier + ((int64_t)1 << 30);
    const uint32_t t = (1u << (-shift - 1)) - (uint32_t)((int32_t)(q >> 32) < 0);
    q += (int64_t)((uint64_t)t << 31);
    return (int32_t)(q >> 32) >> (-shift - 1);
}

static inline int8_t arm_nn_requantize_clamp_s8_1step(
    int32_t acc, int32_t multiplier, int32_t shift, int32_t out_offset, int32_t act_min, int32_t act_max)
{
    acc = arm_nn_requantize_1step(acc, multiplier, shift) + out_offset;
    acc = MAX(acc, act_min);
    acc = MIN(acc, act_max);
    return (int8_t)acc;
}

/* Bytes 1 and 3 sign-extended to halfwords (plus `a` for SXTAB16): one instruction with the rotate in
 * SXTB16's own operand. ACLE has no rotated form and GCC 12 does not fold a separate rotate into it, so
 * the GNU-syntax asm; other compilers get the two-instruction intrinsic form. */
static inline uint32_t arm_nn_sxtb16_ror8(uint32_t x)
{
#if defined(__GNUC__)
    uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
#else
    return (uint32_t)__sxtb16(arm_nn_ror8(x));
#endif
}

static inline uint32_t arm_nn_sxtab16_ror8(uint32_t a, uint32_t x)
{
#if defined(__GNUC__)
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
    return r;
#else
    return (uint32_t)__sxtab16(a, arm_nn_ror8(x));
#endif
}

/* Four int8 at `in`, offset-added, as two int16 pairs: *even holds bytes 0 and 2, *odd bytes 1 and 3
 * (SXTB16 widens, after a rotate for the odd ones; SADD16 adds `offset` to both lanes at once). The lanes
 * never wrap while |in + offset| <= 255. */
static inline void arm_nn_s8x4_offset_s16x2(const int8_t *in, int32_t offset, int32_t *even, int32_t *odd)
{
    const int32_t offset2 = (int32_t)(((uint32_t)offset << 16) | ((uint32_t)offset & 0xFFFFu));
    uint32_t w;
    memcpy(&w, in, 4);
    *even = __sadd16(__sxtb16(w), offset2);
    *odd = __sadd16(__sxtb16(arm_nn_ror8(w)), offset2);
}
#endif

#if defined(ARM_NN_USE_MVE)
/* The vector twin of arm_nn_requantize, lane by lane bit-identical: VQRDMULH is the doubling high
 * multiply (it saturates only for INT32_MIN * INT32_MIN), and VRSHL rounds half up, so negative lanes
 * are first nudged by -1 to round half away from zero. */
static inline int32x4_t arm_nn_requantize_mve_32x4(int32x4_t val, int32x4_t multiplier, int32x4_t shift)
{
    const int32x4_t zero = vdupq_n_s32(0);
    const int32x4_t left = vmaxq_s32(shift, zero);
    const int32x4_t right = vminq_s32(shift, zero);
    val = vqrdmulhq_s32(vshlq_s32(val, left), multiplier);
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(val, right), 31);
    return vrshlq_s32(vqaddq_s32(val, fixup), right);
}

static inline int32x4_t arm_nn_requantize_mve(int32x4_t val, int32_t multiplier, int32_t shift)
{
    return arm_nn_requantize_mve_32x4(val, vdupq_n_s32(multiplier), vdupq_n_s32(shift));
}
#endif

/* ---- inner helpers shared by a kernel family (one file each) ---- */

/* dst[r * row_address_offset + c] = requant(bias[c] + sum_k (lhs[r * lhs_cols_offset + k] + lhs_offset)
 * * rhs[c * rhs_cols + k]) for r < lhs_rows, c < rhs_rows: the GEMM behind every convolution. */
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
                                            int32_t lhs_cols_offset);

/* arm_nn_mat_mult_nt_t_s8 for up to four lhs rows, each filter's sum starting from init[c] = bias[c] +
 * lhs_offset * sum_k rhs[c * rhs_cols + k] (arm_vector_sum_s8): the im2col convolution computes init once. */
arm_cmsis_nn_status arm_nn_mat_mult_nt_t_s8_init(const int8_t *lhs,
                                                 const int8_t *rhs,
                                                 const int32_t *init,
                                                 int8_t *dst,
                                                 const int32_t *dst_multipliers,
                                                 const int32_t *dst_shifts,
                                                 int32_t lhs_rows,
                                                 int32_t rhs_rows,
                                                 int32_t rhs_cols,
                                                 int32_t dst_offset,
                                                 int32_t activation_min,
                                                 int32_t activation_max,
                                                 int32_t row_address_offset,
                                                 int32_t lhs_cols_offset);

/* One vector times a [rhs_rows, rhs_cols] matrix with one per-tensor scale (fully connected).
 * kernel_sum (MVE only, from arm_vector_sum_s8) holds lhs_offset * sum(rhs row + rhs_offset) + bias,
 * and replaces bias there. */
arm_cmsis_nn_status arm_nn_vec_mat_mult_t_s8(const int8_t *lhs,
                                             const int8_t *rhs,
                                             const int32_t *kernel_sum,
                                             const int32_t *bias,
                                             int8_t *dst,
                                             int32_t lhs_offset,
                                             int32_t dst_offset,
                                             int32_t dst_multiplier,
                                             int32_t dst_shift,
                                             int32_t rhs_cols,
                                             int32_t rhs_rows,
                                             int32_t activation_min,
                                             int32_t activation_max,
                                             int32_t address_offset,
                                             int32_t rhs_offset);

/* arm_nn_vec_mat_mult_t_s8 with dst_multiplier[r] / dst_shift[r] per rhs row (per-channel fully connected). */
arm_cmsis_nn_status arm_nn_vec_mat_mult_t_per_ch_s8(const int8_t *lhs,
                                                    const int8_t *rhs,
                                                    const int32_t *kernel_sum,
                                                    const int32_t *bias,
                                                    int8_t *dst,
                                                    int32_t lhs_offset,
                                                    int32_t dst_offset,
                                                    const int32_t *dst_multiplier,
                                                    const int32_t *dst_shift,
                                                    int32_t rhs_cols,
                                                    int32_t rhs_rows,
                                                    int32_t activation_min,
                                                    int32_t activation_max,
                                                    int32_t address_offset,
                                                    int32_t rhs_offset);

/* One output pixel of a channel-multiplier-1 depthwise convolution, all channels: taps outside the
 * input are skipped (a padded value plus the input offset is zero). base_y/base_x: input coordinates of
 * the kernel's top-left tap; the kernel is [kernel_h, kernel_w, channels]. */
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
                             int8_t *output);

/* Every output pixel of a channel-multiplier-1 depthwise convolution (input and output channels equal), no
 * scratch: through arm_nn_dw_conv_ch_mult1_runs_s8 where arm_nn_dw_conv_runs_fit, else
 * arm_nn_dw_conv_ch_mult1_pixels_s8. The two paths are functions of their own so that a firmware that knows its
 * shapes ahead of time can call and link only the one its layers take (mcu-export's model/mx_model_cmsis_nn.c). */
void arm_nn_dw_conv_ch_mult1_s8(const cmsis_nn_dw_conv_params *dw_conv_params,
                                const cmsis_nn_per_channel_quant_params *quant_params,
                                const cmsis_nn_dims *input_dims,
                                const int8_t *input_data,
                                const cmsis_nn_dims *filter_dims,
                                const int8_t *filter_data,
                                const int32_t *bias_data,
                                const cmsis_nn_dims *output_dims,
                                int8_t *output_data);

/* The runs path: runs of output rows through arm_nn_dw_conv_group_s8 (MVE, DSP), for arguments where
 * arm_nn_dw_conv_runs_fit; on a target without runs (plain C), the pixels path. */
void arm_nn_dw_conv_ch_mult1_runs_s8(const cmsis_nn_dw_conv_params *dw_conv_params,
                                     const cmsis_nn_per_channel_quant_params *quant_params,
                                     const cmsis_nn_dims *input_dims,
                                     const int8_t *input_data,
                                     const cmsis_nn_dims *filter_dims,
                                     const int8_t *filter_data,
                                     const int32_t *bias_data,
                                     const cmsis_nn_dims *output_dims,
                                     int8_t *output_data);

/* The pixels path: each output pixel through arm_nn_dw_conv_pixel_s8 (any arguments). */
void arm_nn_dw_conv_ch_mult1_pixels_s8(const cmsis_nn_dw_conv_params *dw_conv_params,
                                       const cmsis_nn_per_channel_quant_params *quant_params,
                                       const cmsis_nn_dims *input_dims,
                                       const int8_t *input_data,
                                       const cmsis_nn_dims *filter_dims,
                                       const int8_t *filter_data,
                                       const int32_t *bias_data,
                                       const cmsis_nn_dims *output_dims,
                                       int8_t *output_data);

/* Up to this many kernel taps (7x7, 10x4) the MVE depthwise runs groups of output pixels (arm_nn_dw_conv_group_s8),
 * larger kernels pixel by pixel: the group keeps two input pointers per tap on the stack (392 bytes). */
#define ARM_NN_DW_GROUP_MAX_TAPS 49
/* Fewer channels than this run pixel by pixel: on MVE a vector's 8 int16 lanes; on DSP 2 (one channel in a word's
 * four lanes costs more than the pixel helper's bytes). The DSP run walks input and kernel with one pointer:
 * dilation 1 along x only. */
#if defined(ARM_NN_USE_MVE)
#define ARM_NN_DW_GROUP_MIN_CH 8
#define ARM_NN_DW_GROUP_ANY_DILATION 1
#else
#define ARM_NN_DW_GROUP_MIN_CH 2
#define ARM_NN_DW_GROUP_ANY_DILATION 0
#endif

/* Whether a channel-multiplier-1 depthwise convolution runs as runs of output rows (MVE, DSP; never in plain C).
 * mcu-export's exporter has a twin (mcu_export/firmware/conv_dispatch.py, dw_path). */
#if defined(ARM_NN_USE_MVE) || defined(ARM_NN_USE_DSP)
#define ARM_NN_DW_RUNS 1
#else
#define ARM_NN_DW_RUNS 0
#endif
static inline int arm_nn_dw_conv_runs_fit(const cmsis_nn_dw_conv_params *p,
                                          const cmsis_nn_dims *input_dims,
                                          const cmsis_nn_dims *filter_dims)
{
    return ARM_NN_DW_RUNS && input_dims->c >= ARM_NN_DW_GROUP_MIN_CH &&
           filter_dims->h * filter_dims->w <= ARM_NN_DW_GROUP_MAX_TAPS &&
           (ARM_NN_DW_GROUP_ANY_DILATION || p->dilation.w == 1);
}

/* A run of output pixels of a channel-multiplier-1 depthwise convolution whose windows have the same tap rows inside
 * the input (the rows the top and bottom padding leave alone, whole), for arm_nn_dw_conv_group_s8: the batch's input;
 * the kernel at the first tap row inside, `rows` of them (the others add nothing); output row oy's first inside tap
 * row is input row oy * stride_h + first_row; row_step: the bytes from one tap row's input to the next. */
typedef struct
{
    const int8_t *input;
    const int8_t *kernel;
    int32_t rows;
    int32_t first_row;
    int32_t stride_h;
    int32_t stride_w;
    int32_t padding_w;
    int32_t dilation_w;
    int32_t out_w;
    int32_t input_h;
    int32_t input_w;
    int32_t row_step;
    int32_t channels;
    int32_t kernel_w;
    const int32_t *bias;
    const int32_t *multipliers;
    const int32_t *shifts;
    int32_t input_offset;
    int32_t output_offset;
    int32_t activation_min;
    int32_t activation_max;
} arm_nn_dw_group_args;

/* `count` output pixels from (oy, ox) on in output order, written from `out` on (MVE and DSP; channels >=
 * ARM_NN_DW_GROUP_MIN_CH, kernel_h * kernel_w <= ARM_NN_DW_GROUP_MAX_TAPS, on DSP dilation_w 1); on MVE two at a
 * time, one weight load for both. Taps in the padding add nothing, as in arm_nn_dw_conv_pixel_s8. */
void arm_nn_dw_conv_group_s8(const arm_nn_dw_group_args *g, int32_t oy, int32_t ox, int32_t count, int8_t *out);

/* ---- additions by the elementwise/pool/softmax kernels go below this line ---- */

/* Saturating rounding doubling high multiply as gemmlowp/TFLite define it (softmax's fixed-point exp and
 * reciprocal). Its nudge-and-truncate definition equals floor((m1 * m2 + 2^30) / 2^31), which is what
 * MVE's VQRDMULH computes, so the scalar and vector softmax agree to the bit. */
static inline int32_t arm_nn_doubling_high_mult(const int32_t m1, const int32_t m2)
{
    if (m1 == NN_Q31_MIN && m2 == NN_Q31_MIN) {
        return NN_Q31_MAX;
    }
    return (int32_t)(((int64_t)m1 * m2 + ((int64_t)1 << 30)) >> 31);
}

#if defined(ARM_NN_USE_MVE)
/* arm_nn_divide_by_power_of_two on four lanes: VRSHL rounds half up, so negative lanes are first nudged by
 * -1 (the AND with -exponent keeps a sign bit only when exponent > 0). */
static inline int32x4_t arm_nn_divide_by_power_of_two_mve(const int32x4_t dividend, const int32_t exponent)
{
    const int32x4_t shift = vdupq_n_s32(-exponent);
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(dividend, shift), 31);
    return vrshlq_s32(vqaddq_s32(dividend, fixup), shift);
}
#endif
/* The shared body of arm_maximum_s8 (take_max 1) and arm_minimum_s8 (take_max 0). */
arm_cmsis_nn_status arm_nn_elementwise_min_max_s8(const int8_t *input_1_data,
                                                  const cmsis_nn_dims *input_1_dims,
                                                  const int8_t *input_2_data,
                                                  const cmsis_nn_dims *input_2_dims,
                                                  int8_t *output_data,
                                                  const cmsis_nn_dims *output_dims,
                                                  const int32_t take_max);
/* ---- end of the elementwise/pool/softmax additions ---- */

#endif /* ARM_NNSUPPORTFUNCTIONS_H */
