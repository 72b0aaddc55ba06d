/* A feature map's zero point as the NPU reads it: two's complement, but unsigned for an unsigned type. */
#ifndef MX_NPU_ZERO_POINT_H
#define MX_NPU_ZERO_POINT_H

#include "npu_commands.h"

static inline int64_t mx_npu_zero_point(const mx_npu_fm *fm) {
  return (fm->dtype == MX_NPU_DTYPE_U8 || fm->dtype == MX_NPU_DTYPE_U16) ? (int64_t)(uint16_t)fm->zero_point
                                                                         : (int64_t)fm->zero_point;
}

#endif
