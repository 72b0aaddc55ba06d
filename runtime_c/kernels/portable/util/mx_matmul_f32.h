#ifndef MX_PORTABLE_MATMUL_F32_H
#define MX_PORTABLE_MATMUL_F32_H
/* Row-major float32 matrix product shared by mm, bmm and addmm. */
#include <stddef.h>
#include <stdint.h>

/* c[m][n] = sum_p a[m][p] * b[p][n]; c must not alias a or b. */
void mx_matmul_f32(const float *a, const float *b, float *c, uint32_t m, uint32_t k, uint32_t n);

#endif
