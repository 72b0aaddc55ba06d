/* Running a loaded method: chain 0 in order, each call bracketed by the platform's profiling hooks together with
 * the reading of its arguments from the program (call_frame.c), so per-call figures sum to the run's. */
#include "delegate.h"

static mx_error run_call(mx_method *m, uint32_t i, const mx_instr *ins) {
  mx_value **args;
  mx_error e = mx_frame_build(m, ins, &args);
  if (e != MX_OK) {
    m->site.instruction = (int32_t)i;
    return e;
  }
  /* mx_delegates is not NULL for a DelegateCall: loading refuses one without it */
  if (ins->kind == MX_INSTR_DELEGATE) return mx_delegates->execute(m, i, args);
  const bool fused = ins->kind == MX_INSTR_FUSED;
  const mx_kernel_entry *k = fused ? &mx_kernel_table[ins->op] : m->ops[ins->op];
  mx_kernel_ctx ctx = {.instruction = i};
  e = k->fn(&ctx, args);
  if (e != MX_OK) {
    m->site.instruction = (int32_t)i;
    m->site.op_index = fused ? -1 : (int64_t)ins->op;   /* a fused kernel has no entry in the .pte */
    m->site.op_name = k->name;
    m->site.op_overload = k->overload;
  }
  return e;
}

mx_error mx_method_execute(mx_method *m) {
  if (!m->kernels_resolved) return MX_ERR_KERNEL_MISSING;
  for (uint32_t i = 0; i < m->instr_count; i++) {
    const mx_instr *ins = &m->instrs[i];
    if (ins->kind == MX_INSTR_FUSED_AWAY) continue;
    mx_platform_op_begin(i);
    mx_error e = run_call(m, i, ins);
    mx_platform_op_end(i, e);
    if (e != MX_OK) return e;
  }
  return MX_OK;
}

uint32_t mx_method_input_count(const mx_method *m) { return m->input_count; }
uint32_t mx_method_output_count(const mx_method *m) { return m->output_count; }

static mx_tensor *tensor_at(const mx_method *m, uint32_t at) {
  const mx_value *v = &m->io_values[at];
  return v->tag == MX_TAG_TENSOR ? v->u.t : NULL;
}

mx_tensor *mx_method_input(const mx_method *m, uint32_t i) { return i < m->input_count ? tensor_at(m, i) : NULL; }

mx_tensor *mx_method_output(const mx_method *m, uint32_t i) {
  return i < m->output_count ? tensor_at(m, m->input_count + i) : NULL;
}

const mx_error_site *mx_method_error_site(const mx_method *m) { return &m->site; }
