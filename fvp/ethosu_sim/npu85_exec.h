/* What the Ethos-U85 executor's files share (npu85_exec.c, npu85_conv.c, npu85_weights.c, npu85_pool.c,
 * npu85_elementwise.c). Internal. */
#ifndef MX_NPU85_EXEC_H
#define MX_NPU85_EXEC_H

#include "npu_activation.h"
#include "npu_conv.h"

/* The checks every U85 block operation starts with (feature-map storage, OFM reverse, IFM upscale, accumulator
 * chaining, rounding modes: refused by name), then IFM (unless NULL) and OFM bound and the activation set up. */
int mx_npu85_bind(mx_npu_exec *x, mx_npu_fmview *ifm, mx_npu_fmview *ofm, mx_npu_activation_stage *act);
/* A feature map bound as its storage (TILE2X2, CHAINED, NONE) says; the OFM's CHAINED storage starts a chain. */
int mx_npu85_fm_bind(mx_npu_exec *x, const mx_npu_fm *fm, unsigned storage, const char *name, mx_npu_fmview *v);
int mx_npu85_activation_setup(mx_npu_exec *x, const mx_npu_fmview *ofm, mx_npu_activation_stage *a);

/* npu85_weights.c: x->weights, x->bias, x->scale, x->shift of the current CONV/DEPTHWISE from its weight streams
 * and its scale stream. */
int mx_npu85_load_weights(mx_npu_exec *x, const mx_npu_conv_shape *g);

#endif
