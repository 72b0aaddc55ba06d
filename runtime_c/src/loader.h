#ifndef MX_LOADER_H
#define MX_LOADER_H
/* Internal to method loading: the pieces a method's metadata is carved into, and the loading steps. */
#include "mx/meta_pool.h"
#include "program_internal.h"

/* Byte offset of each region (index MX_META_<region>): a lasting one's from the pool's start, a load-only one's
 * from the start of the load-only block (in the largest arena, or in the pool after the lasting regions). Each
 * block is under 4 GiB (mx_layout_meta). */
typedef struct mx_meta_layout {
  uint32_t at[MX_META_REGIONS];
  uint32_t lasting, load;   /* bytes of each block */
  bool load_in_arena;
  uint32_t total;           /* of the pool */
} mx_meta_layout;

/* Regions values are built into (call_frame.c): a load's from the load-only regions, a call's from its frame. */
enum { MX_BUILD_TENSORS, MX_BUILD_INTS, MX_BUILD_DOUBLES, MX_BUILD_REFS, MX_BUILD_REGIONS };

typedef struct mx_builder {
  const mx_method *m;
  mx_fb fb;                          /* constant data is found through it */
  uint8_t *cur[MX_BUILD_REGIONS];    /* cursors into the regions */
  uint32_t left[MX_BUILD_REGIONS];
  bool load;                         /* loading: a list names the tensors loaded; planned tensors' arenas checked */
} mx_builder;

typedef struct mx_load_ctx {
  const mx_program *p;
  mx_fb fb;
  mx_fb_table plan;
  mx_fb_vec values;            /* the plan's EValues */
  mx_fb_vec buffer_sizes;      /* non_const_buffer_sizes */
  const mx_method_config *cfg;
  mx_method *m;
  mx_builder bld;              /* every value, into the load-only regions */
  mx_tensor *tensors_base;     /* the whole region, for the plan check */
  uint32_t *lives;
  uint32_t tensor_count;       /* the whole region's */
  mx_value **args;
  uint32_t args_left;
  uint32_t delegate_count;
  uint8_t *delegate_state;
  uint32_t delegate_state_left;
} mx_load_ctx;

/* Where each region's count lies in mx_meta_counts (meta_pool.c). */
extern const uint8_t mx_meta_count_at[MX_META_REGIONS];

/* Counts what loading `plan` takes, checking every value on the way (what only the file decides, but for the items
 * of lists, which building checks: not the arenas); on error *bad_value, when not NULL, names the value. */
mx_error mx_count_meta(const mx_program *p, mx_fb *fb, const mx_fb_table *plan, mx_meta_counts *c, int32_t *bad_value);
/* Points the method's arrays and ctx's cursors at their regions (method_carve.c). */
mx_error mx_carve_method(mx_load_ctx *ctx, const mx_meta_counts *c);
/* After a load that succeeded: what the method keeps of its load-only regions (method_keep.c). */
void mx_keep_method(mx_load_ctx *ctx);

/* Instruction ins's arguments, read from the program into the method's call frame (call_frame.c). */
mx_error mx_frame_build(const mx_method *m, const mx_instr *ins, mx_value ***argv);
mx_error mx_layout_meta(const mx_meta_counts *c, mx_meta_layout *l);

/* Instruction list of the plan's only chain (empty when the plan has no chain). */
mx_error mx_plan_instructions(mx_fb *fb, const mx_fb_table *plan, mx_fb_vec *instrs);

/* That a loaded method writes only planned tensors and that no two tensors live at one instruction share a
 * byte (the planner's rule, mcu_export/planner/lifetimes.py); `lives` holds 4 words per tensor of the pool.
 * On error method->site names the instruction. */
mx_error mx_verify_plan(mx_method *method, mx_tensor *tensors, uint32_t tensor_count, uint32_t *lives);

/* That a Tensor table makes a valid tensor: type, shape and dim order, its data planned inside its arena's declared
 * size or constant inside the program, aligned (tensor_load.c). */
mx_error mx_check_tensor_table(const mx_program *p, mx_fb *fb, const mx_fb_vec *buffer_sizes, const mx_fb_table *t);
/* Value `id` built from the checked program (call_frame.c); a load's regions or a call's frame. */
mx_error mx_build_value(mx_builder *r, uint32_t id, mx_value *out);
/* An unchecked read of checked bytes (call_frame.c): EValue i's value table (0 when none) and its tag. */
uint32_t mx_fb_value(const uint8_t *b, uint32_t values_pos, uint32_t i, uint8_t *tag);
/* The dim order of a tensor whose file gives none: contiguous. */
extern const uint8_t mx_identity_order[MX_MAX_DIM];
/* Fills method->values; on error method->site.value names the value. */
mx_error mx_load_values(mx_load_ctx *ctx);

#endif
