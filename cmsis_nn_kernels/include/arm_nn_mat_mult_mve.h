/* The MVE building blocks of the int8 GEMMs (arm_nn_mat_mult_nt_t_s8, arm_nn_mat_mult_nt_t_s8_init): a
 * tail-predicated dot-product loop of four lhs rows against one filter, and the requantize-and-scatter of
 * its four sums. */
#ifndef ARM_NN_MAT_MULT_MVE_H
#define ARM_NN_MAT_MULT_MVE_H

#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_MVE)
/* Four lhs rows (patches, pitch bytes apart) against one rhs row (filter), 16 columns per step in a
 * tail-predicated loop (WLSTP/LETP: the last step's loads and sums see only the columns left, so no
 * separate tail). Each filter vector is loaded once for the four rows; with `sum`, its sum is taken too
 * (for the lhs offset: sum((x + off) * w) = sum(x * w) + off * sum(w)). The accumulators must be even
 * registers (VMLADAV, VADDV encode them so: the "Te" constraint). */
#define DOT4_LOOP(SUM_INSN)                                                                                  \
    "   add     %[x1], %[x0], %[pitch]          \n"                                                          \
    "   add     %[x2], %[x1], %[pitch]          \n"                                                          \
    "   add     %[x3], %[x2], %[pitch]          \n"                                                          \
    "   wlstp.8 lr, %[cnt], 1f                  \n"                                                          \
    "2: vldrb.8 q0, [%[w]], #16                 \n" SUM_INSN "   vldrb.8 q1, [%[x0]], #16                \n" \
    "   vmladava.s8 %[a0], q0, q1               \n"                                                          \
    "   vldrb.8 q1, [%[x1]], #16                \n"                                                          \
    "   vmladava.s8 %[a1], q0, q1               \n"                                                          \
    "   vldrb.8 q1, [%[x2]], #16                \n"                                                          \
    "   vmladava.s8 %[a2], q0, q1               \n"                                                          \
    "   vldrb.8 q1, [%[x3]], #16                \n"                                                          \
    "   vmladava.s8 %[a3], q0, q1               \n"                                                          \
    "   letp    lr, 2b                          \n"                                                          \
    "1:                                         \n"

/* a[r] = init + row r of lhs times w, *sum = sum(w) */
static inline void dot4_sum(
    const int8_t *x0, int32_t pitch, const int8_t *w, int32_t cols, int32_t init, int32_t *a, int32_t *sum)
{
    int32_t a0 = init, a1 = init, a2 = init, a3 = init, s = 0;
    const int8_t *x1, *x2, *x3;
    __asm__ volatile(DOT4_LOOP("   vaddva.s8 %[s], q0                      \n")
                     : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [s] "+Te"(s), [x0] "+r"(x0),
                       [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [w] "+r"(w)
                     : [pitch] "r"(pitch), [cnt] "r"(cols)
                     : "q0", "q1", "memory", "lr");
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    a[3] = a3;
    *sum = s;
}

static inline void dot4(const int8_t *x0, int32_t pitch, const int8_t *w, int32_t cols, int32_t init, int32_t *a)
{
    int32_t a0 = init, a1 = init, a2 = init, a3 = init;
    const int8_t *x1, *x2, *x3;
    __asm__ volatile(DOT4_LOOP("")
                     : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [x0] "+r"(x0), [x1] "=&r"(x1),
                       [x2] "=&r"(x2), [x3] "=&r"(x3), [w] "+r"(w)
                     : [pitch] "r"(pitch), [cnt] "r"(cols)
                     : "q0", "q1", "memory", "lr");
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    a[3] = a3;
}

/* sum(w[0..cols)) */
static inline int32_t sum_mve(const int8_t *w, int32_t cols)
{
    int32_t s = 0;
    __asm__ volatile("   wlstp.8 lr, %[cnt], 1f      \n"
                     "2: vldrb.8 q0, [%[w]], #16     \n"
                     "   vaddva.s8 %[s], q0          \n"
                     "   letp    lr, 2b              \n"
                     "1:                             \n"
                     : [s] "+Te"(s), [w] "+r"(w)
                     : [cnt] "r"(cols)
                     : "q0", "memory", "lr");
    return s;
}

/* The four sums as one vector: two VMOVs of two lanes each. The operand order is the one clang itself
 * selects for {a0, a1, a2, a3} ("vmov q[2], q[0], a0, a2"), and the assembler refuses the same register twice,
 * so the four sums must be four registers (they are: four asm outputs). */
static inline int32x4_t gather4(const int32_t *a)
{
    int32x4_t v;
    __asm__("vmov %q0[2], %q0[0], %1, %3\n"
            "vmov %q0[3], %q0[1], %2, %4"
            : "=w"(v)
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]));
    return v;
}

/* Four sums of one filter requantized with its multiplier and shift (scalar operands: no per-filter vector
 * set-up beyond the right shift), offset, clamped and scattered to the four output rows (`rows`: byte
 * offsets; a row past the matrix has offset 0 and repeats row 0's value). */
static inline void store4(int32x4_t v,
                          int32_t multiplier,
                          int32_t shift,
                          int32x4_t dst_offset,
                          int32x4_t lo,
                          int32x4_t hi,
                          int8_t *dst,
                          uint32x4_t rows)
{
    v = vshlq_r_s32(v, shift > 0 ? shift : 0);
    v = vqrdmulhq_n_s32(v, multiplier);
    const int32x4_t right = vdupq_n_s32(shift < 0 ? shift : 0);
    v = vrshlq_s32(vqaddq_s32(v, vshrq_n_s32(vandq_s32(v, right), 31)), right);
    v = vmaxq_s32(vaddq_s32(v, dst_offset), lo);
    vstrbq_scatter_offset_s32(dst, rows, vminq_s32(v, hi));
}
#endif

#endif
