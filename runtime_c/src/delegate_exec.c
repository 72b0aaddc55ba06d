/* Running a DelegateCall: its backend's execute over the delegate's state and the call's arguments. */
#include "delegate.h"

mx_error mx_delegate_execute(mx_method *m, uint32_t i, mx_value *const *args) {
  const mx_instr *ins = &m->instrs[i];
  mx_delegate *d = &m->delegates[ins->op];
  mx_kernel_ctx ctx = {.instruction = i};
  mx_error e = d->backend->execute(d->state, &ctx, args, ins->nargs);
  if (e != MX_OK) {
    m->site.instruction = i;
    m->site.delegate_index = (int32_t)ins->op;
    m->site.delegate_id = d->id;
  }
  return e;
}
