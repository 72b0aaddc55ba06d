#ifndef MX_SCHEMA_IDS_H
#define MX_SCHEMA_IDS_H
/* Field ids of ExecuTorch's program.fbs (ET12): a field's id is its position in the table; a union
 * field takes two ids (its type byte, then its value). */

enum {
  PROGRAM_VERSION = 0,
  PROGRAM_EXECUTION_PLAN = 1,
  PROGRAM_CONSTANT_BUFFER = 2,
  PROGRAM_BACKEND_DELEGATE_DATA = 3,
  PROGRAM_SEGMENTS = 4,
  PROGRAM_CONSTANT_SEGMENT = 5
};
enum {
  PLAN_NAME = 0,
  PLAN_VALUES = 2,
  PLAN_INPUTS = 3,
  PLAN_OUTPUTS = 4,
  PLAN_CHAINS = 5,
  PLAN_OPERATORS = 6,
  PLAN_DELEGATES = 7,
  PLAN_NON_CONST_BUFFER_SIZES = 8
};
enum { CHAIN_INSTRUCTIONS = 2 };
enum { INSTRUCTION_ARGS_TYPE = 0 };
enum { KERNEL_CALL_OP_INDEX = 0, KERNEL_CALL_ARGS = 1 };
enum { DELEGATE_ID = 0, DELEGATE_PROCESSED = 1 };
enum { DATA_REF_LOCATION = 0, DATA_REF_INDEX = 1 };
enum { DATA_LOCATION_INLINE = 0, DATA_LOCATION_SEGMENT = 1 };
enum { INLINE_DATA_DATA = 0 };
enum { MOVE_CALL_FROM = 0, MOVE_CALL_TO = 1 };
enum { OPERATOR_NAME = 0, OPERATOR_OVERLOAD = 1 };
enum { EVALUE_VAL_TYPE = 0 };
enum {
  TENSOR_SCALAR_TYPE = 0,
  TENSOR_STORAGE_OFFSET = 1,
  TENSOR_SIZES = 2,
  TENSOR_DIM_ORDER = 3,
  TENSOR_DATA_BUFFER_IDX = 5,
  TENSOR_ALLOCATION_INFO = 6,
  TENSOR_EXTRA_INFO = 9
};
enum { ALLOC_MEMORY_ID = 0, ALLOC_OFFSET_LOW = 1, ALLOC_OFFSET_HIGH = 2 };
enum { EXTRA_INFO_LOCATION = 2 };
enum { SCALAR_VALUE = 0 };   /* Int.int_val, Bool.bool_val, Double.double_val, String.string_val, *List.items */
enum { BUFFER_STORAGE = 0 };
enum { SEGMENT_OFFSET = 0, SEGMENT_SIZE = 1 };
enum { SUBSEGMENT_INDEX = 0, SUBSEGMENT_OFFSETS = 1 };

/* Union tags. KernelTypes follows mx_tag (value.h). */
enum {
  INSTR_NONE = 0,
  INSTR_KERNEL_CALL = 1,
  INSTR_DELEGATE_CALL = 2,
  INSTR_MOVE_CALL = 3,
  INSTR_JUMP_FALSE = 4,
  INSTR_FREE = 5
};
#define MX_KERNEL_TYPES_MAX 11
#define MX_INSTR_TYPES_MAX 5

#endif
