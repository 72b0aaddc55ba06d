/* Running a DelegateCall: its backend's execute over the delegate's state and the call's arguments. */
#include "delegate.h"

mx_error mx_delegate_execute(mx_method *m, const mx_instr *ins, mx_kernel_ctx *kctx) {
  mx_delegate *d = &m->delegates[ins->op];
  mx_error e = d->backend->execute(d->state, kctx, ins->args, ins->nargs);
  if (e != MX_OK) {
    m->site.delegate_index = ins->op;
    m->site.delegate_id = d->id;
  }
  return e;
}
