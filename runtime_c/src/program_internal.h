#ifndef MX_PROGRAM_INTERNAL_H
#define MX_PROGRAM_INTERNAL_H
/* Shared between the program reader and the method loader. */
#include "fb_reader.h"
#include "mx/runtime.h"

/* A fresh reader (with a full visit budget) over the program's flatbuffer part. */
void mx_prog_reader(const mx_program *p, mx_fb *fb);
mx_error mx_prog_find_plan(const mx_program *p, mx_fb *fb, const char *name, mx_fb_table *plan, uint32_t *index);
/* Constant data `data_buffer_idx` of at least `nbytes` bytes, in place in the program. */
mx_error mx_prog_constant(const mx_program *p, mx_fb *fb, uint32_t data_buffer_idx, uint32_t nbytes,
                          const uint8_t **data);
/* Data segment `index` (program.segments), checked to lie inside the file. */
mx_error mx_prog_segment(const mx_program *p, mx_fb *fb, uint32_t index, const uint8_t **data, uint32_t *size);
/* Size in bytes of the metadata pool that loading `plan` needs (assuming an 8-aligned pool). */
mx_error mx_meta_pool_bytes(const mx_program *p, mx_fb *fb, const mx_fb_table *plan, size_t *bytes, int32_t *bad_value);

#endif
