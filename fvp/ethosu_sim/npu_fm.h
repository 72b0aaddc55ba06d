/* Feature maps as the NPU addresses them: up to four tiles, NHWC or NHCWB16, 8/16/32-bit elements
 * (addressing as Vela's get_address; npu_commands.h). Every element access is bounds-checked against the
 * feature map's region. */
#ifndef MX_NPU_FM_H
#define MX_NPU_FM_H

#include "npu_exec_state.h"

typedef struct mx_npu_fmview {
  const mx_npu_fm *fm;
  const char *name; /* "IFM", "IFM2", "OFM": for error messages */
  uint8_t *data;    /* the region */
  size_t size;
  unsigned esize;    /* bytes per element */
  int is_signed;
  int64_t lo, hi;    /* the element type's range */
  int64_t stride_x, stride_y, stride_c; /* bytes, sign-extended from the 48-bit registers */
  struct mx_npu_chain *chain; /* U85 storage CHAINED: the elements live there, not in the region (else NULL) */
} mx_npu_fmview;

/* Binds `fm` to its region; refuses an unset region. */
int mx_npu_fm_bind(mx_npu_exec *x, const mx_npu_fm *fm, const char *name, mx_npu_fmview *v);
/* The view of a feature map with no memory (the U85's CHAINED and NONE storage): its type, no region (every access
 * outside it, unless the caller sets `chained`). */
void mx_npu_fm_bind_unplaced(const mx_npu_fm *fm, const char *name, mx_npu_fmview *v);

/* The element at (y, x, c) of the feature map (coordinates from its tile 0's origin). */
int mx_npu_fm_read(mx_npu_exec *x, const mx_npu_fmview *v, int y, int xx, int c, int64_t *value);
/* Writes `value` (already within the element type's range) at (y, x, c). */
int mx_npu_fm_write(mx_npu_exec *x, const mx_npu_fmview *v, int y, int xx, int c, int64_t value);
/* Writes an operation's result (y, x, c) where the OFM's transpose puts it (the U85's OFM_PRECISION; none on the
 * U55/U65). */
int mx_npu_ofm_write(mx_npu_exec *x, const mx_npu_fmview *ofm, int y, int xx, int c, int64_t value);

#endif
