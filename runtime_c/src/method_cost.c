/* The work of one instruction, bounded from its checked arguments: one pass over each tensor, and for ops whose
 * work grows faster than their tensors the largest out's elements times the factor the op's cost rule names
 * (mx_cost_rule; mcu_export/ops/cost.py). Totals saturate: a program past 2^64 operations is over any limit. */
#include "loader.h"

/* Element counts are 32-bit (load_shape): a sum over a call's tensors fits 64 bits, and so does the product of a
 * 32-bit base and a factor capped to 32 bits. Only the last addition may carry. */
#define CAP UINT32_MAX

static uint32_t capped(uint64_t x) { return x > CAP ? CAP : (uint32_t)x; }

/* The elements of a tensor or of a list's tensors, summed into *sum; the largest one kept in *max. */
static void elements(const mx_value *v, uint64_t *sum, uint32_t *max) {
  for (uint32_t i = 0; i < mx_value_tensor_count(v); i++) {
    const mx_tensor *t = mx_value_tensor(v, i);
    if (t == NULL) continue;
    *sum += t->numel;
    if (t->numel > *max) *max = t->numel;
  }
}

/* The factor a rule reads from argument v (checked by the kernel: a tensor or an int[] of window sizes). */
static uint32_t factor(uint8_t rule, const mx_value *v) {
  if (rule == MX_COST_WINDOW) {
    uint32_t f = 1;
    for (uint32_t i = 0; v->tag == MX_TAG_INT_LIST && i < v->u.ints.len; i++) {
      const int64_t k = v->u.ints.items[i];
      f = capped((uint64_t)f * (k > 0 ? capped((uint64_t)k) : 1u));
    }
    return f;
  }
  if (v->tag != MX_TAG_TENSOR || v->u.t->dim == 0) return 1;
  const mx_tensor *t = v->u.t;
  const uint32_t first = (uint32_t)t->sizes[0], last = (uint32_t)t->sizes[t->dim - 1];
  if (rule == MX_COST_LAST) return last;
  const uint32_t per = rule == MX_COST_COLS ? last : first;
  return per ? t->numel / per : 0;
}

uint64_t mx_call_cost(const uint8_t *sig, mx_value *const *args, uint32_t nargs) {
  uint64_t sum = 0, cost;
  uint32_t ins = 0, outs = 0;
  /* a kernel's last argument repeats its outs: counted once */
  const uint32_t counted = sig != NULL && nargs > 0 ? nargs - 1u : nargs;
  const uint32_t first_out = sig != NULL ? sig[MX_SIG_FIRST_OUT] : counted;
  for (uint32_t i = 0; i < counted; i++) elements(args[i], &sum, i < first_out ? &ins : &outs);
  if (sig == NULL || sig[MX_SIG_COST_RULE] == MX_COST_ELEMENTS || sig[MX_SIG_COST_ARG] >= nargs) return sum;
  /* per output element, but a convolution that may be transposed runs its rows per input element then */
  uint32_t base = outs;
  if (sig[MX_SIG_COST_RULE] == MX_COST_CONV && args[0]->tag == MX_TAG_TENSOR && args[0]->u.t->numel > base) {
    base = args[0]->u.t->numel;
  }
  const uint64_t work = (uint64_t)base * factor(sig[MX_SIG_COST_RULE], args[sig[MX_SIG_COST_ARG]]);
  return __builtin_add_overflow(sum, work, &cost) ? UINT64_MAX : cost;
}

uint64_t mx_method_cost(const mx_method *m) { return m->cost; }
