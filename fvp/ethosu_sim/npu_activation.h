/* The last stage of every block operation: the activation function (none or an int8 lookup table) and the
 * clamp to the clip range and ACTIVATION_MIN/MAX. */
#ifndef MX_NPU_ACTIVATION_H
#define MX_NPU_ACTIVATION_H

#include "npu_fm.h"

typedef struct mx_npu_activation_stage {
  const uint8_t *lut; /* 256 int8 entries (SHRAM), NULL without a table */
  int64_t lo, hi;     /* the clamp */
} mx_npu_activation_stage;

/* Reads ACTIVATION/ACTIVATION_MIN/MAX for an operation writing `ofm`; refuses TANH, SIGMOID and tables for
 * OFM types other than int8 and int32 (forced to the int8 range), and a table never loaded into SHRAM. */
int mx_npu_activation_setup(mx_npu_exec *x, const mx_npu_fmview *ofm, mx_npu_activation_stage *a);

/* For the operations with one input (CONV, DEPTHWISE, POOL): the IFM and OFM of the current operation bound and its
 * activation set up, the steps each of them starts with, in the order their errors are reported. */
int mx_npu_activation_bind_ifm_ofm(mx_npu_exec *x, mx_npu_fmview *ifm, mx_npu_fmview *ofm, mx_npu_activation_stage *a);

/* The value written to the OFM for `v` = the scaled result plus the OFM zero point. */
int64_t mx_npu_activation_apply(const mx_npu_activation_stage *a, int64_t v);

#endif
