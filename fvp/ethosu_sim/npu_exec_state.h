/* What the executor's parts share (npu_exec.c and the per-operation files): the context of one
 * mx_npu_execute call, the error helper and the checked memory access. Not part of the public interface. */
#ifndef MX_NPU_EXEC_STATE_H
#define MX_NPU_EXEC_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "npu_exec.h"

/* The NPU's internal SHRAM as the DMA addresses it (internal destination bit): the largest configuration's
 * 48 banks of 1 KB. Lookup tables are DMA'd into its last two banks. */
#define MX_NPU_SHRAM_BYTES (48 * 1024)
#define MX_NPU_LUT_BYTES 2048     /* two banks: 8 slots of 256 bytes */
#define MX_NPU_LUT_SLOT_BYTES 256 /* one int8 table */

/* Largest weight stream (decoded values) of one operation and core, and largest weight tensor of one
 * operation (OFM channels x kernel x IFM channels): 256 K values, 512 KB of int16 each (the example models' largest
 * operation has 80 K). Larger operations are refused with MX_NPU_ERR_TOO_LARGE. */
#define MX_NPU_MAX_WEIGHTS (1 << 18)
#define MX_NPU_CHAIN_ELEMENTS (1 << 16) /* U85: largest CHAINED OFM (elements of up to 32 bits; 256 KB) */
#define MX_NPU_MAX_CHANNELS 4096 /* OFM channels of one CONV/DEPTHWISE (bias/scale records held at once) */

/* U85: an OFM kept inside the NPU for the next operation (storage CHAINED); (y, x, c) at (y x w + x) x c + c. */
typedef struct mx_npu_chain {
  int h, w, c;
  int32_t data[MX_NPU_CHAIN_ELEMENTS];
} mx_npu_chain;

typedef struct mx_npu_exec {
  const mx_npu_region *regions;
  mx_npu_error *err;
  const mx_npu_op *op;      /* the operation being executed */
  const uint32_t *words;    /* the stream, for error messages */
  int32_t lut_base;         /* SHRAM address of LUT slot 0 (from the first DMA into it), -1 before */
  int ofm_ublock;           /* OFM micro-block depth of the weight order: 4 on a 32-MAC Ethos-U55, else 8 */
  int u85;                  /* an Ethos-U85 stream (OPTIMIZER_CONFIG's product field 2): npu85_exec.c runs it */
  int macs, cores;          /* U85: MACs per cycle and weight decoders (config bits 0-3, 12-13 as log2) */
  mx_npu_op current;        /* U85: the operation x->op points to (mx_npu85_run's, which has x only by pointer) */
  int chain_in, chain_out;  /* U85: the chain the operation reads (the previous one's CHAINED OFM), the one it
                             * writes: indices in `chains`, -1 for none */
  mx_npu_chain chains[2];   /* U85: two, as an operation may read one chain and write the next */
  uint8_t shram[MX_NPU_SHRAM_BYTES];
  union {
    int16_t stream[MX_NPU_MAX_WEIGHTS]; /* one core's decoded weight stream */
    int16_t window[MX_NPU_MAX_WEIGHTS]; /* CONV: the IFM values under the kernel at one output position */
  } u;
  int16_t weights[MX_NPU_MAX_WEIGHTS]; /* [ofm channel][ky][kx][ifm channel], all cores merged */
  int64_t bias[MX_NPU_MAX_CHANNELS];
  uint32_t scale[MX_NPU_MAX_CHANNELS];
  uint8_t shift[MX_NPU_MAX_CHANNELS];
} mx_npu_exec;

/* Fills *err for the current operation ("word N: NAME (0x...): " then the message) and returns -status. */
int mx_npu_exec_fail(mx_npu_exec *x, mx_npu_status status, const char *what, ...);

/* `len` bytes at `address` of region `region` (internal: the SHRAM), or NULL after filling *err with
 * MX_NPU_ERR_OUT_OF_BOUNDS naming `what`. */
uint8_t *mx_npu_span(mx_npu_exec *x, unsigned region, int internal, uint64_t address, uint64_t len, const char *what);

/* The operations (each returns 0 or -mx_npu_status with *err filled). */
int mx_npu_exec_dma(mx_npu_exec *x);
int mx_npu_exec_conv(mx_npu_exec *x); /* CONV and DEPTHWISE */
int mx_npu_exec_pool(mx_npu_exec *x);
int mx_npu_exec_elementwise(mx_npu_exec *x);

/* The Ethos-U85 (npu85_*.c): the stream's loop, and its operations. */
int mx_npu85_run(mx_npu_exec *x, const uint32_t *words, size_t count);
int mx_npu85_exec_conv(mx_npu_exec *x); /* CONV and DEPTHWISE */
int mx_npu85_exec_pool(mx_npu_exec *x);
int mx_npu85_exec_elementwise(mx_npu_exec *x);
int mx_npu85_exec_dma(mx_npu_exec *x);

#endif
