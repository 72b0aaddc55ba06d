#include "mx/errors.h"

const char *mx_error_to_string(mx_error err) {
  switch ((int)err) {
#define X(name, code, text) \
  case code: return text;
#include "mx/errors.def"
#undef X
    default: return "unknown runtime error";
  }
}
