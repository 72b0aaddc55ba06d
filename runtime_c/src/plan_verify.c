/* The memory plan re-verified at load: the file's own plan is not trusted. A tensor lives from the step that first
 * names it to the last one that does (step 0: the method's inputs, written before instruction 0; step i + 1:
 * instruction i; the last step: the outputs, read after the last instruction), both ends included, as the
 * planner's rule has it (mcu_export/planner/lifetimes.py). No two planned tensors live at one step may share a
 * byte, unless they meet at one instruction only, as its out and an input it reads for the last time, and the
 * kernel's overlap rule accepts where they lie (mx_kernel_entry.overlap, mcu_export/planner/permits.py). What a
 * method's caller writes or reads (its inputs and outputs) must be planned. */
#include "loader.h"

#define NEVER UINT32_MAX
/* A bound on the sweep's comparisons: real plans need a few thousand; far more means a hostile file. */
#define MAX_WORK (1u << 24)

typedef struct lives {
  mx_tensor *tensors;
  uint32_t count;
  uint32_t *first, *last, *order, *live;
  uint32_t ordered;
} lives;

/* Tensor t is named at `step`. Steps come in increasing order, so `order` lists the planned tensors by their
 * first step as they are met. */
static void name(lives *l, const mx_tensor *t, uint32_t step) {
  const uint32_t k = (uint32_t)(t - l->tensors);
  if (l->first[k] == NEVER) {
    l->first[k] = step;
    if ((t->flags & MX_TENSOR_PLANNED) != 0 && mx_tensor_nbytes(t) != 0) l->order[l->ordered++] = k;
  }
  l->last[k] = step;
}

static void name_value(lives *l, const mx_value *v, uint32_t step) {
  for (uint32_t i = 0; i < mx_value_tensor_count(v); i++) {
    if (mx_value_tensor(v, i) != NULL) name(l, mx_value_tensor(v, i), step);
  }
}

/* The method's inputs (outputs), named at `step`, are tensors the caller writes (reads): planned, or empty. */
static mx_error name_io(lives *l, const mx_method *m, const uint32_t *list, uint32_t count, uint32_t step) {
  for (uint32_t i = 0; i < count; i++) {
    const mx_value *v = &m->values[list[i]];
    if (v->tag == MX_TAG_TENSOR && mx_tensor_nbytes(v->u.t) != 0 && (v->u.t->flags & MX_TENSOR_PLANNED) == 0) {
      return MX_ERR_CONSTANT_WRITE;
    }
    name_value(l, v, step);
  }
  return MX_OK;
}

static bool share_bytes(const mx_tensor *a, const mx_tensor *b) {
  const uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
  return a0 < b0 + mx_tensor_nbytes(b) && b0 < a0 + mx_tensor_nbytes(a);
}

static bool is_tensor(const mx_value *v, const mx_tensor *t) { return v->tag == MX_TAG_TENSOR && v->u.t == t; }

/* Whether `in`, read for the last time by instruction i, may share bytes with `out`, first written there: out is
 * the call's one out, in is only ever a plain tensor argument before it, and the kernel's rule accepts every
 * position in takes. Loaded without kernels (inspection), nothing runs, and the roles alone are checked. */
static bool rule_allows(const mx_method *m, uint32_t i, const mx_tensor *in, const mx_tensor *out) {
  const mx_instr *ins = &m->instrs[i];
  if (ins->kind != MX_INSTR_KERNEL || ins->nargs < 2) return false;
  const mx_kernel_entry *k = m->ops[ins->op];
  mx_value **args = mx_instr_load_args(m, ins);
  const uint32_t out_at = k != NULL ? k->sig[MX_SIG_FIRST_OUT] : ins->nargs - 2u;
  if (out_at + 2u != ins->nargs || !is_tensor(args[out_at], out) || (k != NULL && k->overlap == NULL)) {
    return false;
  }
  bool named = false;
  for (uint32_t a = 0; a < out_at; a++) {
    const mx_value *v = args[a];
    if (is_tensor(v, in)) {
      if (k != NULL && !k->overlap(args, a, out_at)) return false;
      named = true;
    } else {
      for (uint32_t j = 0; j < mx_value_tensor_count(v); j++) {
        if (mx_value_tensor(v, j) == in) return false;
      }
    }
  }
  return named;
}

/* k starts at `start` and shares bytes with o, live there too: allowed only where they meet at that one
 * instruction as its out and an input read for the last time. */
static bool may_share(const mx_method *m, const lives *l, uint32_t k, uint32_t o, uint32_t start) {
  if (start == 0 || start > m->instr_count) return false;
  const mx_tensor *a = &l->tensors[k], *b = &l->tensors[o];
  if (l->last[o] == start && l->first[k] == start && rule_allows(m, start - 1u, b, a)) return true;
  return l->last[k] == start && l->first[o] == start && rule_allows(m, start - 1u, a, b);
}

/* The sweep: each tensor, in order of first step, against those still live at that step. */
static mx_error sweep(mx_method *m, lives *l) {
  uint32_t live = 0, work = 0;
  for (uint32_t i = 0; i < l->ordered; i++) {
    const uint32_t k = l->order[i], start = l->first[k];
    uint32_t kept = 0;
    work += live;
    if (work > MAX_WORK) return MX_ERR_TOO_LARGE;
    for (uint32_t j = 0; j < live; j++) {
      const uint32_t o = l->live[j];
      if (l->last[o] < start) continue;
      if (share_bytes(&l->tensors[k], &l->tensors[o]) && !may_share(m, l, k, o, start)) {
        m->site.instruction = start == 0 ? -1 : (int32_t)(start - 1u);
        return MX_ERR_PLAN_OVERLAP;
      }
      l->live[kept++] = o;
    }
    l->live[kept] = k;
    live = kept + 1u;
  }
  return MX_OK;
}

mx_error mx_verify_plan(mx_method *m, mx_tensor *tensors, uint32_t count, uint32_t *words) {
  lives l = {tensors, count, words, words + count, words + 2u * count, words + 3u * count, 0};
  for (uint32_t k = 0; k < count; k++) l.first[k] = NEVER;
  mx_error e = name_io(&l, m, m->inputs, m->input_count, 0);
  for (uint32_t i = 0; i < m->instr_count; i++) {
    const mx_instr *ins = &m->instrs[i];
    for (uint32_t a = 0; a < ins->nargs; a++) name_value(&l, mx_instr_load_args(m, ins)[a], i + 1u);
  }
  if (e == MX_OK) e = name_io(&l, m, m->outputs, m->output_count, m->instr_count + 1u);
  return e == MX_OK ? sweep(m, &l) : e;
}
