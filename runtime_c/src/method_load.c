/* Loading a method: size and carve the metadata pool, then values, operators, delegates, instructions,
 * I/O lists. */
#include <stddef.h>
#include <string.h>

#include "delegate.h"
#include "schema_ids.h"

static const mx_kernel_entry *find_kernel(const char *name, const char *overload) {
  for (uint32_t i = 0; i < mx_kernel_table_len; i++) {
    const mx_kernel_entry *k = &mx_kernel_table[i];
    if (mx_str_eq(k->name, name) && mx_str_eq(k->overload, overload)) return k;
  }
  return NULL;
}

/* The error site names operator op. */
static void op_site(mx_method *m, uint32_t op) {
  m->site.op_index = op;
  m->site.op_name = m->op_names[op];
  m->site.op_overload = m->op_overloads[op];
}

static mx_error load_operators(mx_load_ctx *ctx) {
  mx_method *m = ctx->m;
  mx_fb_vec ops;
  mx_error e = mx_fb_vector(&ctx->fb, &ctx->plan, PLAN_OPERATORS, 4, &ops);
  for (uint32_t i = 0; e == MX_OK && i < ops.len; i++) {
    mx_fb_table op;
    (void)mx_fb_vec_table(&ctx->fb, &ops, i, &op);
    (void)mx_fb_string(&ctx->fb, &op, OPERATOR_NAME, &m->op_names[i]);
    e = mx_fb_string(&ctx->fb, &op, OPERATOR_OVERLOAD, &m->op_overloads[i]);   /* the reader's first error */
    if (e != MX_OK) break;
    m->ops[i] = ctx->cfg->skip_kernels ? NULL : find_kernel(m->op_names[i], m->op_overloads[i]);
    if (!ctx->cfg->skip_kernels && m->ops[i] == NULL) {
      op_site(m, i);
      return MX_ERR_KERNEL_MISSING;
    }
  }
  return e;
}

/* idx is the file's int32: a negative one reads as 2^31 or more, past any count of values */
static mx_error value_index(const mx_method *m, uint32_t idx, uint32_t *out) {
  if (idx >= m->value_count) return MX_ERR_BAD_INDEX;
  if (idx > UINT16_MAX) return MX_ERR_TOO_LARGE;   /* arg_ids are 16-bit */
  *out = idx;
  return MX_OK;
}

/* A KernelCall or a DelegateCall: both hold (index, args) under the same field ids, and both index
 * lists of the method (its operators, its delegates). */
static mx_error load_call(mx_load_ctx *ctx, uint8_t kind, const mx_fb_table *call, mx_instr *out) {
  mx_method *m = ctx->m;
  mx_fb_vec args;
  /* an int32 in the schema: a negative one reads as 2^31 or more, past any list */
  const uint32_t op = mx_fb_u32(&ctx->fb, call, KERNEL_CALL_OP_INDEX);
  mx_error e = mx_fb_vector(&ctx->fb, call, KERNEL_CALL_ARGS, 4, &args);
  if (e != MX_OK) return e;
  uint32_t limit = kind == MX_INSTR_KERNEL ? m->op_count : ctx->delegate_count;
  if (op >= limit) return MX_ERR_BAD_INDEX;
  if (args.len > ctx->args_left) return MX_ERR_META_POOL_FULL;
  if (args.len > UINT16_MAX) return MX_ERR_TOO_LARGE;
  for (uint32_t k = 0; k < args.len; k++) {
    uint32_t v;
    e = value_index(m, (uint32_t)mx_fb_vec_i32(&ctx->fb, &args, k), &v);
    if (e != MX_OK) return e;
    ctx->args[k] = &m->values[v];
  }
  const uint8_t *sig = NULL;
  if (kind == MX_INSTR_KERNEL && m->ops[op] != NULL) {
    /* Every call is checked here, once: execute functions read their arguments unchecked. */
    sig = m->ops[op]->sig;
    mx_arg_error r = mx_kernel_check_call(m->ops[op], ctx->args, args.len);
    if (r == MX_OK) r = mx_check_outs(ctx->args, args.len, sig[MX_SIG_FIRST_OUT]);
    if (r != MX_OK) {
      m->site.arg = MX_ERROR_ARG(r);
      op_site(m, (uint32_t)op);
      return MX_ERROR_CODE(r);
    }
  }
  if (kind == MX_INSTR_DELEGATE) {   /* mx_delegates is set: load_instruction refuses a DelegateCall without */
    e = mx_delegates->check(m, (uint32_t)op, ctx->args, args.len);
    if (e != MX_OK) return e;
  }
  if (ctx->cfg->cost != NULL) {
    /* The call a statement of its own: the stack analysis reads the pointer's prototype from the callee
     * expression at the call's column, and inside __builtin_add_overflow it found none (every address-taken
     * function a target, the serial firmware's load handler among them: a false recursion). */
    const uint64_t cost = ctx->cfg->cost(sig, ctx->args, args.len);
    if (__builtin_add_overflow(m->cost, cost, &m->cost)) m->cost = UINT64_MAX;
    if (ctx->cfg->max_cost != 0 && m->cost > ctx->cfg->max_cost) return MX_ERR_TOO_COSTLY;
  }
  out->kind = kind;
  out->op = (uint32_t)op;
  out->nargs = (uint16_t)args.len;
  out->first_arg = (uint32_t)(ctx->args - m->load_args);
  ctx->args += args.len;
  ctx->args_left -= args.len;
  return MX_OK;
}

static mx_error load_instruction(mx_load_ctx *ctx, const mx_fb_vec *instrs, uint32_t i) {
  mx_fb_table call;
  uint8_t tag;
  mx_instr *out = &ctx->m->instrs[i];
  mx_error e = mx_fb_vec_union(&ctx->fb, instrs, i, MX_INSTR_TYPES_MAX, &tag, &call);
  if (e != MX_OK) return e;
  switch (tag) {
    case INSTR_DELEGATE_CALL:
      if (mx_delegates == NULL) return MX_ERR_BACKEND_MISSING;
      /* fall through */
    case INSTR_KERNEL_CALL:
      return load_call(ctx, tag, &call, out);   /* the schema's tags are the MX_INSTR_* kinds */
    /* ExecuTorch emits MoveCall only with control flow (the outputs of cond and while_loop), which this
     * runtime does not run: one chain, no jumps. A move could also swap a value the load-time checks saw. */
    case INSTR_MOVE_CALL:
    case INSTR_JUMP_FALSE:
    case INSTR_FREE: return MX_ERR_UNSUPPORTED;
    default: return MX_ERR_BAD_INSTRUCTION;
  }
}

static mx_error load_io(mx_load_ctx *ctx, uint16_t field, uint32_t *dst) {
  mx_fb_vec list;
  mx_error e = mx_fb_vector(&ctx->fb, &ctx->plan, field, 4, &list);
  for (uint32_t i = 0; e == MX_OK && i < list.len; i++) {
    e = value_index(ctx->m, (uint32_t)mx_fb_vec_i32(&ctx->fb, &list, i), &dst[i]);
  }
  return e;
}

/* Out of line, so the counts (160 bytes) are off the stack while the load goes deeper (the plan check, kernels'
 * overlap rules): that path is the firmware's deepest. */
static __attribute__((noinline)) mx_error count_and_carve(mx_load_ctx *ctx) {
  mx_meta_counts counts;
  mx_error e = mx_count_meta(ctx->p, &ctx->fb, &ctx->plan, &counts, &ctx->m->site.value);
  if (e == MX_OK) e = mx_carve_method(ctx, &counts);
  return e;
}

mx_error mx_method_load(const mx_program *p, const char *name, const mx_method_config *cfg, mx_method *m) {
  mx_load_ctx ctx = {0};
  mx_fb_vec instrs;
  uint32_t plan_index;
  memset(m, 0, sizeof *m);
  /* the site's indices, which come before its names, to -1 */
  _Static_assert(offsetof(mx_error_site, delegate_index) < offsetof(mx_error_site, op_name), "indices first");
  memset(&m->site, 0xff, offsetof(mx_error_site, op_name));
  m->program = p;
  ctx.p = p;
  ctx.cfg = cfg;
  ctx.m = m;
  mx_prog_reader(p, &ctx.fb);
  /* a limit with nothing to count against it would let every method through */
  mx_error e = cfg->max_cost != 0 && cfg->cost == NULL ? MX_ERR_BAD_USAGE : MX_OK;
  if (e == MX_OK) e = mx_prog_find_plan(p, &ctx.fb, name, &ctx.plan, &plan_index);
  if (e == MX_OK) (void)mx_fb_vector(&ctx.fb, &ctx.plan, PLAN_VALUES, 4, &ctx.values);
  if (e == MX_OK) e = mx_fb_vector(&ctx.fb, &ctx.plan, PLAN_NON_CONST_BUFFER_SIZES, 8, &ctx.buffer_sizes);
  if (e == MX_OK) e = count_and_carve(&ctx);
  if (e == MX_OK) e = mx_load_values(&ctx);
  if (e == MX_OK) e = load_operators(&ctx);
  if (e == MX_OK && mx_delegates != NULL) e = mx_delegates->load(&ctx);
  if (e == MX_OK) e = mx_plan_instructions(&ctx.fb, &ctx.plan, &instrs);
  for (uint32_t i = 0; e == MX_OK && i < instrs.len; i++) {
    e = load_instruction(&ctx, &instrs, i);
    if (e != MX_OK) m->site.instruction = i;
  }
  if (e == MX_OK) e = load_io(&ctx, PLAN_INPUTS, (uint32_t *)(uintptr_t)m->inputs);
  if (e == MX_OK) e = load_io(&ctx, PLAN_OUTPUTS, (uint32_t *)(uintptr_t)m->outputs);
  if (e == MX_OK) e = mx_verify_plan(m, ctx.tensors_base, ctx.tensor_count, ctx.lives);
  m->kernels_resolved = (e == MX_OK && !cfg->skip_kernels);
  for (uint32_t f = 0; m->kernels_resolved && f < mx_fusion_count; f++) mx_fusions[f](m);
  if (e == MX_OK) mx_keep_method(&ctx);
  /* What only loading used is dropped (it may lie in an arena); a half-loaded method must not be executed. */
  m->values = NULL;
  m->load_args = NULL;
  m->op_names = NULL;
  m->op_overloads = NULL;
  m->inputs = NULL;
  m->outputs = NULL;
  if (e != MX_OK) m->instr_count = 0;
  return e;
}
