/* The loader's check of one KernelCall against its op's schema (the kinds generated from the op table),
 * then the kernel's own check. Execute functions rely on both and read their arguments unchecked. */
#include "mx/kernel.h"

static bool is_none(const mx_value *v) {
  return v->tag == MX_TAG_NULL || v->tag == MX_TAG_NONE;
}

static bool kind_accepts(uint8_t kind, const mx_value *v) {
  switch (kind) {
    case MX_KIND_OPT_TENSOR:
      if (is_none(v)) return true;
      /* fall through */
    case MX_KIND_TENSOR:
    case MX_KIND_RET:
      return v->tag == MX_TAG_TENSOR && v->u.t != NULL;
    case MX_KIND_OPT_INT:
      if (is_none(v)) return true;
      /* fall through */
    case MX_KIND_INT:
      return v->tag == MX_TAG_INT;
    case MX_KIND_OPT_INT_LIST:
      if (is_none(v)) return true;
      /* fall through */
    case MX_KIND_INT_LIST:
      return v->tag == MX_TAG_INT_LIST && (v->u.ints.items != NULL || v->u.ints.len == 0);
    case MX_KIND_FLOAT:
      return v->tag == MX_TAG_DOUBLE || v->tag == MX_TAG_INT;
    case MX_KIND_BOOL:
      return v->tag == MX_TAG_BOOL;
    case MX_KIND_OPT_SCALAR:
      if (is_none(v)) return true;
      /* fall through */
    case MX_KIND_SCALAR:
      return v->tag == MX_TAG_INT || v->tag == MX_TAG_DOUBLE || v->tag == MX_TAG_BOOL;
    case MX_KIND_TENSOR_LIST:
    case MX_KIND_RET_LIST:
      if (v->tag != MX_TAG_TENSOR_LIST || (v->u.tensors.items == NULL && v->u.tensors.len != 0)) return false;
      for (uint32_t i = 0; i < v->u.tensors.len; i++) {
        if (v->u.tensors.items[i] == NULL) return false;
      }
      return true;
    default:
      return false;
  }
}

/* The return repeats the outs args[first_out..nargs-1): the same tensor, or a list of exactly those. */
static bool ret_matches(const mx_kernel_entry *k, mx_value *const *args, uint32_t nargs) {
  const mx_value *ret = args[nargs - 1];
  uint32_t outs = nargs - 1u - k->first_out;
  if (k->kinds[nargs - 1] == MX_KIND_RET) return outs == 1 && ret->u.t == args[k->first_out]->u.t;
  if (ret->u.tensors.len != outs) return false;
  for (uint32_t i = 0; i < outs; i++) {
    if (ret->u.tensors.items[i] != args[k->first_out + i]->u.t) return false;
  }
  return true;
}

mx_error mx_kernel_check_call(const mx_kernel_entry *k, mx_kernel_ctx *ctx, mx_value *const *args, uint32_t nargs) {
  ctx->arg = MX_NO_ARG;
  if (nargs != k->nargs) return MX_ERR_BAD_ARG_COUNT;
  for (uint32_t i = 0; i < nargs; i++) {
    if (args[i] == NULL || !kind_accepts(k->kinds[i], args[i])) {
      ctx->arg = i;
      return MX_ERR_BAD_ARG_TYPE;
    }
  }
  if (!ret_matches(k, args, nargs)) {
    ctx->arg = nargs - 1u;
    return MX_ERR_BAD_ARG_VALUE;
  }
  return k->check(ctx, args);
}
