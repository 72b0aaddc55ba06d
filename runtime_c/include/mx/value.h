#ifndef MX_VALUE_H
#define MX_VALUE_H
/* Runtime values: what the loader builds from the program's EValues and what kernels receive. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MX_MAX_DIM 8

/* ScalarType codes as in the .pte schema (scalar_type.fbs). */
typedef enum mx_dtype {
  MX_DTYPE_U8 = 0,
  MX_DTYPE_I8 = 1,
  MX_DTYPE_I16 = 2,
  MX_DTYPE_I32 = 3,
  MX_DTYPE_I64 = 4,
  MX_DTYPE_F16 = 5,
  MX_DTYPE_F32 = 6,
  MX_DTYPE_F64 = 7,
  MX_DTYPE_BOOL = 11
} mx_dtype;

/* Bytes per element of a dtype code; 0 for a code the runtime does not know (src/dtype.c). */
uint32_t mx_dtype_size(uint32_t dtype) __attribute__((const));

/* The loader sets it on a tensor whose data is an arena slot: only such a tensor may be written (a kernel's
 * out, a delegate's output, a method input). Without it the data is in the program, or there is none. */
#define MX_TENSOR_PLANNED 1u
/* The loader's scratch mark while it checks one call's arguments; clear at every other time. */
#define MX_TENSOR_MARK 2u

/* Sizes and dim order never change after load: they are read in place from the program (flash on a device; the
 * loader checks their alignment), so RAM holds only what a tensor needs besides (20 bytes on a 32-bit target). */
typedef struct mx_tensor {
  void *data;                       /* planned arena slot, constant data in the program, or NULL (empty) */
  const int32_t *sizes;             /* dim of them, in the program */
  const uint8_t *dim_order;         /* dim of them, in the program (or an identity order the runtime holds) */
  uint8_t dim;
  uint8_t dtype;                    /* mx_dtype */
  uint8_t flags;                    /* MX_TENSOR_*; fills padding, the struct keeps its size */
  uint32_t numel;                   /* its bytes: mx_tensor_nbytes, which the loader checked fit 32 bits */
} mx_tensor;

static inline uint32_t mx_tensor_nbytes(const mx_tensor *t) { return t->numel * mx_dtype_size(t->dtype); }

/* Tags follow the schema's KernelTypes union order, so a tag read from the file is used as is. */
typedef enum mx_tag {
  MX_TAG_NONE = 0,
  MX_TAG_NULL = 1,
  MX_TAG_INT = 2,
  MX_TAG_BOOL = 3,
  MX_TAG_DOUBLE = 4,
  MX_TAG_TENSOR = 5,
  MX_TAG_STRING = 6,
  MX_TAG_INT_LIST = 7,
  MX_TAG_DOUBLE_LIST = 8,
  MX_TAG_BOOL_LIST = 9,
  MX_TAG_TENSOR_LIST = 10,
  MX_TAG_OPT_TENSOR_LIST = 11
} mx_tag;

typedef struct mx_int_list {
  const int64_t *items;
  uint32_t len;
} mx_int_list;

/* An Int or Double is held as two words, so a value aligns as a pointer does: 12 bytes on a 32-bit target
 * rather than 16, and a method holds one per EValue. Read them with mx_value_int and mx_value_double. */
typedef struct mx_value {
  uint8_t tag; /* mx_tag */
  union {
    uint32_t bits[2]; /* Int: the int64_t; Double: the double */
    bool b;
    mx_tensor *t;
    struct {
      const char *chars;
      uint32_t len;
    } str;
    mx_int_list ints;                                          /* resolved from Int EValues */
    struct {
      const double *items;
      uint32_t len;
    } doubles;
    struct {
      const uint8_t *items;
      uint32_t len;
    } bools;
    struct {
      mx_tensor *const *items;
      uint32_t len;
    } tensors; /* optional lists hold NULL for None */
  } u;
} mx_value;

/* __builtin_memcpy: firmware builds are -ffreestanding, where a plain memcpy stays a library call. */
static inline int64_t mx_value_int(const mx_value *v) {
  int64_t x;
  __builtin_memcpy(&x, v->u.bits, sizeof x);
  return x;
}

static inline double mx_value_double(const mx_value *v) {
  double x;
  __builtin_memcpy(&x, v->u.bits, sizeof x);
  return x;
}

/* The tensors a value names: itself, or a list's items (NULL for a None item); none for any other value. */
static inline uint32_t mx_value_tensor_count(const mx_value *v) {
  if (v->tag == MX_TAG_TENSOR) return 1u;
  return v->tag == MX_TAG_TENSOR_LIST || v->tag == MX_TAG_OPT_TENSOR_LIST ? v->u.tensors.len : 0u;
}

static inline mx_tensor *mx_value_tensor(const mx_value *v, uint32_t k) {
  return v->tag == MX_TAG_TENSOR ? v->u.t : v->u.tensors.items[k];
}

#endif
