#ifndef MX_PORTABLE_MATMUL_NT_F32_H
#define MX_PORTABLE_MATMUL_NT_F32_H
/* Float32 product of a row-major matrix and a transposed one, rows of c in order: the channels-last 1x1
 * convolution, whose pixels are the rows of a (each its channels) and whose weight [out][in] is the transposed
 * operand as stored. */
#include <stddef.h>
#include <stdint.h>

/* c[i][j] = bias[j] + sum_p a[i][p] * bt[j][p] (bias NULL: 0) for i < m, j < n, p < k; rows lda, ldb, ldc
 * elements apart; c must not overlap the rows of a this call reads (a caller running over its input calls it once
 * per image row, in the order mx_planes.h needs). Per element: bias, then each product in p's order, as the other
 * float32 paths, so the bits are theirs. */
void mx_matmul_nt_f32(const float *a, uint32_t lda, const float *bt, uint32_t ldb, const float *bias, float *c,
                      uint32_t ldc, uint32_t m, uint32_t k, uint32_t n);

#endif
