#ifndef MX_DELEGATE_H
#define MX_DELEGATE_H
/* The runtime's delegate half, called by the core through mx_delegates (mx/backend.h) only. */
#include "loader.h"

struct mx_delegate_support {
  /* Adds the plan's delegates and their backends' state bytes to `c` (a delegate whose id no linked
   * backend has adds no state: loading it fails). */
  mx_error (*count)(mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c);
  /* Fills method->delegates: checks each processed reference, finds the backend, runs its init. On error
   * method->site names the delegate. */
  mx_error (*load)(mx_load_ctx *ctx);
  /* Runs instruction i, a DelegateCall, over its arguments (the executor brackets it with the platform's
   * profiling hooks as it does a kernel); on error method->site names the instruction and the delegate. */
  mx_error (*execute)(mx_method *m, uint32_t i, mx_value *const *args);
  /* At load, for each DelegateCall: the backend's check of the call's arguments (OK without a backend or a
   * check); on error method->site names the delegate and the argument. */
  mx_error (*check)(mx_method *m, uint32_t delegate, mx_value *const *args, uint32_t nargs);
};

mx_error mx_delegate_count(mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c);
mx_error mx_delegate_load(mx_load_ctx *ctx);
mx_error mx_delegate_execute(mx_method *m, uint32_t i, mx_value *const *args);
mx_error mx_delegate_check(mx_method *m, uint32_t delegate, mx_value *const *args, uint32_t nargs);

#endif
