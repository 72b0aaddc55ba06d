/* mx_npu_execute: the command stream decoded operation by operation (npu_commands.h) and each operation run
 * to completion in stream order, which is an order the NPU's own waits allow: DMA_WAIT and KERNEL_WAIT have
 * nothing left to wait for. */
#include "npu_exec.h"

#include <stdarg.h>
#include <string.h>

#include "npu_exec_state.h"

int mx_npu_exec_fail(mx_npu_exec *x, mx_npu_status status, const char *what, ...) {
  const mx_npu_op *op = x->op;
  va_list ap;
  va_start(ap, what);
  uint32_t opcode = op != NULL ? op->opcode | (x->u85 ? MX_NPU_U85_OPCODE : 0u) : 0u;
  int rc = op != NULL
               ? mx_npu_error_vset(x->err, status, "", 1, op->word_index, opcode, x->words[op->word_index], what, ap)
               : mx_npu_error_vset(x->err, status, "mx_npu_execute: ", 0, 0, MX_NPU_NO_OPCODE, 0, what, ap);
  va_end(ap);
  return rc;
}

uint8_t *mx_npu_span(mx_npu_exec *x, unsigned region, int internal, uint64_t address, uint64_t len, const char *what) {
  uint8_t *base;
  size_t size;
  if (internal) {
    base = x->shram;
    size = sizeof x->shram;
  } else {
    base = x->regions[region & 7u].data;
    size = x->regions[region & 7u].size;
  }
  if (base == NULL || address > size || len > size - address) {
    mx_npu_exec_fail(x, MX_NPU_ERR_OUT_OF_BOUNDS, "%s: %llu bytes at 0x%llx do not fit in %s %u (%zu bytes%s)", what,
                     (unsigned long long)len, (unsigned long long)address, internal ? "SHRAM" : "region", region & 7u,
                     size, base == NULL ? ", no memory" : "");
    return NULL;
  }
  return base + address;
}

static int run(mx_npu_exec *x, const uint32_t *words, size_t count) {
  mx_npu_decoder d;
  mx_npu_op op;
  mx_npu_decoder_init(&d, words, count);
  for (;;) {
    x->op = NULL;
    int rc = mx_npu_decoder_next(&d, &op, x->err);
    if (rc <= 0) return rc;
    x->op = &op;
    switch (op.opcode) {
      case MX_NPU_OP_STOP:
      case MX_NPU_OP_DMA_WAIT:
      case MX_NPU_OP_KERNEL_WAIT:
      case MX_NPU_OP_PMU_MASK:
      case MX_NPU_OP_IRQ: rc = 0; break;
      case MX_NPU_OP_DMA_START: rc = mx_npu_exec_dma(x); break;
      case MX_NPU_OP_CONV:
      case MX_NPU_OP_DEPTHWISE: rc = mx_npu_exec_conv(x); break;
      case MX_NPU_OP_POOL: rc = mx_npu_exec_pool(x); break;
      case MX_NPU_OP_ELEMENTWISE: rc = mx_npu_exec_elementwise(x); break;
      default: rc = mx_npu_exec_fail(x, MX_NPU_ERR_NOT_IMPLEMENTED, "operation not implemented"); break;
    }
    if (rc != 0) return rc;
  }
}

/* OPTIMIZER_CONFIG is the NPU's CONFIG register as Vela compiled for it (regor's ConfigRegister): bits 0-3 log2 of
 * the MACs per cycle, 12-13 (U85) log2 of the weight decoders, 28-31 the product: 0 Ethos-U55, 1 Ethos-U65, 2
 * Ethos-U85. */
#define CONFIG_MACS_LOG2(config) ((config)&0xFu)
#define CONFIG_WD_LOG2(config) (((config) >> 12) & 3u)
#define CONFIG_PRODUCT(config) ((config) >> 28)
#define PRODUCT_U85 2u
#define MACS_LOG2_U55_32 5

int mx_npu_execute(const uint32_t *words, size_t count, const mx_npu_region regions[MX_NPU_REGIONS],
                   mx_npu_error *err) {
  return mx_npu_execute_config(words, count, regions, 0, err);
}

int mx_npu_execute_config(const uint32_t *words, size_t count, const mx_npu_region regions[MX_NPU_REGIONS],
                          uint32_t config, mx_npu_error *err) {
  mx_npu_error ignored;
  if (err == NULL) err = &ignored;
  /* The context holds the SHRAM, the weight buffers, the per-channel records and the U85's chain buffers (about
   * 1.6 MB): on the stack, as nothing here allocates. */
  mx_npu_exec x;
  x.regions = regions;
  x.err = err;
  x.op = NULL;
  x.words = words;
  x.lut_base = -1;
  x.ofm_ublock = CONFIG_MACS_LOG2(config) == MACS_LOG2_U55_32 ? 4 : 8;
  x.u85 = CONFIG_PRODUCT(config) == PRODUCT_U85;
  x.macs = 1 << CONFIG_MACS_LOG2(config);
  x.cores = 1 << CONFIG_WD_LOG2(config);
  memset(err, 0, sizeof *err);
  if ((words == NULL && count != 0) || regions == NULL) {
    return mx_npu_exec_fail(&x, MX_NPU_ERR_ARGUMENT, "NULL words or regions");
  }
  if (CONFIG_PRODUCT(config) > PRODUCT_U85) {
    return mx_npu_exec_fail(&x, MX_NPU_ERR_NOT_IMPLEMENTED, "config 0x%08X: product %u is not an Ethos-U55/U65/U85",
                            (unsigned)config, (unsigned)CONFIG_PRODUCT(config));
  }
  memset(x.shram, 0, sizeof x.shram);
  return x.u85 ? mx_npu85_run(&x, words, count) : run(&x, words, count);
}
