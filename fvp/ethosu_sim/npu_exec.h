/* The Ethos-U55/U65/U85 command-stream executor: runs Vela's command words against memory regions and writes
 * exactly the bytes the NPU would. What it does not implement it refuses, naming the opcode or mode: never a
 * silent wrong answer. Decoding (npu_commands.h) and weight streams (mlw_decode.h) are its inputs' readers. */
#ifndef MX_NPU_EXEC_H
#define MX_NPU_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "npu_commands.h"

#define MX_NPU_REGIONS 8

/* One memory region: base pointer n of the NPU is region n; an address in the stream is an offset into it
 * (Vela's convention: 0 weights and constants, 1 scratch holding the inputs and outputs at their offsets,
 * 2 fast scratch). Every access is checked against size. */
typedef struct mx_npu_region {
  uint8_t *data;
  size_t size;
} mx_npu_region;

/* Executes `count` command words (the COMMAND_STREAM of a payload) against `regions`. Returns 0, or
 * -mx_npu_status with *err naming the word, the opcode and what was refused or out of bounds. */
int mx_npu_execute(const uint32_t *words, size_t count, const mx_npu_region regions[MX_NPU_REGIONS], mx_npu_error *err);

/* As mx_npu_execute, for the accelerator that the payload's OPTIMIZER_CONFIG word describes (mx_npu_payload's
 * config[0]: bits 0-3 log2 of the MACs per cycle, 12-13 log2 of the U85's weight decoders, 28-31 the product: 0
 * Ethos-U55, 1 Ethos-U65, 2 Ethos-U85). The weight streams' brick order depends on the MAC count: OFM micro-blocks of
 * 4 channels on the 32-MAC Ethos-U55, 8 on the others; mx_npu_execute (config 0: unknown) assumes a U55/U65 of 64 MACs
 * or more, so a stream compiled for ethos-u55-32 needs this entry point to run right, and an Ethos-U85 stream (its own
 * command set, npu85_*.c) needs it to run at all. */
int mx_npu_execute_config(const uint32_t *words, size_t count, const mx_npu_region regions[MX_NPU_REGIONS],
                          uint32_t config, mx_npu_error *err);

#endif
