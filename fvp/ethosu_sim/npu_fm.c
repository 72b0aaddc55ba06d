/* Feature-map addressing (npu_fm.h). */
#include "npu_fm.h"

static int64_t sign_extend_48(uint64_t v) {
  v &= ((uint64_t)1 << 48) - 1;
  return (v >> 47) ? (int64_t)(v | ~(((uint64_t)1 << 48) - 1)) : (int64_t)v;
}

/* Each element type's size, signedness and range (mx_npu_dtype). */
static const struct {
  unsigned esize;
  int is_signed;
  int64_t lo, hi;
} types[] = {
    [MX_NPU_DTYPE_U8] = {1, 0, 0, UINT8_MAX},          [MX_NPU_DTYPE_S8] = {1, 1, INT8_MIN, INT8_MAX},
    [MX_NPU_DTYPE_U16] = {2, 0, 0, UINT16_MAX},        [MX_NPU_DTYPE_S16] = {2, 1, INT16_MIN, INT16_MAX},
    [MX_NPU_DTYPE_S32] = {4, 1, INT32_MIN, INT32_MAX},
};

int mx_npu_fm_bind(mx_npu_exec *x, const mx_npu_fm *fm, const char *name, mx_npu_fmview *v) {
  const mx_npu_region *r = &x->regions[fm->region & 7u];
  if (r->data == NULL) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_OUT_OF_BOUNDS, "%s region %u has no memory", name, (unsigned)fm->region);
  }
  *v = (mx_npu_fmview){fm,
                       name,
                       r->data,
                       r->size,
                       types[fm->dtype].esize,
                       types[fm->dtype].is_signed,
                       types[fm->dtype].lo,
                       types[fm->dtype].hi,
                       sign_extend_48(fm->stride_x),
                       sign_extend_48(fm->stride_y),
                       sign_extend_48(fm->stride_c),
                       NULL};
  return 0;
}

void mx_npu_fm_bind_unplaced(const mx_npu_fm *fm, const char *name, mx_npu_fmview *v) {
  *v = (mx_npu_fmview){
      fm, name, NULL, 0,   types[fm->dtype].esize, types[fm->dtype].is_signed, types[fm->dtype].lo, types[fm->dtype].hi,
      0,  0,    0,    NULL};
}

/* A CHAINED feature map's element: the producer's OFM shape decides the index; outside it is an error. */
static int32_t *chained(mx_npu_exec *x, const mx_npu_fmview *v, int y, int xx, int c) {
  const mx_npu_chain *k = v->chain;
  if (y < 0 || xx < 0 || c < 0 || y >= k->h || xx >= k->w || c >= k->c) {
    mx_npu_exec_fail(x, MX_NPU_ERR_OUT_OF_BOUNDS, "%s element (y %d, x %d, c %d) is outside the chained %dx%dx%d",
                     v->name, y, xx, c, k->h, k->w, k->c);
    return NULL;
  }
  return &v->chain->data[((size_t)y * (size_t)k->w + (size_t)xx) * (size_t)k->c + (size_t)c];
}

/* The byte offset of (y, x, c): the tile that holds it, then the layout's formula (Vela's get_address). */
static int locate(mx_npu_exec *x, const mx_npu_fmview *v, int y, int xx, int c, size_t *offset) {
  const mx_npu_fm *fm = v->fm;
  unsigned tile = 0;
  int64_t ty = y, tx = xx;
  if (tx > fm->width0_m1) {
    tx -= (int64_t)fm->width0_m1 + 1;
    tile = 1;
    if (ty > fm->height1_m1) {
      ty -= (int64_t)fm->height1_m1 + 1;
      tile = 3;
    }
  } else if (ty > fm->height0_m1) {
    ty -= (int64_t)fm->height0_m1 + 1;
    tile = 2;
  }
  /* Unsigned arithmetic: wraps (defined) for any register values; a wrapped address fails the check below. */
  uint64_t e = v->esize, uy = (uint64_t)ty, ux = (uint64_t)tx, uc = (uint64_t)c, at;
  if (fm->layout == MX_NPU_LAYOUT_NHCWB16) {
    at = uy * (uint64_t)v->stride_y + ux * 16 * e + (uc / 16) * (uint64_t)v->stride_c + (uc % 16) * e;
  } else {
    at = uy * (uint64_t)v->stride_y + ux * (uint64_t)v->stride_x + uc * e;
  }
  uint64_t address = fm->base[tile] + at;
  if (address >= v->size || v->size - address < e) {
    return mx_npu_exec_fail(
        x, MX_NPU_ERR_OUT_OF_BOUNDS,
        "%s element (y %d, x %d, c %d) at address 0x%llx (tile %u) lies outside region %u of %zu bytes", v->name, y, xx,
        c, (unsigned long long)address, tile, (unsigned)fm->region, v->size);
  }
  *offset = (size_t)address;
  return 0;
}

int mx_npu_fm_read(mx_npu_exec *x, const mx_npu_fmview *v, int y, int xx, int c, int64_t *value) {
  if (v->chain != NULL) {
    const int32_t *e = chained(x, v, y, xx, c);
    if (e == NULL) return -(int)x->err->status;
    *value = *e;
    return 0;
  }
  size_t at = 0;
  int rc = locate(x, v, y, xx, c, &at);
  if (rc != 0) return rc;
  const uint8_t *p = v->data + at;
  uint32_t u = p[0];
  for (unsigned i = 1; i < v->esize; i++) u |= (uint32_t)p[i] << (8 * i);
  if (!v->is_signed) {
    *value = u;
  } else if (v->esize == 1) {
    *value = (int8_t)u;
  } else if (v->esize == 2) {
    *value = (int16_t)u;
  } else {
    *value = (int32_t)u;
  }
  return 0;
}

int mx_npu_fm_write(mx_npu_exec *x, const mx_npu_fmview *v, int y, int xx, int c, int64_t value) {
  if (v->chain != NULL) {
    int32_t *e = chained(x, v, y, xx, c);
    if (e == NULL) return -(int)x->err->status;
    *e = (int32_t)value;
    return 0;
  }
  size_t at = 0;
  int rc = locate(x, v, y, xx, c, &at);
  if (rc != 0) return rc;
  uint32_t u = (uint32_t)value;
  for (unsigned i = 0; i < v->esize; i++) v->data[at + i] = (uint8_t)(u >> (8 * i));
  return 0;
}

/* The U85's OFM_PRECISION transpose: the OFM element an (y, x, c) result goes to. HWC is none (and the U55/U65's
 * state always says none); regor uses the others for TRANSPOSE and folds a transpose after a convolution into it. */
static void transpose_at(unsigned transpose, int y, int xx, int c, int out[3]) {
  switch (transpose) {
    case 1: out[0] = xx, out[1] = y, out[2] = c; break;  /* WHC */
    case 2: out[0] = y, out[1] = c, out[2] = xx; break;  /* HCW */
    case 3: out[0] = xx, out[1] = c, out[2] = y; break;  /* WCH */
    case 6: out[0] = c, out[1] = y, out[2] = xx; break;  /* CHW */
    case 7: out[0] = c, out[1] = xx, out[2] = y; break;  /* CWH */
    default: out[0] = y, out[1] = xx, out[2] = c; break; /* HWC */
  }
}

int mx_npu_ofm_write(mx_npu_exec *x, const mx_npu_fmview *ofm, int y, int xx, int c, int64_t v) {
  int at[3];
  transpose_at(x->op->state.u85.ofm_transpose, y, xx, c, at);
  return mx_npu_fm_write(x, ofm, at[0], at[1], at[2], v);
}
