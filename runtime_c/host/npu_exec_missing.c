/* TEMPORARY: stands for fvp/ethosu_sim/npu_exec.c (the command-stream executor, being written elsewhere) until
 * it lands. CMake links this file only while that one does not exist, so the executor is picked up with no edit;
 * delete this file then. Every job fails, saying why. */
#include <stdio.h>

#include "npu_exec.h"

int mx_npu_execute_config(const uint32_t *words, size_t count, const mx_npu_region regions[MX_NPU_REGIONS],
                          uint32_t config, mx_npu_error *err) {
  (void)config;
  return mx_npu_execute(words, count, regions, err);
}

int mx_npu_execute(const uint32_t *words, size_t count, const mx_npu_region regions[MX_NPU_REGIONS],
                   mx_npu_error *err) {
  (void)words;
  (void)count;
  (void)regions;
  if (err != NULL) {
    err->status = MX_NPU_ERR_ARGUMENT;
    err->opcode = MX_NPU_NO_OPCODE;
    err->word_index = 0;
    err->word = 0;
    snprintf(err->message, sizeof err->message,
             "simulator not built (fvp/ethosu_sim/npu_exec.c was missing when mx_run was built)");
  }
  return -(int)MX_NPU_ERR_ARGUMENT;
}
