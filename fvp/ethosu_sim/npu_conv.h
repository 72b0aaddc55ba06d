/* What the U55/U65 and the U85 convolutions share (npu_conv.c, npu85_conv.c): the operation's shape and the
 * arithmetic once the weights, biases and scales are in the context (x->weights [ofm channel][ky][kx][ifm
 * channel], x->bias/scale/shift per OFM channel), which is the same on both: the NPUs differ in how those
 * arrive (weight streams, record layouts), not in what they compute with them. */
#ifndef MX_NPU_CONV_H
#define MX_NPU_CONV_H

#include "npu_activation.h"

typedef struct mx_npu_conv_shape {
  int kh, kw, ic, oc; /* undilated kernel, weight IFM depth (1 for depthwise), OFM channels */
  int depthwise, part_kernel_first, ncores, block_depth, dil_x, dil_y;
} mx_npu_conv_shape;

/* The current CONV/DEPTHWISE's shape from its registers; `ncores` from the caller (U55/U65: PARALLEL_MODE, U85:
 * its weight decoders). */
mx_npu_conv_shape mx_npu_conv_shape_of(const mx_npu_exec *x, int ncores);

/* acc = bias + sum of (IFM - zero point) x weight, rescaled per channel with the OFM rounding mode (state's
 * ofm.rounding), plus the OFM zero point, through `act`, written to `ofm`. */
int mx_npu_conv_compute(mx_npu_exec *x, const mx_npu_conv_shape *g, const mx_npu_fmview *ifm, const mx_npu_fmview *ofm,
                        const mx_npu_activation_stage *act);

#endif
