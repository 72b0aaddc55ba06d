/* mx_fuzz: the libFuzzer target of the runtime core with every kernel of the op table (issue 12: a program
 * file can never make the runtime write where it must not, compute undefined results or run forever).
 * Built with -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all (runtime_c/fuzz/CMakeLists.txt,
 * mcu_export.host_runtime.build_fuzzer); run by `make fuzz` and tests/test_fuzz.py.
 *
 * One input is a header, a program and an input pool:
 *   byte 0     mode, low two bits: 0 load every method; 1 load and execute each with zeroed inputs;
 *              2 and 3 load and execute each with its inputs filled from the pool
 *   bytes 1-2  L, the pool's length (u16, little-endian; cut to what the input holds)
 *   bytes 3..  the .pte program, then the pool: the last L bytes
 * The mode bits and the pool sit outside the program, so a mutation of one leaves the other as it was.
 * tests/support/fuzz_seeds.py frames .pte files this way.
 *
 * A run that returns is a pass only if every error is one of errors.def's codes; an unknown code aborts.
 * MX_FUZZ_REPORT=1 in the environment prints one line per run and per method to stderr (the regression tests read
 * them; libFuzzer replays a file a second time, under LeakSanitizer, when its first run made more mallocs than frees):
 *   mx_fuzz: run <n>
 *   mx_fuzz: method <i> load 0x<code> execute 0x<code>|-   */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_memory.h"
#include "mx/runtime.h"

enum { HEADER_BYTES = 3, MODE_LOAD = 0, MODE_ZERO_INPUTS = 1 };

/* Whole-method work above this is refused at load (MX_ERR_TOO_COSTLY), so libFuzzer's -timeout is left for
 * a loop the cost bound misses. The heaviest seed, resnet8 fp32, is bounded at 1.6e7 and runs in ~0.5 s under the
 * sanitizers: every seed must run, and 1e8 stays far under -timeout=5. */
#define MX_FUZZ_MAX_COST 100000000u

static int report;
static unsigned runs;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *r = getenv("MX_FUZZ_REPORT");
  report = r != NULL && r[0] == '1';
  return 0;
}

static void check_known(mx_error e, const char *where) {
  switch ((int)e) {
#define X(name, code, text) \
  case code: return;
#include "mx/errors.def"
#undef X
    default: break;
  }
  fprintf(stderr, "mx_fuzz: %s returned 0x%04x, which is not in errors.def\n", where, (unsigned)e);
  abort();
}

static void fill_inputs(mx_method *m, int mode, const uint8_t *pool, size_t pool_size) {
  size_t at = 0;
  for (uint32_t i = 0; i < mx_method_input_count(m); i++) {
    mx_tensor *t = mx_method_input(m, i);
    if (t == NULL || t->data == NULL) continue;
    uint8_t *dst = t->data;
    for (uint32_t b = 0; b < mx_tensor_nbytes(t); b++) {
      dst[b] = (mode == MODE_ZERO_INPUTS || pool_size == 0) ? 0 : pool[at++ % pool_size];
    }
  }
}

static void run_method(const mx_program *program, uint32_t index, int mode, const uint8_t *pool, size_t pool_size) {
  const char *name;
  mx_method_meta meta;
  fuzz_method_memory mem;
  mx_method method;
  mx_error load = mx_program_method_name(program, index, &name);
  if (load == MX_OK) load = mx_program_method_meta(program, name, &meta);
  if (load == MX_OK) load = fuzz_method_memory_make(&mem, program, &meta);
  check_known(load, "method meta");
  if (load != MX_OK) {
    if (report) fprintf(stderr, "mx_fuzz: method %u load 0x%04x execute -\n", index, (unsigned)load);
    return;
  }
  mx_method_config cfg = {
      .meta_pool = mem.pool,
      .meta_pool_size = meta.meta_pool_bytes,
      .arenas = mem.arenas,
      .arena_count = mem.arena_count,
      .max_cost = MX_FUZZ_MAX_COST,
      .cost = mx_call_cost,
  };
  load = mx_method_load(program, name, &cfg, &method);
  check_known(load, "mx_method_load");
  int executed = 0;
  mx_error exec = MX_OK;
  if (load == MX_OK && mode != MODE_LOAD) {
    fill_inputs(&method, mode, pool, pool_size);
    exec = mx_method_execute(&method);
    check_known(exec, "mx_method_execute");
    executed = 1;
  }
  if (report) {
    if (executed) {
      fprintf(stderr, "mx_fuzz: method %u load 0x%04x execute 0x%04x\n", index, (unsigned)load, (unsigned)exec);
    } else {
      fprintf(stderr, "mx_fuzz: method %u load 0x%04x execute -\n", index, (unsigned)load);
    }
  }
  fuzz_method_memory_free(&mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < HEADER_BYTES) return 0;
  if (report) fprintf(stderr, "mx_fuzz: run %u\n", ++runs);
  int mode = data[0] & 3;
  size_t pool_size = (size_t)data[1] | ((size_t)data[2] << 8);
  size_t rest = size - HEADER_BYTES;
  if (pool_size > rest) pool_size = rest;
  size_t program_size = rest - pool_size;
  const uint8_t *pool = data + HEADER_BYTES + program_size;

  mx_readonly copy;
  if (fuzz_program_copy_make(&copy, data + HEADER_BYTES, program_size) != 0) return 0;
  mx_program program;
  mx_error e = mx_program_init(&program, copy.data, copy.size);
  check_known(e, "mx_program_init");
  if (e != MX_OK) {
    if (report) fprintf(stderr, "mx_fuzz: program 0x%04x\n", (unsigned)e);
  } else {
    uint32_t methods = mx_program_method_count(&program);
    for (uint32_t i = 0; i < methods; i++) run_method(&program, i, mode, pool, pool_size);
  }
  fuzz_program_copy_free(&copy);
  return 0;
}
