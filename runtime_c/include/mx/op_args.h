#ifndef MX_OP_ARGS_H
#define MX_OP_ARGS_H
/* Generated from the op table (mcu_export/ops/c_args.py): MX_ARG_<ns>_<op>_<arg> and MX_NARGS_*, one
 * header per kernel library. */
#include "mx/op_args_portable.h"
#include "mx/op_args_portable_moves.h"
#include "mx/op_args_cortex_m.h"

#endif
