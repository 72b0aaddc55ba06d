#include "mx_cm_min_max.h"

#include "arm_nnfunctions.h"
#include "mx_cm_args.h"
#include "mx_cm_binary.h"

mx_error mx_cm_min_max(const mx_tensor *a, const mx_tensor *b, const mx_tensor *out, bool take_max) {
  mx_cm_binary plan;
  (void)mx_cm_binary_plan(a, b, out, &plan); /* checked at load */
  const cmsis_nn_dims run = {1, 1, 1, (int32_t)plan.row_len};
  const int8_t *pa = (const int8_t *)a->data, *pb = (const int8_t *)b->data;
  int8_t *po = (int8_t *)out->data;
  for (uint32_t r = 0; r < plan.rows; ++r) {
    uint32_t ao, bo;
    mx_cm_binary_row(&plan, r, &ao, &bo);
    int8_t *dst = po + r * plan.row_len;
    MX_TRY(mx_cm_status(take_max ? arm_maximum_s8(NULL, pa + ao, &run, pb + bo, &run, dst, &run)
                                 : arm_minimum_s8(NULL, pa + ao, &run, pb + bo, &run, dst, &run)));
  }
  return MX_OK;
}
