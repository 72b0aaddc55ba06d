/* The model firmware's main, copied into every model project as model/main.c (the model's own parts
 * are the generated mx_model*.c): run the model once. Inputs come from the host through semihosting files
 * in<i>.bin (raw bytes in the tensor's memory order), outputs go to out<i>.bin, and one line on the
 * UART says how it went:
 *   mx: ok ticks=<n> stack=<bytes> pool=<needed>/<have>
 *   mx: error 0x0305 (instruction 7, op aten::mul.out)
 *   mx: io error: <what>
 * The error line carries the code only: the host (mcu_export/runners/firmware.py) adds the text from
 * errors.def, so the error strings stay out of flash.
 * Exit code: 0 ok, 1 runtime error, 2 I/O error (fvp/README.md). The board's startup has already called
 * mx_platform_init() and paints the stack for the high-water mark. */
#include <stddef.h>
#include <stdint.h>

#include "mx/runtime.h"
#include "mx_model.h"
#include "mx_platform.h"

enum { MX_EXIT_OK = 0, MX_EXIT_RUNTIME = 1, MX_EXIT_IO = 2 };

static mx_program program;
static mx_method method;

/* Decimal without 64-bit division (which would link libgcc's __udivmoddi4): long division by 10 over
 * four 16-bit limbs, each step a 32-bit division. */
static void put_u64(uint64_t v) {
  uint32_t limb[4] = {(uint32_t)(v >> 48), (uint32_t)(v >> 32) & 0xFFFFu, (uint32_t)(v >> 16) & 0xFFFFu,
                      (uint32_t)v & 0xFFFFu};
  char digits[21];
  int n = 0;
  uint32_t any;
  do {
    uint32_t rem = 0;
    any = 0;
    for (int i = 0; i < 4; i++) {
      const uint32_t cur = (rem << 16) | limb[i];
      limb[i] = cur / 10u;
      rem = cur % 10u;
      any |= limb[i];
    }
    digits[n++] = (char)('0' + rem);
  } while (any != 0u);
  while (n > 0) {
    mx_platform_putc(digits[--n]);
  }
}

static void put_code(uint32_t code) {
  mx_platform_puts("0x");
  for (int shift = 12; shift >= 0; shift -= 4) {
    mx_platform_putc("0123456789abcdef"[(code >> shift) & 0xFu]);
  }
}

static int runtime_error(mx_error e, const mx_error_site *site) {
  mx_platform_puts("mx: error ");
  put_code((uint32_t)e);
  if (site != NULL && site->instruction >= 0) {
    mx_platform_puts(" (instruction ");
    put_u64((uint64_t)site->instruction);
    if (site->arg >= 0) {
      mx_platform_puts(", argument ");
      put_u64((uint64_t)site->arg);
    }
    if (site->op_name != NULL) {
      mx_platform_puts(", op ");
      mx_platform_puts(site->op_name);
      if (site->op_overload != NULL && site->op_overload[0] != '\0') {
        mx_platform_puts(".");
        mx_platform_puts(site->op_overload);
      }
    }
    mx_platform_puts(")");
  } else if (site != NULL && site->value >= 0) {
    mx_platform_puts(" (value ");
    put_u64((uint64_t)site->value);
    mx_platform_puts(")");
  }
  mx_platform_puts("\n");
  return MX_EXIT_RUNTIME;
}

static int io_error(const char *what, const char *file, uint32_t expected, long got) {
  mx_platform_puts("mx: io error: ");
  mx_platform_puts(what);
  mx_platform_puts(" ");
  mx_platform_puts(file);
  if (got >= 0) {
    mx_platform_puts(" (");
    put_u64((uint64_t)got);
    mx_platform_puts(" bytes, the tensor has ");
    put_u64(expected);
    mx_platform_puts(")");
  }
  mx_platform_puts("\n");
  return MX_EXIT_IO;
}

/* "in" or "out", then the index, then ".bin". */
static void file_name(char *buf, const char *prefix, uint32_t index) {
  char digits[10];
  int n = 0;
  while (*prefix) {
    *buf++ = *prefix++;
  }
  do {
    digits[n++] = (char)('0' + index % 10u);
    index /= 10u;
  } while (index != 0u);
  while (n > 0) {
    *buf++ = digits[--n];
  }
  for (const char *s = ".bin"; *s; s++) {
    *buf++ = *s;
  }
  *buf = '\0';
}

static int read_input(uint32_t i) {
  char name[24];
  file_name(name, "in", i);
  mx_tensor *t = mx_method_input(&method, i);
  if (t == NULL || (t->data == NULL && mx_tensor_nbytes(t) != 0)) {
    return io_error("model input is not a planned tensor:", name, 0, -1);
  }
  int h = mx_semihost_open(name, MX_SEMIHOST_MODE_RB);
  if (h < 0) {
    return io_error("cannot open", name, 0, -1);
  }
  long len = mx_semihost_flen(h);
  int status = len == (long)mx_tensor_nbytes(t) ? mx_semihost_read(h, t->data, mx_tensor_nbytes(t)) : -1;
  mx_semihost_close(h);
  if (len != (long)mx_tensor_nbytes(t)) {
    return io_error("wrong size:", name, mx_tensor_nbytes(t), len);
  }
  return status == 0 ? MX_EXIT_OK : io_error("cannot read", name, 0, -1);
}

static int write_output(uint32_t i) {
  char name[24];
  file_name(name, "out", i);
  const mx_tensor *t = mx_method_output(&method, i);
  if (t == NULL) {
    return io_error("model output is not a tensor:", name, 0, -1);
  }
  int h = mx_semihost_open(name, MX_SEMIHOST_MODE_WB);
  if (h < 0) {
    return io_error("cannot create", name, 0, -1);
  }
  int status = mx_semihost_write(h, t->data, mx_tensor_nbytes(t));
  mx_semihost_close(h);
  return status == 0 ? MX_EXIT_OK : io_error("cannot write", name, 0, -1);
}

int main(void) {
  mx_method_meta meta;
  mx_error e = mx_program_init(&program, mx_model_pte, mx_model_pte_size);
  if (e == MX_OK) e = mx_program_method_meta(&program, MX_MODEL_METHOD, &meta);
  if (e != MX_OK) {
    return runtime_error(e, NULL);
  }
  const mx_method_config config = {
      .meta_pool = mx_model_meta_pool,
      .meta_pool_size = mx_model_meta_pool_size,
      .arenas = mx_model_arenas,
      .arena_count = mx_model_arena_count,
      .skip_kernels = false,
  };
  mx_icount_begin(MX_ICOUNT_TAG_LOAD);
  e = mx_method_load(&program, MX_MODEL_METHOD, &config, &method);
  mx_icount_end(MX_ICOUNT_TAG_LOAD);
  if (e != MX_OK) {
    return runtime_error(e, mx_method_error_site(&method));
  }
  for (uint32_t i = 0; i < mx_method_input_count(&method); i++) {
    int status = read_input(i);
    if (status != MX_EXIT_OK) {
      return status;
    }
  }

  uint64_t start = mx_platform_ticks();
  mx_icount_begin(0);
  e = mx_method_execute(&method);
  mx_icount_end(0);
  uint64_t ticks = mx_platform_ticks() - start;
  if (e != MX_OK) {
    return runtime_error(e, mx_method_error_site(&method));
  }

  for (uint32_t i = 0; i < mx_method_output_count(&method); i++) {
    int status = write_output(i);
    if (status != MX_EXIT_OK) {
      return status;
    }
  }
  mx_platform_puts("mx: ok ticks=");
  put_u64(ticks);
  mx_platform_puts(" stack=");
  put_u64(mx_platform_stack_used());
  mx_platform_puts(" pool=");
  put_u64(meta.meta_pool_bytes);
  mx_platform_puts("/");
  put_u64(mx_model_meta_pool_size);
  mx_platform_puts("\n");
  return MX_EXIT_OK;
}
