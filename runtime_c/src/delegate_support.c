/* The delegate half as the core sees it; only a generated table that links a backend refers to this. */
#include "delegate.h"

const struct mx_delegate_support mx_delegate_support = {mx_delegate_count, mx_delegate_load, mx_delegate_execute,
                                                        mx_delegate_check};
