#ifndef MX_PORTABLE_MATMUL_F32_H
#define MX_PORTABLE_MATMUL_F32_H
/* Row-major float32 matrix product shared by mm, bmm, addmm and the 1x1 convolution. */
#include <stddef.h>
#include <stdint.h>

/* c[m][n] = sum_p a[m][p] * b[p][n]; c must not alias a or b. */
void mx_matmul_f32(const float *a, const float *b, float *c, uint32_t m, uint32_t k, uint32_t n);

/* c[i][j] = row_bias[i] + sum_p a[i][p] * b[p][j] (row_bias NULL: 0); c must not alias a or b. */
void mx_matmul_bias_f32(const float *a, const float *b, const float *row_bias, float *c, uint32_t m, uint32_t k,
                        uint32_t n);

#endif
