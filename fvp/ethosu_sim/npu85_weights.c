/* Ethos-U85 weights and bias/scale records (regor's ethos_u85_weight_encoder.cpp, as Vela 5.2 writes them).
 *
 * Order (EthosU85WeightOrdering), for core k of the weight decoders: OFM blocks of OFM_BLK_DEPTH channels; in each,
 * IFM blocks (IFM block depth: 16 part-kernel-first, 32 with a 16-deep OFM micro-block on 128/256 MACs, else 64; one
 * block for depthwise), walked forwards in even OFM blocks and backwards in odd ones; in each, sub-kernels of
 * 8/dilation columns (outer) and rows; IFM micro-blocks of the IFM micro-block depth (the IFM block, 1 for depthwise);
 * OFM micro-blocks of the micro-block depth (from the MAC count and ACC_FORMAT's microblock); stride phases (y, x:
 * part-kernel-first and depthwise; depth-first reads the kernel as stride 1) and, in each, the phase's kernel rows,
 * and their columns in serpentine order (odd rows right to left); then IFM channels in steps of 8 (1 depthwise), the
 * core's groups of 4 OFM channels (k x 4, stepping 4 x cores), 4 channels, 8 IFM channels (1 depthwise). The
 * sub-kernel's elements are padded with zeros to a multiple of 5 (part-kernel-first), 10 (depthwise) or 1; depthwise
 * adds 2 (512 MACs) or 6 (1024+) zero elements per 10 elements. 2:4 sparse weights (WEIGHT_FORMAT bit 4, chosen by
 * regor when the weights happen to be) keep every value, zeros included, in the same order with IFM steps of 16, IFM
 * blocks of 128 (depth-first) and part-kernel-first rounding to 10.
 *
 * Streams: with the standard decoder (WEIGHT_FORMAT bit 0 clear) each core's order is its own MLW stream (mlw_decode.c:
 * the same format as the U55's), in WEIGHT_BASE, WEIGHT1..3_BASE. With the fast decoder (FWD) one stream holds the
 * cores' orders interleaved in blocks of micro-block depth x IFM micro-block depth x rounding / cores values, coded as
 * a 32-byte header (bit 0 raw, bit 1 2-bit palette, bits 104-111 zero adjust, bits 112 + 9i palette entry i, folded as
 * in MLW) then 8-bit raw values (value + zero adjust, mod 256), 2-bit or 4-bit palette indices, least significant bit
 * first, padded to 32 bytes.
 *
 * Records (EncodeBias32/48): 10 bytes per OFM channel of the operation, in channel order, one stream for all cores.
 * ACC_FORMAT I32: bias int32, scale 31 bits, shift byte, zero byte; I48: bias int48, scale 15 bits, shift, zero. */
#include "mlw_decode.h"
#include "npu85_exec.h"

#define RECORD_BYTES 10
#define FWD_HEADER_BYTES 32
#define MAX_CORES 4

typedef struct {
  const mx_npu_conv_shape *g;
  int traversal; /* 0 depth-first, 1 part-kernel-first, 2 depthwise */
  int ifm_block, ofm_ublock, ifm_ublock, round, dw_pad, streams, stride_x, stride_y;
  int sparse; /* 2:4 sparse weights: the same values, IFM channels in steps of 16 */
} order;

/* A walk over core `core`'s order: calls put(x, j, target) for value j of that core's sequence, target the index in
 * x->weights or -1 for a zero the order pads with. Returns the sequence's length, or stops once it passes `limit`
 * (register values that make the order absurdly long end there rather than after minutes). */
typedef void (*put_fn)(mx_npu_exec *x, void *ctx, size_t j, long target);

static size_t walk(const order *o, int core, mx_npu_exec *x, put_fn put, void *ctx, size_t limit) {
  const mx_npu_conv_shape *g = o->g;
  int dw = o->traversal == 2, inner_step = dw ? 1 : o->sparse ? 16 : 8, dec_x = 8 / g->dil_x, dec_y = 8 / g->dil_y;
  int ifm_depth = dw ? 1 : g->ic, inc = -o->ifm_block, saved = 0;
  size_t j = 0;
#define EMIT(t)                           \
  do {                                    \
    if (put != NULL) put(x, ctx, j, (t)); \
    if (++j > limit) return j;            \
  } while (0)
  for (int ob = 0; ob < g->oc; ob += g->block_depth) {
    inc = -inc;
    int cob = g->oc - ob < g->block_depth ? g->oc - ob : g->block_depth;
    for (int ib = saved; ib < ifm_depth && ib >= 0; ib += inc) {
      saved = ib;
      int cib = ifm_depth - ib < o->ifm_block ? ifm_depth - ib : o->ifm_block;
      for (int sx = 0; sx < g->kw; sx += dec_x) {
        int sw = g->kw - sx < dec_x ? g->kw - sx : dec_x;
        for (int sy = 0; sy < g->kh; sy += dec_y) {
          int sh = g->kh - sy < dec_y ? g->kh - sy : dec_y;
          for (int iuo = 0; iuo < (dw ? 1 : cib); iuo += o->ifm_ublock) {
            for (int ouo = 0; ouo < cob; ouo += o->ofm_ublock) {
              int left = (sw * sh + o->round - 1) / o->round * o->round;
              for (int py = 0; py < o->stride_y; py++) {
                int skh = (sh + o->stride_y - 1 - py) / o->stride_y;
                for (int px = 0; px < o->stride_x; px++) {
                  int skw = (sw + o->stride_x - 1 - px) / o->stride_x;
                  for (int ky = 0; ky < skh; ky++) {
                    for (int kx = 0; kx < skw; kx++) {
                      int wx = sx + px + (ky % 2 == 0 ? kx : skw - 1 - kx) * o->stride_x; /* serpentine */
                      int wy = sy + py + ky * o->stride_y;
                      left--;
                      for (int iui = 0; iui < o->ifm_ublock; iui += inner_step) {
                        for (int ouz = core * 4; ouz < o->ofm_ublock; ouz += 4 * o->streams) {
                          for (int oi = 0; oi < 4; oi++) {
                            for (int iz = 0; iz < inner_step; iz++) {
                              int i = ib + iuo + iui + iz, oc = ob + ouo + ouz + oi;
                              long at = (((long)oc * g->kh + wy) * g->kw + wx) * g->ic + i;
                              EMIT(i < ifm_depth && oc < g->oc ? at : -1);
                            }
                          }
                        }
                      }
                      if (dw && left % o->round == 0) {
                        for (int n = 0; n < o->dw_pad * o->ofm_ublock / o->streams; n++) EMIT(-1);
                      }
                    }
                  }
                }
              }
              if (left > 0) {
                long pad = (long)(left + (dw ? o->dw_pad : 0)) * o->ifm_ublock * o->ofm_ublock / o->streams;
                for (long n = 0; n < pad; n++) EMIT(-1);
              }
            }
          }
        }
      }
    }
  }
#undef EMIT
  return j;
}

/* A FWD stream, read in place: its values have a fixed width, so value i is at bit i x bits of the body. */
typedef struct {
  const uint8_t *body;
  int bits, raw;
  int8_t adjust;
  int16_t lut[16];
} fwd_stream;

static int16_t fwd_value(const fwd_stream *f, size_t i) {
  size_t bit = i * (size_t)f->bits;
  unsigned v = (f->body[bit / 8] >> (bit % 8)) & ((1u << f->bits) - 1u);
  return f->raw ? (int16_t)((int8_t)v - f->adjust) : f->lut[v];
}

/* The stream being placed (MLW: decoded values; FWD: read in place), and where value j of the walk's core sits. */
typedef struct {
  const int16_t *values;
  const fwd_stream *fwd;
  size_t n, block, length; /* FWD interleaving: block size and per-core length (block 0: not interleaved) */
  int core, streams, short_stream;
} placing;

static void place(mx_npu_exec *x, void *ctx, size_t j, long target) {
  placing *p = ctx;
  size_t at = j;
  if (p->block != 0) {
    size_t first = j / p->block * p->block;
    size_t this_block = p->length - first < p->block ? p->length - first : p->block; /* the last may be short */
    at = first * (size_t)p->streams + (size_t)p->core * this_block + j % p->block;
  }
  if (at >= p->n) {
    p->short_stream = 1;
    return;
  }
  if (target >= 0) x->weights[target] = p->fwd != NULL ? fwd_value(p->fwd, at) : p->values[at];
}

/* Checks a FWD stream's length against the `count` values the order needs and reads its header. */
static int fwd_open(mx_npu_exec *x, const uint8_t *w, size_t bytes, size_t count, fwd_stream *f) {
  if (bytes < FWD_HEADER_BYTES) return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS, "FWD stream of %zu bytes", bytes);
  int raw = w[0] & 1, lut2 = (w[0] >> 1) & 1;
  int bits = raw ? 8 : lut2 ? 2 : 4;
  size_t body = (count * (size_t)bits + 7) / 8, need = FWD_HEADER_BYTES + (body + 31) / 32 * 32;
  if (bytes != need) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS,
                            "FWD weight stream of %zu bytes, the operation's order of %zu %d-bit values needs %zu",
                            bytes, count, bits, need);
  }
  for (int i = 0; i < 16; i++) {
    unsigned pos = 112 + 9 * (unsigned)i, folded = 0;
    for (unsigned b = 0; b < 9; b++) folded |= ((w[(pos + b) / 8] >> ((pos + b) % 8)) & 1u) << b;
    f->lut[i] = (int16_t)((folded & 1u) ? -(int)(folded >> 1) : (int)(folded >> 1));
  }
  f->body = w + FWD_HEADER_BYTES;
  f->bits = bits;
  f->raw = raw;
  f->adjust = (int8_t)w[13];
  return 0;
}

static int load_records(mx_npu_exec *x, const mx_npu_conv_shape *g) {
  const mx_npu_state *s = &x->op->state;
  int acc48 = s->u85.acc_format == 1; /* npu85_conv.c refuses it (unchecked); the layout is regor's EncodeBias48 */
  uint64_t need = (uint64_t)g->oc * RECORD_BYTES;
  if (s->scale.length[0] < need) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS, "SCALE_LENGTH %u is less than %d channels x 10 bytes",
                            (unsigned)s->scale.length[0], g->oc);
  }
  const uint8_t *r = mx_npu_span(x, s->scale.region, 0, s->scale.base[0], need, "SCALE records");
  if (r == NULL) return -(int)x->err->status;
  for (int o = 0; o < g->oc; o++, r += RECORD_BYTES) {
    int bias_bytes = acc48 ? 6 : 4;
    uint64_t bias = 0;
    for (int b = 0; b < bias_bytes; b++) bias |= (uint64_t)r[b] << (8 * b);
    if ((bias >> (8 * bias_bytes - 1)) & 1u) bias |= ~(((uint64_t)1 << (8 * bias_bytes)) - 1);
    x->bias[o] = (int64_t)bias;
    const uint8_t *q = r + bias_bytes; /* the scale: 15 bits after a 48-bit bias, 31 after a 32-bit one */
    uint32_t scale = (uint32_t)q[0] | (uint32_t)q[1] << 8;
    if (!acc48) scale |= (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    x->scale[o] = scale & (acc48 ? 0x7FFFu : 0x7FFFFFFFu);
    x->shift[o] = r[8] & 0x3Fu;
  }
  return 0;
}

/* OFM micro-block depth from the MAC count and ACC_FORMAT's microblock (U1X1, U1X2, U1X4, U2X2, U2X4, U4X4): regor's
 * per-configuration micro-block lists (ethos_u85.cpp); 0 for a shape the configuration does not have. */
static int ublock_depth(int macs, unsigned microblock) {
  static const uint8_t depth[5][6] = {
      {16, 8, 0, 0, 0, 0}, {0, 16, 8, 8, 0, 0}, {0, 0, 16, 16, 0, 0}, {0, 0, 32, 32, 16, 0}, {0, 0, 64, 64, 0, 16}};
  int row = macs == 128 ? 0 : macs == 256 ? 1 : macs == 512 ? 2 : macs == 1024 ? 3 : macs == 2048 ? 4 : -1;
  return row < 0 || microblock > 5 ? 0 : depth[row][microblock];
}

int mx_npu85_load_weights(mx_npu_exec *x, const mx_npu_conv_shape *g) {
  const mx_npu_state *s = &x->op->state;
  order o = {g, g->depthwise ? 2 : g->part_kernel_first ? 1 : 0, 0, 0, 0, 1, 0, 1, 1, 1, s->u85.weight_sparse};
  o.ofm_ublock = ublock_depth(x->macs, s->u85.microblock);
  if (o.ofm_ublock == 0 || x->cores > MAX_CORES) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED,
                            "microblock %u on %d MACs (%d cores) is not a known U85 weight order",
                            (unsigned)s->u85.microblock, x->macs, x->cores);
  }
  o.ifm_block = o.traversal == 1                                                          ? 16
                : ((x->macs == 128 || x->macs == 256) && o.ofm_ublock == 16 && !o.sparse) ? 32
                : o.sparse                                                                ? 128
                                                                                          : 64;
  o.ifm_ublock = o.traversal == 2 ? 1 : o.ifm_block;
  o.round = o.traversal == 1 ? (o.sparse ? 10 : 5) : o.traversal == 2 ? 10 : 1;
  o.dw_pad = x->macs <= 256 ? 0 : x->macs <= 512 ? 2 : 6;
  if (o.traversal != 0) o.stride_x = s->kernel.stride_x, o.stride_y = s->kernel.stride_y;
  int fast = s->u85.weight_fast, ncores = x->cores;
  o.streams = ncores;
  size_t length = walk(&o, 0, x, NULL, NULL, MX_NPU_MAX_WEIGHTS);
  if (length > MX_NPU_MAX_WEIGHTS) {
    return mx_npu_exec_fail(x, MX_NPU_ERR_TOO_LARGE, "a core's weight order of more than %d values",
                            MX_NPU_MAX_WEIGHTS);
  }
  for (int core = 0; core < (fast ? 1 : ncores); core++) {
    const uint8_t *w =
        mx_npu_span(x, s->weight.region, 0, s->weight.base[core], s->weight.length[core], "WEIGHT stream");
    if (w == NULL) return -(int)x->err->status;
    size_t n = 0;
    fwd_stream f;
    if (fast) {
      n = length * (size_t)ncores;
      int rc = fwd_open(x, w, s->weight.length[0], n, &f);
      if (rc != 0) return rc;
    } else {
      int rc = mx_mlw_decode(w, s->weight.length[core], x->u.stream, MX_NPU_MAX_WEIGHTS, &n);
      if (rc != 0) {
        return mx_npu_exec_fail(x, rc == MX_MLW_ERR_CAPACITY ? MX_NPU_ERR_TOO_LARGE : MX_NPU_ERR_BAD_WEIGHTS,
                                "core %d's weight stream: %s", core, mx_mlw_error_text(rc));
      }
      if (n != length) {
        return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS,
                                "core %d's weight stream decodes to %zu values, the operation's U85 order has %zu",
                                core, n, length);
      }
    }
    int interleaved = fast && ncores > 1;
    o.g = g;
    for (int k = fast ? 0 : core; k < (fast ? ncores : core + 1); k++) {
      size_t block = interleaved ? (size_t)(o.ofm_ublock * o.ifm_ublock * o.round / ncores) : 0;
      placing p = {x->u.stream, fast ? &f : NULL, n, block, length, k, ncores, 0};
      walk(&o, k, x, place, &p, length);
      if (p.short_stream) return mx_npu_exec_fail(x, MX_NPU_ERR_BAD_WEIGHTS, "core %d's weights: stream too short", k);
    }
  }
  return load_records(x, g);
}
