/* Load-time fusion of the ramp that mcu_export/passes/decompose_hard_activations.py writes:
 *
 *   t1 = add(x, 3)   t2 = clamp(t1, 0, 6)   [t3 = mul(x, t2)]   y = div(t3 or t2, 6)
 *
 * is hardswish (with the mul) or hardsigmoid. A .pte names only these portable ops because ExecuTorch's
 * runtime has no hardswish/hardsigmoid kernel; when this build links ours, the first instruction calls it
 * and the others are skipped: one pass over the data instead of four. Our kernels do the same float
 * operations in the same order, so the outputs are bit-identical to the unfused calls. Anything that does
 * not match exactly (another order, a temporary read elsewhere, y overlapping x from above) runs unfused. */
#include <string.h>

#include "fb_reader.h"
#include "mx/op_args.h"
#include "mx/runtime.h"

static bool is_call(const mx_method *m, const mx_instr *ins, const char *name, uint32_t nargs) {
  return ins->kind == MX_INSTR_KERNEL && ins->nargs == nargs && mx_str_eq(m->op_names[ins->op], name) &&
         mx_str_eq(m->op_overloads[ins->op], "out");
}

static mx_tensor *f32(const mx_value *v) {
  return v->tag == MX_TAG_TENSOR && v->u.t->dtype == MX_DTYPE_F32 ? v->u.t : NULL;
}

static bool number_is(const mx_value *v, int64_t want) {
  return (v->tag == MX_TAG_INT && mx_value_int(v) == want) ||
         (v->tag == MX_TAG_DOUBLE && mx_value_double(v) == (double)want);
}

/* A float32 scalar equal to `want` whose data lies in the program image: a constant, so its value at
 * load time is its value at every run. */
static bool constant_is(const mx_program *p, const mx_value *v, float want) {
  const mx_tensor *t = f32(v);
  if (t == NULL || t->numel != 1 || t->data == NULL || p->size < sizeof(float)) return false;
  uintptr_t at = (uintptr_t)t->data, base = (uintptr_t)p->data;
  if (at < base || at - base > (uintptr_t)p->size - sizeof(float)) return false;
  float f;
  memcpy(&f, t->data, sizeof f);
  return f == want;
}

static bool holds(const mx_value *v, const mx_tensor *t) {
  for (uint32_t k = 0; k < mx_value_tensor_count(v); k++) {
    if (mx_value_tensor(v, k) == t) return true;
  }
  return false;
}

/* Whether anything outside instructions [first, first + count) reads or returns `t`. Each answer scans the whole
 * method, so a file of many near-ramps could make loading quadratic: past a budget of scanned instructions the
 * answer is yes, and the rest runs unfused (slower, never wrong). */
static bool used_outside(const mx_method *m, const mx_tensor *t, uint32_t first, uint32_t count, uint32_t *budget) {
  if (*budget < m->instr_count) return true;
  *budget -= m->instr_count;
  for (uint32_t i = 0; i < m->instr_count; i++) {
    const mx_instr *ins = &m->instrs[i];
    if (i >= first && i < first + count) continue;
    for (uint32_t k = 0; k < ins->nargs; k++) {
      if (holds(mx_instr_load_args(m, ins)[k], t)) return true;
    }
  }
  for (uint32_t k = 0; k < m->output_count; k++) {
    if (holds(&m->values[m->outputs[k]], t)) return true;
  }
  return false;
}

static bool same_layout(const mx_tensor *a, const mx_tensor *b) {
  if (a->dim != b->dim) return false;
  for (uint32_t d = 0; d < a->dim; d++) {
    if (a->sizes[d] != b->sizes[d] || a->dim_order[d] != b->dim_order[d]) return false;
  }
  return true;
}

/* The fused kernel reads x[k] before writing y[k], in order: y may start at or below x, or lie above it apart. */
static bool disjoint_or_below(const mx_tensor *x, const mx_tensor *y) {
  uintptr_t a = (uintptr_t)x->data, b = (uintptr_t)y->data;
  return b <= a || a + mx_tensor_nbytes(x) <= b;
}

static int32_t table_index(const char *name) {
  for (uint32_t i = 0; i < mx_kernel_table_len; i++) {
    if (mx_str_eq(mx_kernel_table[i].name, name) && mx_str_eq(mx_kernel_table[i].overload, "out")) {
      return (int32_t)i;
    }
  }
  return -1;
}

/* Number of instructions of the ramp starting at instruction i: 4 for hardswish, 3 for hardsigmoid, 0 for none. */
static uint32_t match(const mx_method *m, uint32_t i, uint32_t *budget) {
  const mx_program *p = m->program;
  const mx_instr *add = &m->instrs[i];
  if (i + 3 > m->instr_count || !is_call(m, add, "aten::add", MX_NARGS_aten_add)) return 0;
  mx_value **add_args = mx_instr_load_args(m, add);
  mx_tensor *in = f32(add_args[MX_ARG_aten_add_self]), *t1 = f32(add_args[MX_ARG_aten_add_out]);
  if (in == NULL || t1 == NULL || !constant_is(p, add_args[MX_ARG_aten_add_other], 3.0f) ||
      !number_is(add_args[MX_ARG_aten_add_alpha], 1))
    return 0;
  const mx_instr *clamp = &m->instrs[i + 1];
  mx_value **clamp_args = mx_instr_load_args(m, clamp);
  if (!is_call(m, clamp, "aten::clamp", MX_NARGS_aten_clamp) || f32(clamp_args[MX_ARG_aten_clamp_self]) != t1 ||
      !number_is(clamp_args[MX_ARG_aten_clamp_min], 0) || !number_is(clamp_args[MX_ARG_aten_clamp_max], 6)) {
    return 0;
  }
  mx_tensor *ramp = f32(clamp_args[MX_ARG_aten_clamp_out]);
  uint32_t n = 2;
  const mx_instr *mul = &m->instrs[i + 2];
  mx_value **mul_args = mx_instr_load_args(m, mul);
  if (i + 4 <= m->instr_count && is_call(m, mul, "aten::mul", MX_NARGS_aten_mul)) {
    mx_tensor *a = f32(mul_args[MX_ARG_aten_mul_self]), *b = f32(mul_args[MX_ARG_aten_mul_other]);
    if (!((a == in && b == ramp) || (a == ramp && b == in))) return 0;
    ramp = f32(mul_args[MX_ARG_aten_mul_out]);
    n = 3;
  }
  const mx_instr *div = &m->instrs[i + n];
  mx_value **div_args = mx_instr_load_args(m, div);
  if (!is_call(m, div, "aten::div", MX_NARGS_aten_div) || ramp == NULL || f32(div_args[MX_ARG_aten_div_self]) != ramp ||
      !constant_is(p, div_args[MX_ARG_aten_div_other], 6.0f)) {
    return 0;
  }
  mx_tensor *out = f32(div_args[MX_ARG_aten_div_out]);
  if (out == NULL || out == in || !same_layout(in, out) || !disjoint_or_below(in, out)) return 0;
  for (uint32_t k = 0; k < n; k++) {  /* the temporaries: each instruction's out before the div */
    const mx_tensor *t =
        f32(mx_instr_load_args(m, &m->instrs[i + k])[k == 2 ? MX_ARG_aten_mul_out : MX_ARG_aten_add_out]);
    if (t == NULL || t == in || t == out || used_outside(m, t, i, n + 1, budget)) return 0;
  }
  return n + 1;
}

void mx_fuse_hard_ramps(mx_method *m) {
  const int32_t kernel[2] = {table_index("aten::hardsigmoid"), table_index("aten::hardswish")};
  uint32_t budget = 1u << 22;   /* instructions scanned; a real model's ramps take a few thousand */
  for (uint32_t i = 0; i < m->instr_count; i++) {
    uint32_t n = match(m, i, &budget);
    int32_t k = n ? kernel[n == 4] : -1;
    if (k < 0) continue;
    mx_instr *first = &m->instrs[i];
    mx_value **args = mx_instr_load_args(m, first); /* the add's five slots hold the fused call's (self, out, ret) */
    mx_value *out = mx_instr_load_args(m, &m->instrs[i + n - 1])[MX_ARG_aten_div_out];
    _Static_assert(MX_ARG_aten_hardswish_self == MX_ARG_aten_add_self &&
                       MX_ARG_aten_hardsigmoid_out == MX_ARG_aten_hardswish_out &&
                       MX_ARG_aten_hardsigmoid_ret == MX_ARG_aten_hardswish_ret,
                   "the fused call keeps the add's self and rewrites out and ret in place");
    args[MX_ARG_aten_hardswish_out] = out;
    args[MX_ARG_aten_hardswish_ret] = out;
    first->kind = MX_INSTR_FUSED;
    first->op = (uint32_t)k;
    first->nargs = MX_NARGS_aten_hardswish;
    for (uint32_t j = 1; j < n; j++) m->instrs[i + j].kind = MX_INSTR_FUSED_AWAY;
    i += n - 1;
  }
}
