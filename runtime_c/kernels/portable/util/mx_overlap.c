#include "mx_overlap.h"

bool mx_overlap_elementwise(mx_value *const *args, uint32_t arg, uint32_t out) {
  const mx_value *x = args[arg], *y = args[out];
  if (x->tag != MX_TAG_TENSOR || y->tag != MX_TAG_TENSOR) return false;
  const mx_tensor *a = x->u.t, *b = y->u.t;
  if (a->dim != b->dim || b->numel == 0 || mx_dtype_size(a->dtype) < mx_dtype_size(b->dtype)) return false;
  for (uint32_t d = 0; d < a->dim; d++) {
    if (a->sizes[d] != b->sizes[d] || a->dim_order[d] != b->dim_order[d]) return false;
  }
  return (uintptr_t)b->data <= (uintptr_t)a->data;
}
