/* mx_npu_op_dump: an operation and its register state as one line of `key=value` fields (tests, debugging). */
#include "npu_commands.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct {
  char *buf;
  size_t size;
  size_t len; /* the whole line's length, even past `size` */
} line;

static void put(line *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL, o->len < o->size ? o->size - o->len : 0, fmt, ap);
  va_end(ap);
  if (n > 0) o->len += (size_t)n;
}

#define NAME_CASE(type, name, value) \
  case (value): return #name;
#define NAME_OF(what, list)                    \
  static const char *what##_name(unsigned v) { \
    switch (v) { list(NAME_CASE) }             \
    return "?";                                \
  }
NAME_OF(dtype, MX_NPU_DTYPE_LIST)
NAME_OF(layout, MX_NPU_LAYOUT_LIST)
NAME_OF(pooling, MX_NPU_POOLING_LIST)
NAME_OF(elementwise, MX_NPU_ELEMENTWISE_LIST)
NAME_OF(activation, MX_NPU_ACTIVATION_LIST)
NAME_OF(clip, MX_NPU_CLIP_LIST)
NAME_OF(acc, MX_NPU_ACC_LIST)
NAME_OF(resampling, MX_NPU_RESAMPLING_LIST)
NAME_OF(rounding, MX_NPU_ROUNDING_LIST)
NAME_OF(scale_mode, MX_NPU_SCALE_MODE_LIST)
NAME_OF(stride_mode, MX_NPU_STRIDE_MODE_LIST)

static void put_fm(line *o, const char *fm, const mx_npu_fm *f) {
  put(o, " %s.region=%u %s.dtype=%s %s.layout=%s %s.zero_point=%d", fm, f->region, fm, dtype_name(f->dtype), fm,
      layout_name(f->layout), fm, f->zero_point);
  for (int t = 0; t < 4; t++) put(o, " %s.base%d=%" PRIu64, fm, t, f->base[t]);
  put(o, " %s.stride_x=%" PRIu64 " %s.stride_y=%" PRIu64 " %s.stride_c=%" PRIu64, fm, f->stride_x, fm, f->stride_y, fm,
      f->stride_c);
  put(o, " %s.width0_m1=%u %s.height0_m1=%u %s.height1_m1=%u", fm, f->width0_m1, fm, f->height0_m1, fm, f->height1_m1);
}

static void put_buffer(line *o, const char *what, const mx_npu_buffer *b) {
  put(o, " %s.region=%u", what, b->region);
  for (int core = 0; core < 2; core++) {
    put(o, " %s.base%d=%" PRIu64 " %s.length%d=%" PRIu32, what, core, b->base[core], what, core, b->length[core]);
  }
}

size_t mx_npu_op_dump(const mx_npu_op *op, char *buf, size_t size) {
  line o = {buf, size, 0};
  if (buf != NULL && size > 0) buf[0] = '\0';
  if (op == NULL) return 0;
  const mx_npu_state *s = &op->state;
  const char *name = mx_npu_opcode_name(op->opcode);
  put(&o, "op=%s word=%zu param=%u", name ? name : "?", op->word_index, op->param);
  if (op->opcode == MX_NPU_OP_POOL) put(&o, " mode=%s", pooling_name(op->param));
  if (op->opcode == MX_NPU_OP_ELEMENTWISE) put(&o, " mode=%s", elementwise_name(op->param));

  put_fm(&o, "ifm", &s->ifm.fm);
  put(&o, " ifm.depth_m1=%u ifm.pad_top=%u ifm.pad_left=%u ifm.pad_bottom=%u ifm.pad_right=%u", s->ifm.depth_m1,
      s->ifm.pad_top, s->ifm.pad_left, s->ifm.pad_bottom, s->ifm.pad_right);
  put(&o, " ifm.upscale=%s ifm.scale_mode=%s ifm.rounding=%s ifm.ib_end=%u", resampling_name(s->ifm.upscale),
      scale_mode_name(s->ifm.scale_mode), rounding_name(s->ifm.rounding), s->ifm.ib_end);

  put_fm(&o, "ifm2", &s->ifm2.fm);
  put(&o, " ifm2.broadcast_h=%u ifm2.broadcast_w=%u ifm2.broadcast_c=%u ifm2.reversed=%u ifm2.use_scalar=%u",
      s->ifm2.broadcast_h, s->ifm2.broadcast_w, s->ifm2.broadcast_c, s->ifm2.reversed, s->ifm2.use_scalar);
  put(&o, " ifm2.scalar=%d ifm2.ib_start=%u", s->ifm2.scalar, s->ifm2.ib_start);

  put_fm(&o, "ofm", &s->ofm.fm);
  put(&o, " ofm.width_m1=%u ofm.height_m1=%u ofm.depth_m1=%u ofm.global_scale=%u ofm.rounding=%s", s->ofm.width_m1,
      s->ofm.height_m1, s->ofm.depth_m1, s->ofm.global_scale, rounding_name(s->ofm.rounding));
  put(&o, " ofm.blk_width_m1=%u ofm.blk_height_m1=%u ofm.blk_depth_m1=%u", s->ofm.blk_width_m1, s->ofm.blk_height_m1,
      s->ofm.blk_depth_m1);

  put(&o, " kernel.width_m1=%u kernel.height_m1=%u kernel.stride_x=%u kernel.stride_y=%u", s->kernel.width_m1,
      s->kernel.height_m1, s->kernel.stride_x, s->kernel.stride_y);
  put(&o, " kernel.dilation_x=%u kernel.dilation_y=%u kernel.part_kernel_first=%u", s->kernel.dilation_x,
      s->kernel.dilation_y, s->kernel.part_kernel_first);

  put_buffer(&o, "weight", &s->weight);
  put_buffer(&o, "scale", &s->scale);
  put(&o, " ofm_scale.scale=%" PRIu32 " ofm_scale.shift=%u opa_scale.scale=%" PRIu32 " opa_scale.shift=%u",
      s->ofm_scale.scale, s->ofm_scale.shift, s->opa_scale.scale, s->opa_scale.shift);
  put(&o, " opb_scale=%u", s->opb_scale);
  put(&o, " activation.function=%s activation.clip_range=%s activation.min=%d activation.max=%d",
      activation_name(s->activation.function), clip_name(s->activation.clip_range), s->activation.min,
      s->activation.max);
  put(&o, " acc_format=%s blockdep=%u ab_start=%u parallel_mode=%u", acc_name(s->acc_format), s->blockdep, s->ab_start,
      s->parallel_mode);

  put(&o, " dma.src_region=%u dma.src_internal=%u dma.src_stride_mode=%s", s->dma.src_region, s->dma.src_internal,
      stride_mode_name(s->dma.src_stride_mode));
  put(&o, " dma.dst_region=%u dma.dst_internal=%u dma.dst_stride_mode=%s", s->dma.dst_region, s->dma.dst_internal,
      stride_mode_name(s->dma.dst_stride_mode));
  put(&o, " dma.src=%" PRIu64 " dma.dst=%" PRIu64 " dma.len=%" PRIu64 " dma.skip0=%" PRIu64 " dma.skip1=%" PRIu64,
      s->dma.src, s->dma.dst, s->dma.len, s->dma.skip0, s->dma.skip1);
  put(&o, " dma.size0=%u dma.size1=%u", s->dma.size0, s->dma.size1);
  return o.len;
}
