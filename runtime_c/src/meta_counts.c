/* The loader's counts of a method, for tools and tests (a firmware never links this). */
#include "loader.h"

mx_error mx_program_method_counts(const mx_program *p, const char *name, mx_meta_counts *counts) {
  mx_fb fb;
  mx_fb_table plan;
  uint32_t index;
  *counts = (mx_meta_counts){0};
  mx_prog_reader(p, &fb);
  mx_error e = mx_prog_find_plan(p, &fb, name, &plan, &index);
  if (e == MX_OK) e = mx_count_meta(p, &fb, &plan, counts, NULL);
  return e;
}
