"""The C side of int8_harness: the batch runner each suite compiles (head, the suite's dispatcher
`run_case`, the batch loop over the case file) and the firmware's main (cases.bin -> results.bin through
semihosting; IN_CAP and OUT_CAP are replaced by the suite's buffer sizes). Kept as text: the runner is one
translation unit that the harness assembles per suite, for the host library and for firmware alike."""

RUNNER_HEAD_C = r"""
#include <stdint.h>
#include <string.h>
#include "arm_nnfunctions.h"

#ifndef MX_ICOUNT_BEGIN
#define MX_ICOUNT_BEGIN(tag)
#define MX_ICOUNT_END(tag)
#endif
"""

CONV_FC_DISPATCH_C = r"""
#define SCRATCH (48 * 1024)
#define GUARD 64
static int8_t scratch[SCRATCH + GUARD] __attribute__((aligned(16)));

typedef arm_cmsis_nn_status (*conv_fn)(const cmsis_nn_context *, const cmsis_nn_conv_params *,
    const cmsis_nn_per_channel_quant_params *, const cmsis_nn_dims *, const int8_t *, const cmsis_nn_dims *,
    const int8_t *, const cmsis_nn_dims *, const int32_t *, const cmsis_nn_dims *, int8_t *);
typedef arm_cmsis_nn_status (*dw_fn)(const cmsis_nn_context *, const cmsis_nn_dw_conv_params *,
    const cmsis_nn_per_channel_quant_params *, const cmsis_nn_dims *, const int8_t *, const cmsis_nn_dims *,
    const int8_t *, const cmsis_nn_dims *, const int32_t *, const cmsis_nn_dims *, int8_t *);

/* q: n h w c  oc kh kw kc  sh sw ph pw  dh dw oh ow  in_off out_off act_min act_max  ch_mult has_bias
 * data: bias[oc] mult[oc] shift[oc] (int32) | input | filter */
/* arm_convolve_s8 without an upscale (its v7 signature has upscale_dims), in the table's common shape */
static arm_cmsis_nn_status convolve_s8(const cmsis_nn_context *ctx, const cmsis_nn_conv_params *cp,
                                       const cmsis_nn_per_channel_quant_params *qp, const cmsis_nn_dims *in,
                                       const int8_t *input, const cmsis_nn_dims *fd, const int8_t *filter,
                                       const cmsis_nn_dims *bd, const int32_t *bias, const cmsis_nn_dims *od,
                                       int8_t *out)
{
    return arm_convolve_s8(ctx, cp, qp, in, input, fd, filter, bd, bias, NULL, od, out);
}

static int32_t run_conv(int32_t op, const int32_t *q, const uint8_t *d, int8_t *out, int32_t *size)
{
    const int32_t oc = q[4];
    int32_t *bias = (int32_t *)d, *mult = bias + oc, *shift = mult + oc;
    const int8_t *input = (const int8_t *)(shift + oc);
    const int8_t *filter = input + q[0] * q[1] * q[2] * q[3];
    const cmsis_nn_dims in = {q[0], q[1], q[2], q[3]}, outd = {q[0], q[14], q[15], oc}, bd = {1, 1, 1, oc};
    const cmsis_nn_per_channel_quant_params qp = {mult, shift};
    const cmsis_nn_tile stride = {q[9], q[8]}, pad = {q[11], q[10]}, dil = {q[13], q[12]};
    const cmsis_nn_activation act = {q[18], q[19]};
    const int32_t *b = q[21] ? bias : NULL;
    if (op <= 5) {
        const cmsis_nn_dims fd = {oc, q[5], q[6], q[7]};
        const cmsis_nn_conv_params cp = {q[16], q[17], stride, pad, dil, act};
        static const conv_fn fns[] = {0, arm_convolve_wrapper_s8, convolve_s8, arm_convolve_1x1_s8_fast,
                                      arm_convolve_1x1_s8, arm_convolve_1_x_n_s8};
        *size = op == 1 ? arm_convolve_wrapper_s8_get_buffer_size(&cp, &in, &fd, &outd)
              : op == 2 ? arm_convolve_s8_get_buffer_size(&in, &fd)
              : op == 5 ? arm_convolve_1_x_n_s8_get_buffer_size(&cp, &in, &fd, &outd) : 0;
        if (*size > SCRATCH) return -100;
        const cmsis_nn_context ctx = {*size ? scratch : NULL, *size};
        MX_ICOUNT_BEGIN(op);
        const int32_t status = fns[op](&ctx, &cp, &qp, &in, input, &fd, filter, &bd, b, &outd, out);
        MX_ICOUNT_END(op);
        return status;
    }
    const cmsis_nn_dims fd = {1, q[5], q[6], oc};
    const cmsis_nn_dw_conv_params dp = {q[16], q[17], q[20], stride, pad, dil, act};
    static const dw_fn fns[] = {arm_depthwise_conv_wrapper_s8, arm_depthwise_conv_s8, arm_depthwise_conv_3x3_s8,
                                arm_depthwise_conv_s8_opt};
    *size = op == 6 ? arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &in, &fd, &outd)
          : op == 9 ? arm_depthwise_conv_s8_opt_get_buffer_size(&in, &fd) : 0;
    if (*size > SCRATCH) return -100;
    const cmsis_nn_context ctx = {*size ? scratch : NULL, *size};
    MX_ICOUNT_BEGIN(op);
    const int32_t status = fns[op - 6](&ctx, &dp, &qp, &in, input, &fd, filter, &bd, b, &outd, out);
    MX_ICOUNT_END(op);
    return status;
}

/* q: batches depth oc in_off filter_off out_off mult shift act_min act_max has_bias
 * data: bias[oc] (int32) | input | filter */
static int32_t run_fc(const int32_t *q, const uint8_t *d, int8_t *out, int32_t *size)
{
    const int32_t *bias = (const int32_t *)d;
    const int8_t *input = (const int8_t *)(bias + q[2]);
    const int8_t *filter = input + q[0] * q[1];
    const cmsis_nn_dims in = {q[0], 1, 1, q[1]}, fd = {q[1], 1, 1, q[2]}, bd = {1, 1, 1, q[2]}, outd = {q[0], 1, 1, q[2]};
    const cmsis_nn_fc_params fp = {q[3], q[4], q[5], {q[8], q[9]}};
    const cmsis_nn_per_tensor_quant_params qp = {q[6], q[7]};
    const int32_t *b = q[10] ? bias : NULL;
    *size = arm_fully_connected_s8_get_buffer_size(&fd);
    if (*size > SCRATCH) return -100;
    if (*size) {  /* the kernel sums are computed once, ahead of inference, where the ISA wants them */
        arm_vector_sum_s8((int32_t *)scratch, q[1], q[2], filter, q[3], q[4], b);
    }
    const cmsis_nn_context ctx = {*size ? scratch : NULL, *size};
    MX_ICOUNT_BEGIN(10);
    const int32_t status = arm_fully_connected_s8(&ctx, &fp, &qp, &in, input, &fd, filter, &bd, b, &outd, out);
    MX_ICOUNT_END(10);
    return status;
}

/* q: batches depth oc in_off filter_off out_off act_min act_max has_bias
 * data: bias[oc] mult[oc] shift[oc] (int32) | input | filter */
static int32_t run_fc_per_channel(const int32_t *q, const uint8_t *d, int8_t *out, int32_t *size)
{
    int32_t *bias = (int32_t *)d, *mult = bias + q[2], *shift = mult + q[2];
    const int8_t *input = (const int8_t *)(shift + q[2]);
    const int8_t *filter = input + q[0] * q[1];
    const cmsis_nn_dims in = {q[0], 1, 1, q[1]}, fd = {q[1], 1, 1, q[2]}, bd = {1, 1, 1, q[2]}, outd = {q[0], 1, 1, q[2]};
    const cmsis_nn_fc_params fp = {q[3], q[4], q[5], {q[6], q[7]}};
    const cmsis_nn_per_channel_quant_params qp = {mult, shift};
    const int32_t *b = q[8] ? bias : NULL;
    *size = arm_fully_connected_s8_get_buffer_size(&fd);
    if (*size > SCRATCH) return -100;
    if (*size) {
        arm_vector_sum_s8((int32_t *)scratch, q[1], q[2], filter, q[3], q[4], b);
    }
    const cmsis_nn_context ctx = {*size ? scratch : NULL, *size};
    MX_ICOUNT_BEGIN(11);
    const int32_t status = arm_fully_connected_per_channel_s8(&ctx, &fp, &qp, &in, input, &fd, filter, &bd, b, &outd, out);
    MX_ICOUNT_END(11);
    return status;
}

static int32_t run_case(int32_t op, const int32_t *q, const uint8_t *d, int8_t *out)
{
    memset(scratch, 0x5A, sizeof scratch);
    int32_t size = 0;
    int32_t status = op == 10 ? run_fc(q, d, out, &size) : op == 11 ? run_fc_per_channel(q, d, out, &size)
                                                        : run_conv(op, q, d, out, &size);
    for (int32_t i = 0; status == 0 && i < GUARD; i++) {
        if (scratch[size + i] != 0x5A) status = -101;
    }
    return status;
}
"""

MISC_DISPATCH_C = r"""
static int32_t scratch[4096];

static int32_t run_case(int32_t op, const int32_t *q, const uint8_t *data, int8_t *out)
{
    const int8_t *d = (const int8_t *)data;
    switch (op) {
    case 1: return arm_elementwise_add_s8(d, d + q[12], q[0], q[1], q[2], q[3], q[4], q[5], q[6], out, q[7], q[8],
                                          q[9], q[10], q[11], q[12]);
    case 2: return arm_elementwise_mul_s8(d, d + q[7], q[0], q[1], out, q[2], q[3], q[4], q[5], q[6], q[7]);
    case 3:
    case 4: {
        const cmsis_nn_dims in = {q[0], q[1], q[2], q[3]}, filter = {1, q[4], q[5], 1}, outd = {q[0], q[12], q[13], q[3]};
        const cmsis_nn_pool_params pp = {{q[7], q[6]}, {q[9], q[8]}, {q[10], q[11]}};
        const cmsis_nn_context ctx = {scratch, (int32_t)sizeof scratch};
        if (arm_avgpool_s8_get_buffer_size(q[13], q[3]) > (int32_t)sizeof scratch) return -100;
        return op == 3 ? arm_max_pool_s8(&ctx, &pp, &in, d, &filter, &outd, out)
                       : arm_avgpool_s8(&ctx, &pp, &in, d, &filter, &outd, out);
    }
    case 5: arm_softmax_s8(d, q[0], q[1], q[2], q[3], q[4], out); return 0;
    case 6: return arm_quantized_activation_s8(d + 256, d, out, q[0]);
    case 7: {
        const cmsis_nn_dims in = {q[0], q[1], q[2], q[3]}, pre = {q[4], q[5], q[6], q[7]}, post = {q[8], q[9], q[10], q[11]};
        return arm_pad_s8(d, out, (int8_t)q[12], &in, &pre, &post);
    }
    case 8: {
        const cmsis_nn_dims in = {q[1], q[2], q[3], q[4]}, outd = {q[9], q[10], q[11], q[12]};
        const uint32_t perm[4] = {(uint32_t)q[5], (uint32_t)q[6], (uint32_t)q[7], (uint32_t)q[8]};
        const cmsis_nn_transpose_params tp = {q[0], perm};
        return arm_transpose_s8(d, out, &in, &outd, &tp);
    }
    default: return -99;
    }
}
"""

BATCH_LOOP_C = r"""
static int32_t word(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

/* Runs every case of a batch; returns the bytes written to out, or -1 if out is too small. */
int32_t mx_int8_batch_run(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_cap)
{
    int32_t pos = 0, written = 0;
    int32_t params[32];
    while (pos + 12 <= in_len) {
        const int32_t op = word(in + pos), out_len = word(in + pos + 4), np = word(in + pos + 8);
        pos += 12;
        for (int32_t i = 0; i < np && i < 32; i++, pos += 4) params[i] = word(in + pos);
        const int32_t data_len = word(in + pos);
        pos += 4;
        const int32_t padded = (out_len + 3) & ~3;
        if (written + 8 + padded > out_cap) return -1;
        int8_t *dst = (int8_t *)(out + written + 8);
        memset(dst, 0x5A, (size_t)padded); /* bytes a kernel forgets to write show up as 0x5A */
        const int32_t status = run_case(op, params, in + pos, dst);
        memcpy(out + written, &status, 4);
        memcpy(out + written + 4, &out_len, 4);
        written += 8 + padded;
        pos += (data_len + 3) & ~3;
    }
    return written;
}
"""

FIRMWARE_MAIN_C = r"""
#include <stdint.h>
#include "mx_platform.h"

int32_t mx_int8_batch_run(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_cap);

static uint8_t in_buf[IN_CAP] __attribute__((aligned(4)));
static uint8_t out_buf[OUT_CAP] __attribute__((aligned(4)));

int main(void)
{
    int h = mx_semihost_open("cases.bin", MX_SEMIHOST_MODE_RB);
    long n = h < 0 ? -1 : mx_semihost_flen(h);
    if (n < 0 || n > (long)sizeof in_buf || mx_semihost_read(h, in_buf, (size_t)n) != 0) {
        return 3;
    }
    mx_semihost_close(h);
    int32_t written = mx_int8_batch_run(in_buf, (int32_t)n, out_buf, (int32_t)sizeof out_buf);
    if (written < 0) {
        return 4;
    }
    h = mx_semihost_open("results.bin", MX_SEMIHOST_MODE_WB);
    if (h < 0 || mx_semihost_write(h, out_buf, (size_t)written) != 0) {
        return 5;
    }
    mx_semihost_close(h);
    return 0;
}
"""
