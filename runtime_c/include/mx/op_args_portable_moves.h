#ifndef MX_OP_ARGS_PORTABLE_MOVES_H
#define MX_OP_ARGS_PORTABLE_MOVES_H
/* Generated from the op table (mcu_export/ops/c_args.py); do not edit: tests/test_op_args.py
 * fails when this file and the table disagree. Regenerate: python -m mcu_export.ops.c_args
 * KernelCall argument positions of the portable_moves kernels: the schema's
 * arguments in order, then `ret`. Enumeration constants are ints, so kernels sharing a body compare
 * positions in _Static_asserts across ops. */

enum mx_op_arg_portable_moves {
  /* aten::view_copy.out */
  MX_ARG_aten_view_copy_self = 0,
  MX_ARG_aten_view_copy_size = 1,
  MX_ARG_aten_view_copy_out = 2,
  MX_ARG_aten_view_copy_ret = 3,
  MX_NARGS_aten_view_copy = 4,

  /* aten::permute_copy.out */
  MX_ARG_aten_permute_copy_self = 0,
  MX_ARG_aten_permute_copy_dims = 1,
  MX_ARG_aten_permute_copy_out = 2,
  MX_ARG_aten_permute_copy_ret = 3,
  MX_NARGS_aten_permute_copy = 4,

  /* aten::cat.out */
  MX_ARG_aten_cat_tensors = 0,
  MX_ARG_aten_cat_dim = 1,
  MX_ARG_aten_cat_out = 2,
  MX_ARG_aten_cat_ret = 3,
  MX_NARGS_aten_cat = 4,

  /* aten::slice_copy.Tensor_out */
  MX_ARG_aten_slice_copy_self = 0,
  MX_ARG_aten_slice_copy_dim = 1,
  MX_ARG_aten_slice_copy_start = 2,
  MX_ARG_aten_slice_copy_end = 3,
  MX_ARG_aten_slice_copy_step = 4,
  MX_ARG_aten_slice_copy_out = 5,
  MX_ARG_aten_slice_copy_ret = 6,
  MX_NARGS_aten_slice_copy = 7,

  /* aten::select_copy.int_out */
  MX_ARG_aten_select_copy_self = 0,
  MX_ARG_aten_select_copy_dim = 1,
  MX_ARG_aten_select_copy_index = 2,
  MX_ARG_aten_select_copy_out = 3,
  MX_ARG_aten_select_copy_ret = 4,
  MX_NARGS_aten_select_copy = 5,

  /* aten::split_with_sizes_copy.out */
  MX_ARG_aten_split_with_sizes_copy_self = 0,
  MX_ARG_aten_split_with_sizes_copy_split_sizes = 1,
  MX_ARG_aten_split_with_sizes_copy_dim = 2,
  MX_ARG_aten_split_with_sizes_copy_out = 3,
  MX_ARG_aten_split_with_sizes_copy_ret = 4,
  MX_NARGS_aten_split_with_sizes_copy = 5,

  /* aten::expand_copy.out */
  MX_ARG_aten_expand_copy_self = 0,
  MX_ARG_aten_expand_copy_size = 1,
  MX_ARG_aten_expand_copy_implicit = 2,
  MX_ARG_aten_expand_copy_out = 3,
  MX_ARG_aten_expand_copy_ret = 4,
  MX_NARGS_aten_expand_copy = 5,

  /* aten::clone.out */
  MX_ARG_aten_clone_self = 0,
  MX_ARG_aten_clone_memory_format = 1,
  MX_ARG_aten_clone_out = 2,
  MX_ARG_aten_clone_ret = 3,
  MX_NARGS_aten_clone = 4,

  /* aten::full.out */
  MX_ARG_aten_full_size = 0,
  MX_ARG_aten_full_fill_value = 1,
  MX_ARG_aten_full_out = 2,
  MX_ARG_aten_full_ret = 3,
  MX_NARGS_aten_full = 4,

  /* aten::full_like.out */
  MX_ARG_aten_full_like_self = 0,
  MX_ARG_aten_full_like_fill_value = 1,
  MX_ARG_aten_full_like_memory_format = 2,
  MX_ARG_aten_full_like_out = 3,
  MX_ARG_aten_full_like_ret = 4,
  MX_NARGS_aten_full_like = 5,

  /* aten::embedding.out */
  MX_ARG_aten_embedding_weight = 0,
  MX_ARG_aten_embedding_indices = 1,
  MX_ARG_aten_embedding_padding_idx = 2,
  MX_ARG_aten_embedding_scale_grad_by_freq = 3,
  MX_ARG_aten_embedding_sparse = 4,
  MX_ARG_aten_embedding_out = 5,
  MX_ARG_aten_embedding_ret = 6,
  MX_NARGS_aten_embedding = 7,

  /* aten::where.self_out */
  MX_ARG_aten_where_condition = 0,
  MX_ARG_aten_where_self = 1,
  MX_ARG_aten_where_other = 2,
  MX_ARG_aten_where_out = 3,
  MX_ARG_aten_where_ret = 4,
  MX_NARGS_aten_where = 5,

  /* dim_order_ops::_to_dim_order_copy.out */
  MX_ARG_dim_order_ops_to_dim_order_copy_self = 0,
  MX_ARG_dim_order_ops_to_dim_order_copy_non_blocking = 1,
  MX_ARG_dim_order_ops_to_dim_order_copy_dim_order = 2,
  MX_ARG_dim_order_ops_to_dim_order_copy_out = 3,
  MX_ARG_dim_order_ops_to_dim_order_copy_ret = 4,
  MX_NARGS_dim_order_ops_to_dim_order_copy = 5,

  /* dim_order_ops::_clone_dim_order.out */
  MX_ARG_dim_order_ops_clone_dim_order_self = 0,
  MX_ARG_dim_order_ops_clone_dim_order_non_blocking = 1,
  MX_ARG_dim_order_ops_clone_dim_order_dim_order = 2,
  MX_ARG_dim_order_ops_clone_dim_order_out = 3,
  MX_ARG_dim_order_ops_clone_dim_order_ret = 4,
  MX_NARGS_dim_order_ops_clone_dim_order = 5,

  /* aten::upsample_nearest2d.vec_out */
  MX_ARG_aten_upsample_nearest2d_input = 0,
  MX_ARG_aten_upsample_nearest2d_output_size = 1,
  MX_ARG_aten_upsample_nearest2d_scale_factors = 2,
  MX_ARG_aten_upsample_nearest2d_out = 3,
  MX_ARG_aten_upsample_nearest2d_ret = 4,
  MX_NARGS_aten_upsample_nearest2d = 5,
};

#endif
