/* The loader's check of one KernelCall against its op's schema (the kinds and value ranges generated from the
 * op table), then the kernel's own check. Execute functions rely on both and read their arguments unchecked. */
#include "mx/kernel.h"

/* MX_ARG_ERROR keeps codes in 11 bits. */
#define X(name, code, text) _Static_assert((code) < 0x800, #name " fits below the argument bits");
#include "mx/errors.def"
#undef X

#define TAG(t) (1u << (t))
#define NONE_TAGS (TAG(MX_TAG_NONE) | TAG(MX_TAG_NULL))

/* The tags each kind accepts (the low nibble of a kind byte). */
static const uint16_t accepts[] = {
    [MX_KIND_TENSOR] = TAG(MX_TAG_TENSOR),
    [MX_KIND_OPT_TENSOR] = TAG(MX_TAG_TENSOR) | NONE_TAGS,
    [MX_KIND_INT] = TAG(MX_TAG_INT),
    [MX_KIND_OPT_INT] = TAG(MX_TAG_INT) | NONE_TAGS,
    [MX_KIND_INT_LIST] = TAG(MX_TAG_INT_LIST),
    [MX_KIND_OPT_INT_LIST] = TAG(MX_TAG_INT_LIST) | NONE_TAGS,
    [MX_KIND_FLOAT] = TAG(MX_TAG_DOUBLE) | TAG(MX_TAG_INT),
    [MX_KIND_BOOL] = TAG(MX_TAG_BOOL),
    [MX_KIND_SCALAR] = TAG(MX_TAG_INT) | TAG(MX_TAG_DOUBLE) | TAG(MX_TAG_BOOL),
    [MX_KIND_OPT_SCALAR] = TAG(MX_TAG_INT) | TAG(MX_TAG_DOUBLE) | TAG(MX_TAG_BOOL) | NONE_TAGS,
    [MX_KIND_TENSOR_LIST] = TAG(MX_TAG_TENSOR_LIST),
    [MX_KIND_RET] = TAG(MX_TAG_TENSOR),
    [MX_KIND_RET_LIST] = TAG(MX_TAG_TENSOR_LIST),
    [MX_KIND_STRING] = TAG(MX_TAG_STRING),
    [MX_KIND_OPT_FLOAT_LIST] = TAG(MX_TAG_DOUBLE_LIST) | NONE_TAGS,
};

/* v's tag is one its kind accepts, and its ints (one Int, or an IntList's items) lie in the kind's range.
 * Pointers need no check: the loader sets every tensor, list and argument it builds (value_load.c). */
static mx_error check_arg(uint8_t kind, const mx_value *v) {
  if (v->tag > MX_TAG_OPT_TENSOR_LIST || !((accepts[kind & 0x0Fu] >> v->tag) & 1u)) return MX_ERR_BAD_ARG_TYPE;
  if ((kind >> 4) == 0) return MX_OK;
  /* a range is declared only for int and int[] arguments */
  const bool one = v->tag == MX_TAG_INT;
  const int64_t single = one ? mx_value_int(v) : 0;
  const int64_t *ints = one ? &single : v->u.ints.items;
  const uint32_t n = one ? 1u : v->u.ints.len;
  /* every bound fits int32: lo <= x <= hi as one unsigned comparison once x does */
  const mx_arg_bounds *b = &mx_kernel_arg_bounds[kind >> 4];
  const uint32_t lo = (uint32_t)b->lo, span = (uint32_t)b->hi - lo;
  for (uint32_t i = 0; i < n; i++) {
    if (ints[i] != (int32_t)ints[i] || (uint32_t)ints[i] - lo > span) return MX_ERR_BAD_ARG_VALUE;
  }
  return MX_OK;
}

/* The return repeats the outs args[first_out..nargs-1): the same tensor, or a list of exactly those; a
 * single `Tensor(a!)[] out` (split_with_sizes_copy) is repeated as a list of the same tensors. */
static bool ret_matches(uint32_t first_out, mx_value *const *args, uint32_t nargs) {
  const mx_value *ret = args[nargs - 1];
  const bool one = ret->tag == MX_TAG_TENSOR;
  mx_tensor *const *items = one ? &ret->u.t : ret->u.tensors.items;
  const uint32_t n = one ? 1u : ret->u.tensors.len;
  const mx_value *first = args[first_out];
  if (!one && nargs - 1u - first_out == 1u && first->tag == MX_TAG_TENSOR_LIST) {
    if (n != first->u.tensors.len) return false;
    for (uint32_t i = 0; i < n; i++) {
      if (items[i] != first->u.tensors.items[i]) return false;
    }
    return true;
  }
  if (n != nargs - 1u - first_out) return false;
  for (uint32_t i = 0; i < n; i++) {
    if (items[i] != args[first_out + i]->u.t) return false;
  }
  return true;
}

mx_arg_error mx_kernel_check_call(const mx_kernel_entry *k, mx_value *const *args, uint32_t nargs) {
  const uint8_t *sig = k->sig;
  if (nargs != sig[MX_SIG_NARGS]) return MX_ERR_BAD_ARG_COUNT;
  for (uint32_t i = 0; i < nargs; i++) {
    mx_error e = check_arg(sig[MX_SIG_KINDS + i], args[i]);
    if (e != MX_OK) return MX_ARG_ERROR(i, e);
  }
  if (!ret_matches(sig[MX_SIG_FIRST_OUT], args, nargs)) return MX_ARG_ERROR(nargs - 1u, MX_ERR_BAD_ARG_VALUE);
  return k->check(args);
}

/* Sets (on) or clears the mark of every out; on setting, an out that is a constant or is met twice is refused. */
static mx_arg_error mark_outs(mx_value *const *args, uint32_t first_out, uint32_t n, bool on) {
  for (uint32_t i = first_out; i < n; i++) {
    for (uint32_t k = 0; k < mx_value_tensor_count(args[i]); k++) {
      mx_tensor *t = mx_value_tensor(args[i], k);
      if (on) {
        if (mx_tensor_nbytes(t) != 0 && (t->flags & MX_TENSOR_PLANNED) == 0)
          return MX_ARG_ERROR(i, MX_ERR_CONSTANT_WRITE);
        if ((t->flags & MX_TENSOR_MARK) != 0) return MX_ARG_ERROR(i, MX_ERR_PLAN_OVERLAP);
        t->flags |= MX_TENSOR_MARK;
      } else {
        t->flags &= (uint8_t)~MX_TENSOR_MARK;
      }
    }
  }
  return MX_OK;
}

/* An out is written: it must be planned (a constant lives in the program, read-only on a device) and must be no
 * other argument, which the plan check cannot see (one tensor does not overlap another). One mark per out keeps
 * this linear in the arguments, however long their lists. */
mx_arg_error mx_check_outs(mx_value *const *args, uint32_t nargs, uint32_t first_out) {
  const uint32_t n = nargs - 1u;   /* the return repeats the outs (checked): not counted again */
  mx_arg_error r = mark_outs(args, first_out, n, true);
  for (uint32_t i = 0; r == MX_OK && i < first_out; i++) {
    for (uint32_t k = 0; r == MX_OK && k < mx_value_tensor_count(args[i]); k++) {
      const mx_tensor *t = mx_value_tensor(args[i], k);
      if (t != NULL && (t->flags & MX_TENSOR_MARK) != 0) r = MX_ARG_ERROR(i, MX_ERR_PLAN_OVERLAP);
    }
  }
  (void)mark_outs(args, first_out, n, false);
  return r;
}
