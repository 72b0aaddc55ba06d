#ifndef MX_ERRORS_H
#define MX_ERRORS_H

typedef enum mx_error {
#define X(name, code, text) name = code,
#include "mx/errors.def"
#undef X
} mx_error;

/* Never NULL: unknown codes map to a fixed text. */
const char *mx_error_to_string(mx_error err);

#endif
