/* The DSP building block of the fully-connected products (arm_nn_vec_mat_mult_t_core): one input vector
 * against four weight rows, each input word loaded and widened once for the four rows. */
#ifndef ARM_NN_VEC_MAT_MULT_DSP_H
#define ARM_NN_VEC_MAT_MULT_DSP_H

#include "arm_nnsupportfunctions.h"

#if defined(ARM_NN_USE_DSP)
/* Four columns: the input word widened to two halfword pairs (SXTAB16 adds the input offset, kept in memory
 * since the loop has no register left for it; SXTB16 when it is 0), then per row one weight word, two
 * SXTB16, two SMLADs. Rows are p + c, p, q + c, q: two pointers and one stride serve four rows. */
#define MX_VM_WIDEN_X                          \
    "   ldr    %[xe], [%[x]], #4           \n" \
    "   sxtb16 %[xo], %[xe], ror #8        \n" \
    "   sxtb16 %[xe], %[xe]                \n"
#define MX_VM_WIDEN_X_OFF                      \
    "   ldr    %[xe], [%[x]], #4           \n" \
    "   ldr    %[t], %[off]                \n" \
    "   sxtab16 %[xo], %[t], %[xe], ror #8 \n" \
    "   sxtab16 %[xe], %[t], %[xe]         \n"
#define MX_VM_ROW(LOAD, ACC)                    \
    "   " LOAD "                           \n"  \
    "   sxtb16 %[t], %[w]                  \n"  \
    "   smlad  " ACC ", %[xe], %[t], " ACC "\n" \
    "   sxtb16 %[w], %[w], ror #8          \n"  \
    "   smlad  " ACC ", %[xo], %[w], " ACC "\n"
#define MX_VM_ROWS                                  \
    MX_VM_ROW("ldr    %[w], [%[p], %[c]]", "%[a1]") \
    MX_VM_ROW("ldr    %[w], [%[p]], #4", "%[a0]")   \
    MX_VM_ROW("ldr    %[w], [%[q], %[c]]", "%[a3]") \
    MX_VM_ROW("ldr    %[w], [%[q]], #4", "%[a2]")

/* n4 >= 1 steps of four columns of rows p, p + c, q, q + c into a[0..3], two steps per loop pass (an odd
 * n4 enters at the second): 49 instructions per 32 MACs, 51 with an input offset. In assembly because the
 * pass needs 13 of the 14 allocatable registers; GCC 12, given it in C, keeps pointers on the stack. The
 * loop bound stays in memory and is read into t once per pass. At -O0, where GCC 12 finds no registers
 * for it, and with clang (none at any level), the same in C. */
#define MX_VM_LOOP(WIDEN)                                                                                  \
    "   ldr    %[t], %[odd]                \n"                                                             \
    "   cmp    %[t], #0                    \n"                                                             \
    "   bne    2f                          \n"                                                             \
    "1:                                    \n" WIDEN MX_VM_ROWS                                            \
    "2:                                    \n" WIDEN MX_VM_ROWS "   ldr    %[t], %[end]                \n" \
    "   cmp    %[p], %[t]                  \n"                                                             \
    "   bne    1b                          \n"
static inline void arm_nn_vec_mat_4rows_dsp(
    const int8_t *x, const int8_t *p, const int8_t *q, int32_t c, int32_t n4, int32_t lhs_offset, int32_t *a)
{
    const uint32_t off = ((uint32_t)(uint16_t)lhs_offset << 16) | (uint16_t)lhs_offset;
#if defined(__OPTIMIZE__) && !defined(__clang__)
    int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    int32_t xe, xo, w, t;
    const int8_t *const end = p + 4 * n4;
    const int32_t odd = n4 & 1;
#define MX_VM_OPERANDS                                                                                   \
    : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [p] "+r"(p), [q] "+r"(q), \
      [xe] "=&r"(xe), [xo] "=&r"(xo), [w] "=&r"(w), [t] "=&r"(t)                                                 \
    : [c] "r"(c), [end] "m"(end), [odd] "m"(odd), [off] "m"(off)                                                 \
    : "cc", "memory"
    if (lhs_offset == 0) {
        __asm__ volatile(MX_VM_LOOP(MX_VM_WIDEN_X) MX_VM_OPERANDS);
    } else {
        __asm__ volatile(MX_VM_LOOP(MX_VM_WIDEN_X_OFF) MX_VM_OPERANDS);
    }
#undef MX_VM_OPERANDS
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    a[3] = a3;
#else
    for (int32_t k = 0; k < n4; k++, x += 4, p += 4, q += 4) {
        const uint32_t xw = (uint32_t)arm_nn_read_s8x4(x);
        const int32_t xe = (int32_t)__sxtab16(off, xw), xo = (int32_t)arm_nn_sxtab16_ror8(off, xw);
        const int8_t *const rows[4] = {p, p + c, q, q + c};
        for (int32_t i = 0; i < 4; i++) {
            const uint32_t w = (uint32_t)arm_nn_read_s8x4(rows[i]);
            a[i] = __smlad(xo, (int32_t)arm_nn_sxtb16_ror8(w), __smlad(xe, (int32_t)__sxtb16(w), a[i]));
        }
    }
#endif
}
#undef MX_VM_WIDEN_X
#undef MX_VM_WIDEN_X_OFF
#undef MX_VM_ROW
#undef MX_VM_ROWS
#undef MX_VM_LOOP
#endif

#endif
