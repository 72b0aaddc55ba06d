/* mx_run: load a .pte with the runtime core and run one method on the host.
 *
 *   mx_run MODEL.pte [--method NAME] [--input DTYPE:SHAPE:FILE]... [--output FILE]...
 *          [--load-only | --parse-only | --info | --kernels | --cost] [--max-ops N] [--max-arena-bytes N]
 *   mx_run --list-errors
 *
 * DTYPE is the .pte ScalarType code (6 = float32), SHAPE is "1x3x32x32" ("scalar" or empty for 0-dim),
 * FILE holds the tensor's raw little-endian bytes in its memory order. Outputs are written raw, one file
 * per --output, in the method's output order.
 *
 * --info prints, one per line (space separated, machine-readable):
 *   method <name>
 *   meta_pool <bytes>
 *   arena <memory_id> <bytes>                       (memory_id >= 1)
 *   input <i> <dtype> <shape> <dim_order>            dim_order like 0,1,2,3 ("-" for 0-dim)
 *   output <i> <dtype> <shape> <dim_order>
 *   input <i> nontensor <tag>                        for non-tensor inputs/outputs (tag = mx_tag code)
 *   meta <region> <count_name> <count>               per metadata region (mx/meta_pool.def, meta_load.def), as
 *                                                    the loader counts them (count_name: mx_meta_counts field)
 *   meta - largest_arena <bytes>
 *   meta_blocks <lasting> <load> arena|pool          the two blocks' bytes as a firmware's static pool sums them
 *                                                    from the counts, and where the load-only one goes
 * --parse-only validates the whole method without resolving kernels; --load-only also resolves them.
 * --kernels loads like --load-only and prints what each instruction runs, one per line:
 *   instruction <i> <name>.<overload>                the kernel called (a loader fusion's kernel included)
 *   instruction <i> fused-away                       folded into an earlier instruction's fused kernel
 *   instruction <i> move
 * --cost loads like --load-only and prints "cost <n>": mx_method_cost, the bound of one run's work.
 * --max-ops N refuses at load a method whose cost is above N (default 1e10, about ten seconds of this host;
 * 0: no limit); --max-arena-bytes N refuses, before allocating, planned arenas above N bytes in all (default
 * 1 GiB). The program is read into pages made read-only: a kernel writing into it faults.
 * --list-errors prints "0x<code> <NAME> <text>" for every runtime error.
 * --meta-pool-size N gives the loader a smaller metadata pool than it needs (for tests; never larger).
 *
 * Errors: one line "mx_run: error: <text> (<detail>)" on stderr; exit 2 for usage errors (bad flags,
 * unreadable files, inputs that do not match the program), 3 for program or runtime errors. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mx/meta_pool.h"
#include "mx/runtime.h"
#include "mx_run_io.h"
#include "mx_run_npu.h"

#define MAX_IO 64
/* The metadata pool's size comes from the file: cap it so a corrupt file is an error and not a giant
 * allocation (arenas have --max-arena-bytes). */
#define MAX_ALLOC ((uint64_t)256 << 20)
#define DEFAULT_MAX_OPS 10000000000ull
#define DEFAULT_MAX_ARENA_BYTES ((uint64_t)1 << 30)

enum { EXIT_USAGE = 2, EXIT_PROGRAM = 3 };

typedef struct options {
  const char *model;
  const char *method;
  const char *inputs[MAX_IO];
  int input_count;
  const char *outputs[MAX_IO];
  int output_count;
  int load_only, parse_only, info, kernels, cost, list_errors;
  unsigned long long max_ops, max_arena_bytes;
  long long meta_pool_size;   /* --meta-pool-size: override the exact size (tests the pool-full error) */
} options;

typedef struct state {
  mx_readonly file;
  mx_program program;
  mx_method method;
  mx_method_meta meta;
  void *pool;
  mx_span arenas[MAX_IO];
  uint32_t arena_count;
} state;

static int fail(int code, mx_error err, const char *detail) {
  fprintf(stderr, "mx_run: error: %s (%s)\n", mx_error_to_string(err), detail);
  return code;
}

/* A count given as "1000000" or "1e6"; below 0 reads as 0 (no limit), past the type's range as its maximum. */
static unsigned long long count_arg(const char *text) {
  double v = strtod(text, NULL);
  if (!(v > 0)) return 0;
  return v >= 18446744073709549568.0 ? ULLONG_MAX : (unsigned long long)v;
}

static int parse_args(int argc, char **argv, options *o, char *detail, size_t cap) {
  memset(o, 0, sizeof *o);
  o->method = "forward";
  o->meta_pool_size = -1;
  o->max_ops = DEFAULT_MAX_OPS;
  o->max_arena_bytes = DEFAULT_MAX_ARENA_BYTES;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_value = i + 1 < argc;
    if (strcmp(a, "--method") == 0 && has_value) {
      o->method = argv[++i];
    } else if (strcmp(a, "--input") == 0 && has_value && o->input_count < MAX_IO) {
      o->inputs[o->input_count++] = argv[++i];
    } else if (strcmp(a, "--output") == 0 && has_value && o->output_count < MAX_IO) {
      o->outputs[o->output_count++] = argv[++i];
    } else if (strcmp(a, "--meta-pool-size") == 0 && has_value) {
      o->meta_pool_size = atoll(argv[++i]);
    } else if (strcmp(a, "--max-ops") == 0 && has_value) {
      o->max_ops = count_arg(argv[++i]);
    } else if (strcmp(a, "--max-arena-bytes") == 0 && has_value) {
      o->max_arena_bytes = count_arg(argv[++i]);
    } else if (strcmp(a, "--cost") == 0) {
      o->cost = 1;
    } else if (strcmp(a, "--load-only") == 0) {
      o->load_only = 1;
    } else if (strcmp(a, "--parse-only") == 0) {
      o->parse_only = 1;
    } else if (strcmp(a, "--info") == 0) {
      o->info = 1;
    } else if (strcmp(a, "--kernels") == 0) {
      o->kernels = 1;
    } else if (strcmp(a, "--list-errors") == 0) {
      o->list_errors = 1;
    } else if (a[0] != '-' && o->model == NULL) {
      o->model = a;
    } else {
      snprintf(detail, cap,
               "unexpected argument '%s'; usage: mx_run MODEL.pte [--method NAME] "
               "[--input DTYPE:SHAPE:FILE]... [--output FILE]... [--load-only|--parse-only|--info|--kernels]",
               a);
      return -1;
    }
  }
  if (o->model == NULL && !o->list_errors) {
    snprintf(detail, cap, "no model given; usage: mx_run MODEL.pte [options]");
    return -1;
  }
  return 0;
}

static void list_errors(void) {
#define X(name, code, text) printf("0x%04x %s %s\n", (unsigned)(code), #name, mx_error_to_string(name));
#include "mx/errors.def"
#undef X
}

static void site_detail(const mx_error_site *s, const char *method, char *buf, size_t cap) {
  int n = snprintf(buf, cap, "method %s", method);
  if (s->instruction >= 0 && n >= 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, ", instruction %lld", (long long)s->instruction);
  if (s->arg >= 0 && n >= 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, ", argument %lld", (long long)s->arg);
  if (s->value >= 0 && n >= 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, ", value %lld", (long long)s->value);
  if (s->op_name != NULL && n >= 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, ", op %s.%s", s->op_name, s->op_overload);
  if (s->delegate_index >= 0 && n >= 0 && (size_t)n < cap)
    snprintf(buf + n, cap - (size_t)n, ", delegate %lld %s", (long long)s->delegate_index,
             s->delegate_id != NULL ? s->delegate_id : "?");
}

static int open_method(state *st, const options *o, char *detail, size_t cap) {
  mx_error e = mx_program_init(&st->program, st->file.data, st->file.size);
  if (e != MX_OK) {
    snprintf(detail, cap, "program %s", o->model);
    return fail(EXIT_PROGRAM, e, detail);
  }
  e = mx_program_method_meta(&st->program, o->method, &st->meta);
  if (e != MX_OK) {
    if (st->meta.bad_value >= 0)
      snprintf(detail, cap, "method %s, value %ld", o->method, (long)st->meta.bad_value);
    else
      snprintf(detail, cap, "method %s", o->method);
    return fail(EXIT_PROGRAM, e, detail);
  }
  if (st->meta.arena_count > MAX_IO) {
    snprintf(detail, cap, "%u planned arenas, at most %d", st->meta.arena_count, MAX_IO);
    return fail(EXIT_PROGRAM, MX_ERR_TOO_LARGE, detail);
  }
  st->arena_count = st->meta.arena_count;
  uint64_t total = 0;   /* every size is checked before anything is allocated */
  for (uint32_t id = 1; id < st->arena_count; id++) {
    uint64_t size;
    e = mx_program_arena_size(&st->program, &st->meta, id, &size);
    if (e != MX_OK) {
      snprintf(detail, cap, "arena %u", id);
      return fail(EXIT_PROGRAM, e, detail);
    }
    total += size > o->max_arena_bytes ? o->max_arena_bytes + 1u : size;
    if (total > o->max_arena_bytes) {
      snprintf(detail, cap, "arena %u takes the arenas past --max-arena-bytes %llu", id, o->max_arena_bytes);
      return fail(EXIT_PROGRAM, MX_ERR_ARENA_LIMIT, detail);
    }
    st->arenas[id].size = (size_t)size;
  }
  for (uint32_t id = 1; id < st->arena_count; id++) {
    st->arenas[id].ptr = calloc(1, st->arenas[id].size ? st->arenas[id].size : 1);
    if (st->arenas[id].ptr == NULL) return fail(EXIT_PROGRAM, MX_ERR_IO, "out of host memory");
  }
  if (st->meta.meta_pool_bytes > MAX_ALLOC) {
    snprintf(detail, cap, "metadata pool of %zu bytes", st->meta.meta_pool_bytes);
    return fail(EXIT_PROGRAM, MX_ERR_TOO_LARGE, detail);
  }
  size_t pool_size = st->meta.meta_pool_bytes;
  if (o->meta_pool_size >= 0 && (uint64_t)o->meta_pool_size < pool_size) pool_size = (size_t)o->meta_pool_size;
  st->pool = malloc(pool_size ? pool_size : 1);
  if (st->pool == NULL) return fail(EXIT_PROGRAM, MX_ERR_IO, "out of host memory");
  mx_method_config cfg = {
      .meta_pool = st->pool,
      .meta_pool_size = pool_size,
      .arenas = st->arenas,
      .arena_count = st->arena_count,
      .skip_kernels = o->parse_only || o->info,
      .max_cost = o->max_ops,
      .cost = mx_call_cost,
  };
  e = mx_method_load(&st->program, o->method, &cfg, &st->method);
  if (e != MX_OK) {
    site_detail(mx_method_error_site(&st->method), o->method, detail, cap);
    return fail(EXIT_PROGRAM, e, detail);
  }
  return 0;
}

static void print_io(const char *kind, uint32_t i, const mx_value *v) {
  if (v->tag != MX_TAG_TENSOR) {
    printf("%s %u nontensor %u\n", kind, i, (unsigned)v->tag);
    return;
  }
  mx_run_shape s;
  char dims[160], order[64];
  size_t used = 0;
  mx_run_tensor_shape(v->u.t, &s);
  mx_run_format_dims(dims, sizeof dims, s.sizes, s.dim);
  snprintf(order, sizeof order, "-");
  for (uint32_t d = 0; d < s.dim; d++) {
    used += (size_t)snprintf(order + used, sizeof order - used, d ? ",%u" : "%u", v->u.t->dim_order[d]);
  }
  printf("%s %u %d %s %s\n", kind, i, s.dtype, dims, order);
}

static void print_info(const state *st, const options *o) {
  const mx_method *m = &st->method;
  mx_meta_counts c;
  printf("method %s\n", o->method);
  printf("meta_pool %zu\n", st->meta.meta_pool_bytes);
  for (uint32_t id = 1; id < st->arena_count; id++) printf("arena %u %zu\n", id, st->arenas[id].size);
  for (uint32_t i = 0; i < m->input_count; i++) print_io("input", i, &m->io_values[i]);
  for (uint32_t i = 0; i < m->output_count; i++) print_io("output", i, &m->io_values[m->input_count + i]);
  if (mx_program_method_counts(&st->program, o->method, &c) != MX_OK) return;   /* cannot fail: loading counted */
#define X(region, count, elem_size) printf("meta %s %s %llu\n", #region, #count, (unsigned long long)c.count);
#include "mx/meta_pool.def"
#include "mx/meta_load.def"
#undef X
  printf("meta - largest_arena %llu\n", (unsigned long long)c.largest_arena);
  /* the sums codegen/model/mx_model_memory.c.j2 makes */
  uint64_t lasting = 0, load = 0;
#define X(region, count, elem_size) lasting += MX_META_REGION_BYTES(c.count, elem_size);
#include "mx/meta_pool.def"
#undef X
#define X(region, count, elem_size) load += MX_META_REGION_BYTES(c.count, elem_size);
#include "mx/meta_load.def"
#undef X
  printf("meta_blocks %llu %llu %s\n", (unsigned long long)lasting, (unsigned long long)load,
         MX_META_LOAD_IN_ARENA(load, c.largest_arena) ? "arena" : "pool");
}

static void print_kernels(const mx_method *m) {
  for (uint32_t i = 0; i < m->instr_count; i++) {
    const mx_instr *ins = &m->instrs[i];
    if (ins->kind == MX_INSTR_FUSED_AWAY) {
      printf("instruction %u fused-away\n", i);
    } else if (ins->kind == MX_INSTR_FUSED) {
      printf("instruction %u %s.%s\n", i, mx_kernel_table[ins->op].name, mx_kernel_table[ins->op].overload);
    } else {
      printf("instruction %u %s.%s\n", i, m->ops[ins->op]->name, m->ops[ins->op]->overload);
    }
  }
}

static int same_shape(const mx_run_shape *a, const mx_run_shape *b) {
  if (a->dtype != b->dtype || a->dim != b->dim) return 0;
  for (uint32_t d = 0; d < a->dim; d++) {
    if (a->sizes[d] != b->sizes[d]) return 0;
  }
  return 1;
}

static int feed_input(state *st, const options *o, int i, char *detail, size_t cap) {
  mx_tensor *t = mx_method_input(&st->method, (uint32_t)i);
  mx_run_shape want, got;
  const char *path;
  char want_dims[160], got_dims[160];
  if (t == NULL) {
    snprintf(detail, cap, "input %d is not a tensor", i);
    return fail(EXIT_PROGRAM, MX_ERR_UNSUPPORTED, detail);
  }
  if (mx_run_parse_spec(o->inputs[i], &got, &path) != 0 || path == NULL || *path == '\0') {
    snprintf(detail, cap, "input %d: '%s' is not DTYPE:SHAPE:FILE", i, o->inputs[i]);
    return fail(EXIT_USAGE, MX_ERR_BAD_USAGE, detail);
  }
  mx_run_tensor_shape(t, &want);
  mx_run_format_dims(want_dims, sizeof want_dims, want.sizes, want.dim);
  mx_run_format_dims(got_dims, sizeof got_dims, got.sizes, got.dim);
  if (!same_shape(&want, &got)) {
    snprintf(detail, cap, "input %d expected %d:%s got %d:%s", i, want.dtype, want_dims, got.dtype, got_dims);
    return fail(EXIT_USAGE, MX_ERR_INPUT_MISMATCH, detail);
  }
  uint8_t *data;
  size_t size;
  if (mx_run_read_file(path, &data, &size) != 0) {
    snprintf(detail, cap, "cannot read input %d file %s", i, path);
    return fail(EXIT_USAGE, MX_ERR_IO, detail);
  }
  if (size != mx_tensor_nbytes(t)) {
    free(data);
    snprintf(detail, cap, "input %d expected %u bytes got %zu in %s", i, mx_tensor_nbytes(t), size, path);
    return fail(EXIT_USAGE, MX_ERR_INPUT_MISMATCH, detail);
  }
  if (size > 0) memcpy(t->data, data, size);
  free(data);
  return 0;
}

static int run(state *st, const options *o, char *detail, size_t cap) {
  mx_method *m = &st->method;
  if ((uint32_t)o->input_count != m->input_count) {
    snprintf(detail, cap, "expected %u inputs got %d", m->input_count, o->input_count);
    return fail(EXIT_USAGE, MX_ERR_INPUT_MISMATCH, detail);
  }
  if ((uint32_t)o->output_count > m->output_count) {
    snprintf(detail, cap, "%d --output files for %u outputs", o->output_count, m->output_count);
    return fail(EXIT_USAGE, MX_ERR_BAD_USAGE, detail);
  }
  for (int i = 0; i < o->input_count; i++) {
    int rc = feed_input(st, o, i, detail, cap);
    if (rc != 0) return rc;
  }
  mx_error e = mx_method_execute(m);
  if (e != MX_OK) {
    site_detail(mx_method_error_site(m), o->method, detail, cap);
    const char *note = mx_run_npu_note(); /* why an NPU job failed, when one did */
    size_t used = strlen(detail);
    if (note != NULL && used < cap) snprintf(detail + used, cap - used, ": %s", note);
    return fail(EXIT_PROGRAM, e, detail);
  }
  for (int i = 0; i < o->output_count; i++) {
    const mx_tensor *t = mx_method_output(m, (uint32_t)i);
    if (t == NULL) {
      snprintf(detail, cap, "output %d is not a tensor", i);
      return fail(EXIT_PROGRAM, MX_ERR_UNSUPPORTED, detail);
    }
    if (mx_run_write_file(o->outputs[i], t->data, mx_tensor_nbytes(t)) != 0) {
      snprintf(detail, cap, "cannot write output %d to %s", i, o->outputs[i]);
      return fail(EXIT_USAGE, MX_ERR_IO, detail);
    }
  }
  return 0;
}

static int main_with(state *st, int argc, char **argv) {
  options o;
  char detail[512];
  if (parse_args(argc, argv, &o, detail, sizeof detail) != 0) return fail(EXIT_USAGE, MX_ERR_BAD_USAGE, detail);
  if (o.list_errors) {
    list_errors();
    return 0;
  }
  if (mx_run_read_program(o.model, &st->file) != 0) {
    snprintf(detail, sizeof detail, "cannot read %s", o.model);
    return fail(EXIT_USAGE, MX_ERR_IO, detail);
  }
  int rc = open_method(st, &o, detail, sizeof detail);
  if (rc != 0) return rc;
  mx_run_npu_memory(st->file.data, st->file.size, st->arenas, st->arena_count);
  if (o.info) {
    print_info(st, &o);
    return 0;
  }
  if (o.kernels) {
    print_kernels(&st->method);
    return 0;
  }
  if (o.cost) {
    printf("cost %llu\n", (unsigned long long)mx_method_cost(&st->method));
    return 0;
  }
  if (o.parse_only || o.load_only) {
    printf("ok method %s: %u values, %u instructions, %u operators\n", o.method, st->method.value_count,
           st->method.instr_count, st->method.op_count);
    return 0;
  }
  return run(st, &o, detail, sizeof detail);
}

int main(int argc, char **argv) {
  state st;
  memset(&st, 0, sizeof st);
  int rc = main_with(&st, argc, argv);
  for (uint32_t id = 0; id < MAX_IO; id++) free(st.arenas[id].ptr);
  free(st.pool);
  mx_readonly_free(&st.file);
  return rc;
}
