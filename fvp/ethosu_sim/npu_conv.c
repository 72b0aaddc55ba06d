/* NPU_OP_CONV and NPU_OP_DEPTHWISE: int8 IFM, int32/40-bit accumulation of (IFM - zero point) x weight plus
 * the channel's bias, the channel's scale and shift with the OFM rounding mode, the OFM zero point, the
 * activation.
 *
 * Weights (README.md): per core, one MLW stream holding the operation's weights in the NPU's brick order.
 * The order, as Vela's encoders write it (mlw_codec's reorder, regor's EthosUWeightOrdering; IFM micro-blocks of 8
 * channels, OFM micro-blocks of 8, or 4 on the 32-MAC Ethos-U55: mx_npu_execute_config): OFM blocks of OFM_BLK_DEPTH channels (per core: its share, rounded up for the lower cores); in
 * each, IFM blocks of 32 channels (16 part-kernel-first; one for depthwise); in each, 8x8 sub-kernels of the
 * undilated kernel (8/dilation); in each, for part-kernel-first the IFM micro-blocks outermost, then the OFM
 * micro-blocks, the sub-kernel's elements (row-major, padded to a multiple of 4 for part-kernel-first and
 * depthwise), for depth-first the IFM micro-blocks, then an OFM micro-block's channels x 8 IFM channels (1 for depthwise).
 * Positions outside the weights hold zeros. With two cores (Ethos-U65-512, PARALLEL_MODE 1) core k holds
 * channels k, k + 2, ... and their bias/scale records, in order. */
#include <string.h>

#include "mlw_decode.h"
#include "npu_activation.h"
#include "npu_conv.h"
#include "npu_fm.h"
#include "npu_round.h"
#include "npu_zero_point.h"

#define IFM_UBLOCK 8 /* IFM micro-block depth (the OFM's is x->ofm_ublock) */
#define SUBKERNEL 8
#define RECORD_BYTES 10

typedef mx_npu_conv_shape conv_shape;

/* Places core `core`'s decoded stream (x->u.stream[0 .. n)) into x->weights; fails when the stream's length is
 * not the one the order needs. */
static int place_weights(mx_npu_exec *x, const conv_shape *g, int core, size_t n) {
  int channels = (g->oc + g->ncores - 1 - core) / g->ncores;
  int block = (g->block_depth + g->ncores - 1 - core) / g->ncores;
  int ifm_block = g->part_kernel_first ? 16 : 32;
  int round = (g->depthwise || g->part_kernel_first) ? 4 : 1;
  int dec_h = SUBKERNEL / g->dil_y, dec_w = SUBKERNEL / g->dil_x;
  size_t pos = 0;
  if (block <= 0) return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS, "OFM block depth %d for core %d", block, core);
  for (int ob = 0; ob < channels; ob += block) {
    int cob = channels - ob < block ? channels - ob : block;
    for (int ib = 0; ib < (g->depthwise ? 1 : g->ic); ib += ifm_block) {
      int cib = g->depthwise           ? IFM_UBLOCK
                : g->part_kernel_first ? (g->ic - ib < ifm_block ? g->ic - ib : ifm_block)
                                       : ifm_block;
      for (int sy = 0; sy < g->kh; sy += dec_h) {
        int sh = g->kh - sy < dec_h ? g->kh - sy : dec_h;
        for (int sx = 0; sx < g->kw; sx += dec_w) {
          int sw = g->kw - sx < dec_w ? g->kw - sx : dec_w;
          int elements = (sw * sh + round - 1) / round * round;
          int outer = g->part_kernel_first ? cib : 1, inner = g->part_kernel_first ? 1 : cib;
          for (int iuo = 0; iuo < outer; iuo += IFM_UBLOCK) {
            for (int ou = 0; ou < cob; ou += x->ofm_ublock) {
              for (int e = 0; e < elements; e++) {
                int kx = e % sw, ky = e / sw;
                for (int iui = 0; iui < inner; iui += IFM_UBLOCK) {
                  for (int oz = 0; oz < x->ofm_ublock; oz++) {
                    for (int iz = 0; iz < (g->depthwise ? 1 : IFM_UBLOCK); iz++, pos++) {
                      int i = ib + iui + iuo + iz, o = ob + ou + oz;
                      if (i >= g->ic || o >= channels || ky >= sh) continue;
                      if (pos >= n) goto short_stream;
                      int global = o * g->ncores + core;
                      size_t at = (((size_t)global * g->kh + sy + ky) * g->kw + sx + kx) * g->ic + i;
                      x->weights[at] = x->u.stream[pos];
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (pos != n) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS,
                            "core %d's weight stream decodes to %zu values, the operation's brick order has %zu", core,
                            n, pos);
  }
  return 0;
short_stream:
  return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS,
                          "core %d's weight stream decodes to %zu values, fewer than the operation's brick order needs",
                          core, n);
}

static int load_core(mx_npu_exec *x, const conv_shape *g, int core) {
  const mx_npu_state *s = &x->op->state;
  int channels = (g->oc + g->ncores - 1 - core) / g->ncores;
  if (channels == 0) return 0;
  const uint8_t *w = mx_npu_span(x, s->weight.region, 0, s->weight.base[core], s->weight.length[core],
                                 core ? "WEIGHT1 stream" : "WEIGHT stream");
  if (w == NULL) return -(int)x->err->status;
  size_t n = 0;
  int rc = mx_mlw_decode(w, s->weight.length[core], x->u.stream, MX_NPU_MAX_WEIGHTS, &n);
  if (rc == MX_MLW_ERR_CAPACITY) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_TOO_LARGE, "core %d's weight stream holds more than %d values", core,
                            MX_NPU_MAX_WEIGHTS);
  }
  if (rc != 0) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS, "core %d's weight stream: %s", core, mx_mlw_error_text(rc));
  }
  rc = place_weights(x, g, core, n);
  if (rc != 0) return rc;
  uint64_t need = (uint64_t)channels * RECORD_BYTES;
  if (s->scale.length[core] < need) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS, "SCALE%s_LENGTH %u is less than %d channels x 10 bytes",
                            core ? "1" : "", (unsigned)s->scale.length[core], channels);
  }
  const uint8_t *r =
      mx_npu_span(x, s->scale.region, 0, s->scale.base[core], need, core ? "SCALE1 records" : "SCALE records");
  if (r == NULL) return -(int)x->err->status;
  for (int o = 0; o < channels; o++, r += RECORD_BYTES) {
    int global = o * g->ncores + core;
    uint64_t bias = 0;
    for (int b = 0; b < 5; b++) bias |= (uint64_t)r[b] << (8 * b);
    if (bias >> 39) bias |= ~(((uint64_t)1 << 40) - 1); /* 40-bit two's complement */
    x->bias[global] = (int64_t)bias;
    x->scale[global] = (uint32_t)r[5] | (uint32_t)r[6] << 8 | (uint32_t)r[7] << 16 | (uint32_t)r[8] << 24;
    x->shift[global] = r[9] & 0x3Fu;
  }
  return 0;
}

mx_npu_conv_shape mx_npu_conv_shape_of(const mx_npu_exec *x, int ncores) {
  const mx_npu_state *s = &x->op->state;
  mx_npu_conv_shape g;
  g.depthwise = x->op->opcode == MX_NPU_OP_DEPTHWISE;
  g.part_kernel_first = s->kernel.part_kernel_first;
  g.dil_x = s->kernel.dilation_x;
  g.dil_y = s->kernel.dilation_y;
  g.kh = s->kernel.height_m1 / g.dil_y + 1;
  g.kw = s->kernel.width_m1 / g.dil_x + 1;
  g.oc = s->ofm.depth_m1 + 1;
  g.ic = g.depthwise ? 1 : s->ifm.depth_m1 + 1;
  g.ncores = ncores;
  g.block_depth = s->ofm.blk_depth_m1 + 1;
  return g;
}

int mx_npu_exec_conv(mx_npu_exec *x) {
  const mx_npu_state *s = &x->op->state;
  conv_shape g = mx_npu_conv_shape_of(x, s->parallel_mode + 1);

  if (s->ifm.fm.dtype != MX_NPU_DTYPE_S8 && s->ifm.fm.dtype != MX_NPU_DTYPE_U8) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "%s IFM is not implemented (8-bit only)",
                            s->ifm.fm.dtype == MX_NPU_DTYPE_S32 ? "a 32-bit" : "a 16-bit");
  }
  if (s->ifm.upscale != MX_NPU_RESAMPLING_NONE) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "IFM upscale mode %s is not implemented",
                            s->ifm.upscale == MX_NPU_RESAMPLING_NEAREST ? "NEAREST" : "TRANSPOSE");
  }
  if (s->ofm.global_scale) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED,
                            "a convolution with the global OFM scale is not implemented");
  }
  if (g.ncores > 2) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "PARALLEL_MODE %u (more than 2 cores)",
                            (unsigned)s->parallel_mode);
  }
  if (g.depthwise && s->ifm.depth_m1 != s->ofm.depth_m1) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "depthwise with IFM depth %d and OFM depth %d",
                            s->ifm.depth_m1 + 1, g.oc);
  }
  if (g.oc > MX_NPU_MAX_CHANNELS || (uint64_t)g.oc * g.kh * g.kw * g.ic > MX_NPU_MAX_WEIGHTS) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_TOO_LARGE, "%d x %dx%d x %d weights exceed the executor's %d", g.oc, g.kh,
                            g.kw, g.ic, MX_NPU_MAX_WEIGHTS);
  }
  memset(x->weights, 0, sizeof x->weights[0] * (size_t)g.oc * g.kh * g.kw * g.ic);
  for (int core = 0; core < g.ncores; core++) {
    int rc = load_core(x, &g, core);
    if (rc != 0) return rc;
  }

  mx_npu_fmview ifm, ofm;
  mx_npu_activation_stage act;
  int rc = mx_npu_activation_bind_ifm_ofm(x, &ifm, &ofm, &act);
  if (rc != 0) return rc;
  return mx_npu_conv_compute(x, &g, &ifm, &ofm, &act);
}

int mx_npu_conv_compute(mx_npu_exec *x, const mx_npu_conv_shape *gp, const mx_npu_fmview *ifmp,
                        const mx_npu_fmview *ofmp, const mx_npu_activation_stage *actp) {
  const mx_npu_state *s = &x->op->state;
  const mx_npu_conv_shape g = *gp;
  const mx_npu_fmview ifm = *ifmp, ofm = *ofmp;
  const mx_npu_activation_stage act = *actp;
  int oh = s->ofm.height_m1 + 1, ow = s->ofm.width_m1 + 1;
  int rc;
  int64_t ifm_zp = mx_npu_zero_point(&s->ifm.fm), ofm_zp = mx_npu_zero_point(&s->ofm.fm);
  if (ifm_zp < INT16_MIN + 255 || ifm_zp > INT16_MAX - 255) { /* (IFM - zero point) must fit the int16 window */
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "IFM zero point %lld with an 8-bit IFM", (long long)ifm_zp);
  }
  int sy = s->kernel.stride_y, sx = s->kernel.stride_x;
  /* The IFM rows (columns) the operation may read: those its kernel windows cover, less the padding. */
  int64_t ifm_h = (int64_t)(oh - 1) * sy + s->kernel.height_m1 + 1 - s->ifm.pad_top - s->ifm.pad_bottom;
  int64_t ifm_w = (int64_t)(ow - 1) * sx + s->kernel.width_m1 + 1 - s->ifm.pad_left - s->ifm.pad_right;
  int taps = g.kh * g.kw;
  int16_t *window = x->u.window;

  for (int oy = 0; oy < oh; oy++) {
    for (int ox = 0; ox < ow; ox++) {
      if (g.depthwise) {
        for (int c = 0; c < g.oc; c++) {
          int64_t acc = x->bias[c];
          for (int ky = 0; ky < g.kh; ky++) {
            int64_t iy = (int64_t)oy * sy - s->ifm.pad_top + (int64_t)ky * g.dil_y;
            if (iy < 0 || iy >= ifm_h) continue;
            for (int kx = 0; kx < g.kw; kx++) {
              int64_t ix = (int64_t)ox * sx - s->ifm.pad_left + (int64_t)kx * g.dil_x;
              if (ix < 0 || ix >= ifm_w) continue;
              int64_t v;
              rc = mx_npu_fm_read(x, &ifm, (int)iy, (int)ix, c, &v);
              if (rc != 0) return rc;
              acc += (v - ifm_zp) * x->weights[(size_t)c * taps + ky * g.kw + kx];
            }
          }
          int64_t out = mx_npu_rescale(acc, x->scale[c], x->shift[c], s->ofm.rounding);
          out = mx_npu_add_saturate(out, ofm_zp);
          rc = mx_npu_ofm_write(x, &ofm, oy, ox, c, mx_npu_activation_apply(&act, out));
          if (rc != 0) return rc;
        }
        continue;
      }
      /* CONV: the window under the kernel once, then one dot product per OFM channel. */
      int16_t *wp = window;
      for (int ky = 0; ky < g.kh; ky++) {
        int64_t iy = (int64_t)oy * sy - s->ifm.pad_top + (int64_t)ky * g.dil_y;
        for (int kx = 0; kx < g.kw; kx++) {
          int64_t ix = (int64_t)ox * sx - s->ifm.pad_left + (int64_t)kx * g.dil_x;
          int padded = iy < 0 || iy >= ifm_h || ix < 0 || ix >= ifm_w;
          for (int i = 0; i < g.ic; i++) {
            int64_t v = ifm_zp;
            if (!padded) {
              rc = mx_npu_fm_read(x, &ifm, (int)iy, (int)ix, i, &v);
              if (rc != 0) return rc;
            }
            *wp++ = (int16_t)(v - ifm_zp);
          }
        }
      }
      size_t n = (size_t)taps * g.ic;
      for (int o = 0; o < g.oc; o++) {
        const int16_t *w = x->weights + (size_t)o * n;
        int64_t acc = x->bias[o];
        for (size_t k = 0; k < n; k++) acc += (int32_t)window[k] * w[k];
        int64_t out = mx_npu_rescale(acc, x->scale[o], x->shift[o], s->ofm.rounding);
        out = mx_npu_add_saturate(out, ofm_zp);
        rc = mx_npu_ofm_write(x, &ofm, oy, ox, o, mx_npu_activation_apply(&act, out));
        if (rc != 0) return rc;
      }
    }
  }
  return 0;
}
