#ifndef MX_OP_ARGS_H
#define MX_OP_ARGS_H
/* Generated from the op table (mcu_export/ops/c_args.py); do not edit: tests/test_op_args.py
 * fails when this file and the table disagree. Regenerate: python -m mcu_export.ops.c_args
 * KernelCall argument positions, per op: the schema's arguments in order, then `ret`. One enum for
 * all ops, so that kernels sharing a body can compare positions in _Static_asserts. */

enum mx_op_arg {
  /* aten::convolution.out */
  MX_ARG_aten_convolution_input = 0,
  MX_ARG_aten_convolution_weight = 1,
  MX_ARG_aten_convolution_bias = 2,
  MX_ARG_aten_convolution_stride = 3,
  MX_ARG_aten_convolution_padding = 4,
  MX_ARG_aten_convolution_dilation = 5,
  MX_ARG_aten_convolution_transposed = 6,
  MX_ARG_aten_convolution_output_padding = 7,
  MX_ARG_aten_convolution_groups = 8,
  MX_ARG_aten_convolution_out = 9,
  MX_ARG_aten_convolution_ret = 10,
  MX_NARGS_aten_convolution = 11,

  /* aten::addmm.out */
  MX_ARG_aten_addmm_self = 0,
  MX_ARG_aten_addmm_mat1 = 1,
  MX_ARG_aten_addmm_mat2 = 2,
  MX_ARG_aten_addmm_beta = 3,
  MX_ARG_aten_addmm_alpha = 4,
  MX_ARG_aten_addmm_out = 5,
  MX_ARG_aten_addmm_ret = 6,
  MX_NARGS_aten_addmm = 7,

  /* aten::mm.out */
  MX_ARG_aten_mm_self = 0,
  MX_ARG_aten_mm_mat2 = 1,
  MX_ARG_aten_mm_out = 2,
  MX_ARG_aten_mm_ret = 3,
  MX_NARGS_aten_mm = 4,

  /* aten::bmm.out */
  MX_ARG_aten_bmm_self = 0,
  MX_ARG_aten_bmm_mat2 = 1,
  MX_ARG_aten_bmm_out = 2,
  MX_ARG_aten_bmm_ret = 3,
  MX_NARGS_aten_bmm = 4,

  /* aten::relu.out */
  MX_ARG_aten_relu_self = 0,
  MX_ARG_aten_relu_out = 1,
  MX_ARG_aten_relu_ret = 2,
  MX_NARGS_aten_relu = 3,

  /* aten::hardtanh.out */
  MX_ARG_aten_hardtanh_self = 0,
  MX_ARG_aten_hardtanh_min_val = 1,
  MX_ARG_aten_hardtanh_max_val = 2,
  MX_ARG_aten_hardtanh_out = 3,
  MX_ARG_aten_hardtanh_ret = 4,
  MX_NARGS_aten_hardtanh = 5,

  /* aten::clamp.out */
  MX_ARG_aten_clamp_self = 0,
  MX_ARG_aten_clamp_min = 1,
  MX_ARG_aten_clamp_max = 2,
  MX_ARG_aten_clamp_out = 3,
  MX_ARG_aten_clamp_ret = 4,
  MX_NARGS_aten_clamp = 5,

  /* aten::sigmoid.out */
  MX_ARG_aten_sigmoid_self = 0,
  MX_ARG_aten_sigmoid_out = 1,
  MX_ARG_aten_sigmoid_ret = 2,
  MX_NARGS_aten_sigmoid = 3,

  /* aten::tanh.out */
  MX_ARG_aten_tanh_self = 0,
  MX_ARG_aten_tanh_out = 1,
  MX_ARG_aten_tanh_ret = 2,
  MX_NARGS_aten_tanh = 3,

  /* aten::hardswish.out */
  MX_ARG_aten_hardswish_self = 0,
  MX_ARG_aten_hardswish_out = 1,
  MX_ARG_aten_hardswish_ret = 2,
  MX_NARGS_aten_hardswish = 3,

  /* aten::hardsigmoid.out */
  MX_ARG_aten_hardsigmoid_self = 0,
  MX_ARG_aten_hardsigmoid_out = 1,
  MX_ARG_aten_hardsigmoid_ret = 2,
  MX_NARGS_aten_hardsigmoid = 3,

  /* aten::add.out */
  MX_ARG_aten_add_self = 0,
  MX_ARG_aten_add_other = 1,
  MX_ARG_aten_add_alpha = 2,
  MX_ARG_aten_add_out = 3,
  MX_ARG_aten_add_ret = 4,
  MX_NARGS_aten_add = 5,

  /* aten::sub.out */
  MX_ARG_aten_sub_self = 0,
  MX_ARG_aten_sub_other = 1,
  MX_ARG_aten_sub_alpha = 2,
  MX_ARG_aten_sub_out = 3,
  MX_ARG_aten_sub_ret = 4,
  MX_NARGS_aten_sub = 5,

  /* aten::mul.out */
  MX_ARG_aten_mul_self = 0,
  MX_ARG_aten_mul_other = 1,
  MX_ARG_aten_mul_out = 2,
  MX_ARG_aten_mul_ret = 3,
  MX_NARGS_aten_mul = 4,

  /* aten::div.out */
  MX_ARG_aten_div_self = 0,
  MX_ARG_aten_div_other = 1,
  MX_ARG_aten_div_out = 2,
  MX_ARG_aten_div_ret = 3,
  MX_NARGS_aten_div = 4,

  /* aten::max_pool2d_with_indices.out */
  MX_ARG_aten_max_pool2d_with_indices_self = 0,
  MX_ARG_aten_max_pool2d_with_indices_kernel_size = 1,
  MX_ARG_aten_max_pool2d_with_indices_stride = 2,
  MX_ARG_aten_max_pool2d_with_indices_padding = 3,
  MX_ARG_aten_max_pool2d_with_indices_dilation = 4,
  MX_ARG_aten_max_pool2d_with_indices_ceil_mode = 5,
  MX_ARG_aten_max_pool2d_with_indices_out = 6,
  MX_ARG_aten_max_pool2d_with_indices_indices = 7,
  MX_ARG_aten_max_pool2d_with_indices_ret = 8,
  MX_NARGS_aten_max_pool2d_with_indices = 9,

  /* aten::avg_pool2d.out */
  MX_ARG_aten_avg_pool2d_self = 0,
  MX_ARG_aten_avg_pool2d_kernel_size = 1,
  MX_ARG_aten_avg_pool2d_stride = 2,
  MX_ARG_aten_avg_pool2d_padding = 3,
  MX_ARG_aten_avg_pool2d_ceil_mode = 4,
  MX_ARG_aten_avg_pool2d_count_include_pad = 5,
  MX_ARG_aten_avg_pool2d_divisor_override = 6,
  MX_ARG_aten_avg_pool2d_out = 7,
  MX_ARG_aten_avg_pool2d_ret = 8,
  MX_NARGS_aten_avg_pool2d = 9,

  /* aten::_adaptive_avg_pool2d.out */
  MX_ARG_aten_adaptive_avg_pool2d_self = 0,
  MX_ARG_aten_adaptive_avg_pool2d_output_size = 1,
  MX_ARG_aten_adaptive_avg_pool2d_out = 2,
  MX_ARG_aten_adaptive_avg_pool2d_ret = 3,
  MX_NARGS_aten_adaptive_avg_pool2d = 4,

  /* aten::mean.out */
  MX_ARG_aten_mean_self = 0,
  MX_ARG_aten_mean_dim = 1,
  MX_ARG_aten_mean_keepdim = 2,
  MX_ARG_aten_mean_dtype = 3,
  MX_ARG_aten_mean_out = 4,
  MX_ARG_aten_mean_ret = 5,
  MX_NARGS_aten_mean = 6,

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

  /* aten::abs.out */
  MX_ARG_aten_abs_self = 0,
  MX_ARG_aten_abs_out = 1,
  MX_ARG_aten_abs_ret = 2,
  MX_NARGS_aten_abs = 3,

  /* aten::neg.out */
  MX_ARG_aten_neg_self = 0,
  MX_ARG_aten_neg_out = 1,
  MX_ARG_aten_neg_ret = 2,
  MX_NARGS_aten_neg = 3,

  /* aten::minimum.out */
  MX_ARG_aten_minimum_self = 0,
  MX_ARG_aten_minimum_other = 1,
  MX_ARG_aten_minimum_out = 2,
  MX_ARG_aten_minimum_ret = 3,
  MX_NARGS_aten_minimum = 4,

  /* aten::maximum.out */
  MX_ARG_aten_maximum_self = 0,
  MX_ARG_aten_maximum_other = 1,
  MX_ARG_aten_maximum_out = 2,
  MX_ARG_aten_maximum_ret = 3,
  MX_NARGS_aten_maximum = 4,

  /* aten::eq.Scalar_out */
  MX_ARG_aten_eq_Scalar_self = 0,
  MX_ARG_aten_eq_Scalar_other = 1,
  MX_ARG_aten_eq_Scalar_out = 2,
  MX_ARG_aten_eq_Scalar_ret = 3,
  MX_NARGS_aten_eq_Scalar = 4,

  /* aten::eq.Tensor_out */
  MX_ARG_aten_eq_Tensor_self = 0,
  MX_ARG_aten_eq_Tensor_other = 1,
  MX_ARG_aten_eq_Tensor_out = 2,
  MX_ARG_aten_eq_Tensor_ret = 3,
  MX_NARGS_aten_eq_Tensor = 4,

  /* aten::ne.Scalar_out */
  MX_ARG_aten_ne_Scalar_self = 0,
  MX_ARG_aten_ne_Scalar_other = 1,
  MX_ARG_aten_ne_Scalar_out = 2,
  MX_ARG_aten_ne_Scalar_ret = 3,
  MX_NARGS_aten_ne_Scalar = 4,

  /* aten::ne.Tensor_out */
  MX_ARG_aten_ne_Tensor_self = 0,
  MX_ARG_aten_ne_Tensor_other = 1,
  MX_ARG_aten_ne_Tensor_out = 2,
  MX_ARG_aten_ne_Tensor_ret = 3,
  MX_NARGS_aten_ne_Tensor = 4,

  /* aten::gt.Scalar_out */
  MX_ARG_aten_gt_Scalar_self = 0,
  MX_ARG_aten_gt_Scalar_other = 1,
  MX_ARG_aten_gt_Scalar_out = 2,
  MX_ARG_aten_gt_Scalar_ret = 3,
  MX_NARGS_aten_gt_Scalar = 4,

  /* aten::gt.Tensor_out */
  MX_ARG_aten_gt_Tensor_self = 0,
  MX_ARG_aten_gt_Tensor_other = 1,
  MX_ARG_aten_gt_Tensor_out = 2,
  MX_ARG_aten_gt_Tensor_ret = 3,
  MX_NARGS_aten_gt_Tensor = 4,

  /* aten::ge.Scalar_out */
  MX_ARG_aten_ge_Scalar_self = 0,
  MX_ARG_aten_ge_Scalar_other = 1,
  MX_ARG_aten_ge_Scalar_out = 2,
  MX_ARG_aten_ge_Scalar_ret = 3,
  MX_NARGS_aten_ge_Scalar = 4,

  /* aten::ge.Tensor_out */
  MX_ARG_aten_ge_Tensor_self = 0,
  MX_ARG_aten_ge_Tensor_other = 1,
  MX_ARG_aten_ge_Tensor_out = 2,
  MX_ARG_aten_ge_Tensor_ret = 3,
  MX_NARGS_aten_ge_Tensor = 4,

  /* aten::lt.Scalar_out */
  MX_ARG_aten_lt_Scalar_self = 0,
  MX_ARG_aten_lt_Scalar_other = 1,
  MX_ARG_aten_lt_Scalar_out = 2,
  MX_ARG_aten_lt_Scalar_ret = 3,
  MX_NARGS_aten_lt_Scalar = 4,

  /* aten::lt.Tensor_out */
  MX_ARG_aten_lt_Tensor_self = 0,
  MX_ARG_aten_lt_Tensor_other = 1,
  MX_ARG_aten_lt_Tensor_out = 2,
  MX_ARG_aten_lt_Tensor_ret = 3,
  MX_NARGS_aten_lt_Tensor = 4,

  /* aten::le.Scalar_out */
  MX_ARG_aten_le_Scalar_self = 0,
  MX_ARG_aten_le_Scalar_other = 1,
  MX_ARG_aten_le_Scalar_out = 2,
  MX_ARG_aten_le_Scalar_ret = 3,
  MX_NARGS_aten_le_Scalar = 4,

  /* aten::le.Tensor_out */
  MX_ARG_aten_le_Tensor_self = 0,
  MX_ARG_aten_le_Tensor_other = 1,
  MX_ARG_aten_le_Tensor_out = 2,
  MX_ARG_aten_le_Tensor_ret = 3,
  MX_NARGS_aten_le_Tensor = 4,

  /* aten::logical_not.out */
  MX_ARG_aten_logical_not_self = 0,
  MX_ARG_aten_logical_not_out = 1,
  MX_ARG_aten_logical_not_ret = 2,
  MX_NARGS_aten_logical_not = 3,

  /* aten::any.out */
  MX_ARG_aten_any_self = 0,
  MX_ARG_aten_any_dim = 1,
  MX_ARG_aten_any_keepdim = 2,
  MX_ARG_aten_any_out = 3,
  MX_ARG_aten_any_ret = 4,
  MX_NARGS_aten_any = 5,

  /* aten::sum.IntList_out */
  MX_ARG_aten_sum_self = 0,
  MX_ARG_aten_sum_dim = 1,
  MX_ARG_aten_sum_keepdim = 2,
  MX_ARG_aten_sum_dtype = 3,
  MX_ARG_aten_sum_out = 4,
  MX_ARG_aten_sum_ret = 5,
  MX_NARGS_aten_sum = 6,

  /* aten::_softmax.out */
  MX_ARG_aten_softmax_self = 0,
  MX_ARG_aten_softmax_dim = 1,
  MX_ARG_aten_softmax_half_to_float = 2,
  MX_ARG_aten_softmax_out = 3,
  MX_ARG_aten_softmax_ret = 4,
  MX_NARGS_aten_softmax = 5,

  /* aten::constant_pad_nd.out */
  MX_ARG_aten_constant_pad_nd_self = 0,
  MX_ARG_aten_constant_pad_nd_pad = 1,
  MX_ARG_aten_constant_pad_nd_value = 2,
  MX_ARG_aten_constant_pad_nd_out = 3,
  MX_ARG_aten_constant_pad_nd_ret = 4,
  MX_NARGS_aten_constant_pad_nd = 5,

  /* aten::_native_batch_norm_legit_no_training.out */
  MX_ARG_aten_native_batch_norm_legit_no_training_input = 0,
  MX_ARG_aten_native_batch_norm_legit_no_training_weight = 1,
  MX_ARG_aten_native_batch_norm_legit_no_training_bias = 2,
  MX_ARG_aten_native_batch_norm_legit_no_training_running_mean = 3,
  MX_ARG_aten_native_batch_norm_legit_no_training_running_var = 4,
  MX_ARG_aten_native_batch_norm_legit_no_training_momentum = 5,
  MX_ARG_aten_native_batch_norm_legit_no_training_eps = 6,
  MX_ARG_aten_native_batch_norm_legit_no_training_out0 = 7,
  MX_ARG_aten_native_batch_norm_legit_no_training_out1 = 8,
  MX_ARG_aten_native_batch_norm_legit_no_training_out2 = 9,
  MX_ARG_aten_native_batch_norm_legit_no_training_ret = 10,
  MX_NARGS_aten_native_batch_norm_legit_no_training = 11,

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

  /* aten::leaky_relu.out */
  MX_ARG_aten_leaky_relu_self = 0,
  MX_ARG_aten_leaky_relu_negative_slope = 1,
  MX_ARG_aten_leaky_relu_out = 2,
  MX_ARG_aten_leaky_relu_ret = 3,
  MX_NARGS_aten_leaky_relu = 4,

  /* aten::elu.out */
  MX_ARG_aten_elu_self = 0,
  MX_ARG_aten_elu_alpha = 1,
  MX_ARG_aten_elu_scale = 2,
  MX_ARG_aten_elu_input_scale = 3,
  MX_ARG_aten_elu_out = 4,
  MX_ARG_aten_elu_ret = 5,
  MX_NARGS_aten_elu = 6,

  /* aten::gelu.out */
  MX_ARG_aten_gelu_self = 0,
  MX_ARG_aten_gelu_approximate = 1,
  MX_ARG_aten_gelu_out = 2,
  MX_ARG_aten_gelu_ret = 3,
  MX_NARGS_aten_gelu = 4,

  /* aten::_log_softmax.out */
  MX_ARG_aten_log_softmax_self = 0,
  MX_ARG_aten_log_softmax_dim = 1,
  MX_ARG_aten_log_softmax_half_to_float = 2,
  MX_ARG_aten_log_softmax_out = 3,
  MX_ARG_aten_log_softmax_ret = 4,
  MX_NARGS_aten_log_softmax = 5,

  /* aten::native_layer_norm.out */
  MX_ARG_aten_native_layer_norm_input = 0,
  MX_ARG_aten_native_layer_norm_normalized_shape = 1,
  MX_ARG_aten_native_layer_norm_weight = 2,
  MX_ARG_aten_native_layer_norm_bias = 3,
  MX_ARG_aten_native_layer_norm_eps = 4,
  MX_ARG_aten_native_layer_norm_out0 = 5,
  MX_ARG_aten_native_layer_norm_out1 = 6,
  MX_ARG_aten_native_layer_norm_out2 = 7,
  MX_ARG_aten_native_layer_norm_ret = 8,
  MX_NARGS_aten_native_layer_norm = 9,

  /* aten::adaptive_max_pool2d.out */
  MX_ARG_aten_adaptive_max_pool2d_self = 0,
  MX_ARG_aten_adaptive_max_pool2d_output_size = 1,
  MX_ARG_aten_adaptive_max_pool2d_out = 2,
  MX_ARG_aten_adaptive_max_pool2d_indices = 3,
  MX_ARG_aten_adaptive_max_pool2d_ret = 4,
  MX_NARGS_aten_adaptive_max_pool2d = 5,

  /* aten::upsample_nearest2d.vec_out */
  MX_ARG_aten_upsample_nearest2d_input = 0,
  MX_ARG_aten_upsample_nearest2d_output_size = 1,
  MX_ARG_aten_upsample_nearest2d_scale_factors = 2,
  MX_ARG_aten_upsample_nearest2d_out = 3,
  MX_ARG_aten_upsample_nearest2d_ret = 4,
  MX_NARGS_aten_upsample_nearest2d = 5,

  /* aten::upsample_bilinear2d.vec_out */
  MX_ARG_aten_upsample_bilinear2d_input = 0,
  MX_ARG_aten_upsample_bilinear2d_output_size = 1,
  MX_ARG_aten_upsample_bilinear2d_align_corners = 2,
  MX_ARG_aten_upsample_bilinear2d_scale_factors = 3,
  MX_ARG_aten_upsample_bilinear2d_out = 4,
  MX_ARG_aten_upsample_bilinear2d_ret = 5,
  MX_NARGS_aten_upsample_bilinear2d = 6,

  /* aten::clamp.Tensor_out */
  MX_ARG_aten_clamp_Tensor_self = 0,
  MX_ARG_aten_clamp_Tensor_min = 1,
  MX_ARG_aten_clamp_Tensor_max = 2,
  MX_ARG_aten_clamp_Tensor_out = 3,
  MX_ARG_aten_clamp_Tensor_ret = 4,
  MX_NARGS_aten_clamp_Tensor = 5,

  /* cortex_m::quantize_per_tensor.out */
  MX_ARG_cortex_m_quantize_per_tensor_input = 0,
  MX_ARG_cortex_m_quantize_per_tensor_scale = 1,
  MX_ARG_cortex_m_quantize_per_tensor_zero_point = 2,
  MX_ARG_cortex_m_quantize_per_tensor_quant_min = 3,
  MX_ARG_cortex_m_quantize_per_tensor_quant_max = 4,
  MX_ARG_cortex_m_quantize_per_tensor_dtype = 5,
  MX_ARG_cortex_m_quantize_per_tensor_out = 6,
  MX_ARG_cortex_m_quantize_per_tensor_ret = 7,
  MX_NARGS_cortex_m_quantize_per_tensor = 8,

  /* cortex_m::dequantize_per_tensor.out */
  MX_ARG_cortex_m_dequantize_per_tensor_input = 0,
  MX_ARG_cortex_m_dequantize_per_tensor_scale = 1,
  MX_ARG_cortex_m_dequantize_per_tensor_zero_point = 2,
  MX_ARG_cortex_m_dequantize_per_tensor_quant_min = 3,
  MX_ARG_cortex_m_dequantize_per_tensor_quant_max = 4,
  MX_ARG_cortex_m_dequantize_per_tensor_dtype = 5,
  MX_ARG_cortex_m_dequantize_per_tensor_out = 6,
  MX_ARG_cortex_m_dequantize_per_tensor_ret = 7,
  MX_NARGS_cortex_m_dequantize_per_tensor = 8,

  /* cortex_m::quantized_add.out */
  MX_ARG_cortex_m_quantized_add_self = 0,
  MX_ARG_cortex_m_quantized_add_self_zero_point = 1,
  MX_ARG_cortex_m_quantized_add_self_multiplier = 2,
  MX_ARG_cortex_m_quantized_add_self_shift = 3,
  MX_ARG_cortex_m_quantized_add_other = 4,
  MX_ARG_cortex_m_quantized_add_other_zero_point = 5,
  MX_ARG_cortex_m_quantized_add_other_multiplier = 6,
  MX_ARG_cortex_m_quantized_add_other_shift = 7,
  MX_ARG_cortex_m_quantized_add_output_zero_point = 8,
  MX_ARG_cortex_m_quantized_add_output_multiplier = 9,
  MX_ARG_cortex_m_quantized_add_output_shift = 10,
  MX_ARG_cortex_m_quantized_add_activation_min = 11,
  MX_ARG_cortex_m_quantized_add_activation_max = 12,
  MX_ARG_cortex_m_quantized_add_out = 13,
  MX_ARG_cortex_m_quantized_add_ret = 14,
  MX_NARGS_cortex_m_quantized_add = 15,

  /* cortex_m::quantized_mul.out */
  MX_ARG_cortex_m_quantized_mul_self = 0,
  MX_ARG_cortex_m_quantized_mul_self_zero_point = 1,
  MX_ARG_cortex_m_quantized_mul_other = 2,
  MX_ARG_cortex_m_quantized_mul_other_zero_point = 3,
  MX_ARG_cortex_m_quantized_mul_output_zero_point = 4,
  MX_ARG_cortex_m_quantized_mul_output_multiplier = 5,
  MX_ARG_cortex_m_quantized_mul_output_shift = 6,
  MX_ARG_cortex_m_quantized_mul_out = 7,
  MX_ARG_cortex_m_quantized_mul_ret = 8,
  MX_NARGS_cortex_m_quantized_mul = 9,

  /* cortex_m::quantized_linear.out */
  MX_ARG_cortex_m_quantized_linear_input = 0,
  MX_ARG_cortex_m_quantized_linear_weights = 1,
  MX_ARG_cortex_m_quantized_linear_bias = 2,
  MX_ARG_cortex_m_quantized_linear_kernel_sum = 3,
  MX_ARG_cortex_m_quantized_linear_input_offset = 4,
  MX_ARG_cortex_m_quantized_linear_filter_offset = 5,
  MX_ARG_cortex_m_quantized_linear_output_offset = 6,
  MX_ARG_cortex_m_quantized_linear_requantize_multipliers = 7,
  MX_ARG_cortex_m_quantized_linear_requantize_shifts = 8,
  MX_ARG_cortex_m_quantized_linear_activation_max = 9,
  MX_ARG_cortex_m_quantized_linear_activation_min = 10,
  MX_ARG_cortex_m_quantized_linear_out = 11,
  MX_ARG_cortex_m_quantized_linear_ret = 12,
  MX_NARGS_cortex_m_quantized_linear = 13,

  /* cortex_m::softmax.out */
  MX_ARG_cortex_m_softmax_input = 0,
  MX_ARG_cortex_m_softmax_dim = 1,
  MX_ARG_cortex_m_softmax_input_zero_point = 2,
  MX_ARG_cortex_m_softmax_output_zero_point = 3,
  MX_ARG_cortex_m_softmax_input_multiplier = 4,
  MX_ARG_cortex_m_softmax_input_shift = 5,
  MX_ARG_cortex_m_softmax_diff_min = 6,
  MX_ARG_cortex_m_softmax_out = 7,
  MX_ARG_cortex_m_softmax_ret = 8,
  MX_NARGS_cortex_m_softmax = 9,

  /* cortex_m::transpose.out */
  MX_ARG_cortex_m_transpose_input = 0,
  MX_ARG_cortex_m_transpose_perm = 1,
  MX_ARG_cortex_m_transpose_out = 2,
  MX_ARG_cortex_m_transpose_ret = 3,
  MX_NARGS_cortex_m_transpose = 4,

  /* cortex_m::pad.out */
  MX_ARG_cortex_m_pad_input = 0,
  MX_ARG_cortex_m_pad_pre_pad = 1,
  MX_ARG_cortex_m_pad_post_pad = 2,
  MX_ARG_cortex_m_pad_pad_value = 3,
  MX_ARG_cortex_m_pad_out = 4,
  MX_ARG_cortex_m_pad_ret = 5,
  MX_NARGS_cortex_m_pad = 6,

  /* cortex_m::quantized_conv2d.out */
  MX_ARG_cortex_m_quantized_conv2d_input = 0,
  MX_ARG_cortex_m_quantized_conv2d_weight = 1,
  MX_ARG_cortex_m_quantized_conv2d_bias = 2,
  MX_ARG_cortex_m_quantized_conv2d_stride = 3,
  MX_ARG_cortex_m_quantized_conv2d_padding = 4,
  MX_ARG_cortex_m_quantized_conv2d_dilation = 5,
  MX_ARG_cortex_m_quantized_conv2d_input_offset = 6,
  MX_ARG_cortex_m_quantized_conv2d_output_offset = 7,
  MX_ARG_cortex_m_quantized_conv2d_requantize_multipliers = 8,
  MX_ARG_cortex_m_quantized_conv2d_requantize_shifts = 9,
  MX_ARG_cortex_m_quantized_conv2d_activation_min = 10,
  MX_ARG_cortex_m_quantized_conv2d_activation_max = 11,
  MX_ARG_cortex_m_quantized_conv2d_scratch = 12,
  MX_ARG_cortex_m_quantized_conv2d_out = 13,
  MX_ARG_cortex_m_quantized_conv2d_ret = 14,
  MX_NARGS_cortex_m_quantized_conv2d = 15,

  /* cortex_m::quantized_conv2d_nhwc.out */
  MX_ARG_cortex_m_quantized_conv2d_nhwc_input = 0,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_weight = 1,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_bias = 2,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_stride = 3,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_padding = 4,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_dilation = 5,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_input_offset = 6,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_output_offset = 7,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_requantize_multipliers = 8,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_requantize_shifts = 9,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_activation_min = 10,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_activation_max = 11,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_scratch = 12,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_out = 13,
  MX_ARG_cortex_m_quantized_conv2d_nhwc_ret = 14,
  MX_NARGS_cortex_m_quantized_conv2d_nhwc = 15,

  /* cortex_m::quantized_depthwise_conv2d.out */
  MX_ARG_cortex_m_quantized_depthwise_conv2d_input = 0,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_weight = 1,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_bias = 2,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_stride = 3,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_padding = 4,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_dilation = 5,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_depth_multiplier = 6,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_input_offset = 7,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_output_offset = 8,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_requantize_multipliers = 9,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_requantize_shifts = 10,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_activation_min = 11,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_activation_max = 12,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_scratch = 13,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_out = 14,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_ret = 15,
  MX_NARGS_cortex_m_quantized_depthwise_conv2d = 16,

  /* cortex_m::quantized_depthwise_conv2d_nhwc.out */
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_input = 0,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_weight = 1,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_bias = 2,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_stride = 3,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_padding = 4,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_dilation = 5,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_depth_multiplier = 6,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_input_offset = 7,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_output_offset = 8,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_requantize_multipliers = 9,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_requantize_shifts = 10,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_activation_min = 11,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_activation_max = 12,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_scratch = 13,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_out = 14,
  MX_ARG_cortex_m_quantized_depthwise_conv2d_nhwc_ret = 15,
  MX_NARGS_cortex_m_quantized_depthwise_conv2d_nhwc = 16,

  /* cortex_m::quantized_transpose_conv2d.out */
  MX_ARG_cortex_m_quantized_transpose_conv2d_input = 0,
  MX_ARG_cortex_m_quantized_transpose_conv2d_weight = 1,
  MX_ARG_cortex_m_quantized_transpose_conv2d_bias = 2,
  MX_ARG_cortex_m_quantized_transpose_conv2d_stride = 3,
  MX_ARG_cortex_m_quantized_transpose_conv2d_padding = 4,
  MX_ARG_cortex_m_quantized_transpose_conv2d_output_padding = 5,
  MX_ARG_cortex_m_quantized_transpose_conv2d_dilation = 6,
  MX_ARG_cortex_m_quantized_transpose_conv2d_input_offset = 7,
  MX_ARG_cortex_m_quantized_transpose_conv2d_output_offset = 8,
  MX_ARG_cortex_m_quantized_transpose_conv2d_requantize_multipliers = 9,
  MX_ARG_cortex_m_quantized_transpose_conv2d_requantize_shifts = 10,
  MX_ARG_cortex_m_quantized_transpose_conv2d_activation_min = 11,
  MX_ARG_cortex_m_quantized_transpose_conv2d_activation_max = 12,
  MX_ARG_cortex_m_quantized_transpose_conv2d_scratch = 13,
  MX_ARG_cortex_m_quantized_transpose_conv2d_output_scratch = 14,
  MX_ARG_cortex_m_quantized_transpose_conv2d_out = 15,
  MX_ARG_cortex_m_quantized_transpose_conv2d_ret = 16,
  MX_NARGS_cortex_m_quantized_transpose_conv2d = 17,

  /* cortex_m::quantized_upsample_bilinear2d.out */
  MX_ARG_cortex_m_quantized_upsample_bilinear2d_input = 0,
  MX_ARG_cortex_m_quantized_upsample_bilinear2d_align_corners = 1,
  MX_ARG_cortex_m_quantized_upsample_bilinear2d_out = 2,
  MX_ARG_cortex_m_quantized_upsample_bilinear2d_ret = 3,
  MX_NARGS_cortex_m_quantized_upsample_bilinear2d = 4,

  /* cortex_m::quantized_avg_pool2d.out */
  MX_ARG_cortex_m_quantized_avg_pool2d_input = 0,
  MX_ARG_cortex_m_quantized_avg_pool2d_kernel_size = 1,
  MX_ARG_cortex_m_quantized_avg_pool2d_stride = 2,
  MX_ARG_cortex_m_quantized_avg_pool2d_padding = 3,
  MX_ARG_cortex_m_quantized_avg_pool2d_ceil_mode = 4,
  MX_ARG_cortex_m_quantized_avg_pool2d_zero_point = 5,
  MX_ARG_cortex_m_quantized_avg_pool2d_multiplier = 6,
  MX_ARG_cortex_m_quantized_avg_pool2d_shift = 7,
  MX_ARG_cortex_m_quantized_avg_pool2d_scratch = 8,
  MX_ARG_cortex_m_quantized_avg_pool2d_out = 9,
  MX_ARG_cortex_m_quantized_avg_pool2d_ret = 10,
  MX_NARGS_cortex_m_quantized_avg_pool2d = 11,

  /* cortex_m::quantized_avg_pool2d_nhwc.out */
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_input = 0,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_kernel_size = 1,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_stride = 2,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_padding = 3,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_ceil_mode = 4,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_zero_point = 5,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_multiplier = 6,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_shift = 7,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_scratch = 8,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_out = 9,
  MX_ARG_cortex_m_quantized_avg_pool2d_nhwc_ret = 10,
  MX_NARGS_cortex_m_quantized_avg_pool2d_nhwc = 11,

  /* cortex_m::quantized_max_pool2d.out */
  MX_ARG_cortex_m_quantized_max_pool2d_input = 0,
  MX_ARG_cortex_m_quantized_max_pool2d_kernel_size = 1,
  MX_ARG_cortex_m_quantized_max_pool2d_stride = 2,
  MX_ARG_cortex_m_quantized_max_pool2d_padding = 3,
  MX_ARG_cortex_m_quantized_max_pool2d_dilation = 4,
  MX_ARG_cortex_m_quantized_max_pool2d_ceil_mode = 5,
  MX_ARG_cortex_m_quantized_max_pool2d_input_zero_point = 6,
  MX_ARG_cortex_m_quantized_max_pool2d_output_zero_point = 7,
  MX_ARG_cortex_m_quantized_max_pool2d_activation_min = 8,
  MX_ARG_cortex_m_quantized_max_pool2d_activation_max = 9,
  MX_ARG_cortex_m_quantized_max_pool2d_out = 10,
  MX_ARG_cortex_m_quantized_max_pool2d_ret = 11,
  MX_NARGS_cortex_m_quantized_max_pool2d = 12,

  /* cortex_m::quantized_max_pool2d_nhwc.out */
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_input = 0,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_kernel_size = 1,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_stride = 2,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_padding = 3,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_dilation = 4,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_ceil_mode = 5,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_input_zero_point = 6,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_output_zero_point = 7,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_activation_min = 8,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_activation_max = 9,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_out = 10,
  MX_ARG_cortex_m_quantized_max_pool2d_nhwc_ret = 11,
  MX_NARGS_cortex_m_quantized_max_pool2d_nhwc = 12,

  /* cortex_m::quantized_activation.out */
  MX_ARG_cortex_m_quantized_activation_input = 0,
  MX_ARG_cortex_m_quantized_activation_lut = 1,
  MX_ARG_cortex_m_quantized_activation_out = 2,
  MX_ARG_cortex_m_quantized_activation_ret = 3,
  MX_NARGS_cortex_m_quantized_activation = 4,

  /* cortex_m::quantized_batch_matmul.out */
  MX_ARG_cortex_m_quantized_batch_matmul_lhs = 0,
  MX_ARG_cortex_m_quantized_batch_matmul_lhs_zero_point = 1,
  MX_ARG_cortex_m_quantized_batch_matmul_rhs_transposed = 2,
  MX_ARG_cortex_m_quantized_batch_matmul_rhs_zero_point = 3,
  MX_ARG_cortex_m_quantized_batch_matmul_output_zero_point = 4,
  MX_ARG_cortex_m_quantized_batch_matmul_output_multiplier = 5,
  MX_ARG_cortex_m_quantized_batch_matmul_output_shift = 6,
  MX_ARG_cortex_m_quantized_batch_matmul_scratch = 7,
  MX_ARG_cortex_m_quantized_batch_matmul_out = 8,
  MX_ARG_cortex_m_quantized_batch_matmul_ret = 9,
  MX_NARGS_cortex_m_quantized_batch_matmul = 10,

  /* cortex_m::quantized_layer_norm.out */
  MX_ARG_cortex_m_quantized_layer_norm_input = 0,
  MX_ARG_cortex_m_quantized_layer_norm_weight = 1,
  MX_ARG_cortex_m_quantized_layer_norm_bias = 2,
  MX_ARG_cortex_m_quantized_layer_norm_epsilon = 3,
  MX_ARG_cortex_m_quantized_layer_norm_output_zero_point = 4,
  MX_ARG_cortex_m_quantized_layer_norm_output_multiplier = 5,
  MX_ARG_cortex_m_quantized_layer_norm_output_shift = 6,
  MX_ARG_cortex_m_quantized_layer_norm_out = 7,
  MX_ARG_cortex_m_quantized_layer_norm_ret = 8,
  MX_NARGS_cortex_m_quantized_layer_norm = 9,

  /* cortex_m::quantized_div.out */
  MX_ARG_cortex_m_quantized_div_self = 0,
  MX_ARG_cortex_m_quantized_div_self_zero_point = 1,
  MX_ARG_cortex_m_quantized_div_other = 2,
  MX_ARG_cortex_m_quantized_div_other_zero_point = 3,
  MX_ARG_cortex_m_quantized_div_output_zero_point = 4,
  MX_ARG_cortex_m_quantized_div_output_scale = 5,
  MX_ARG_cortex_m_quantized_div_out = 6,
  MX_ARG_cortex_m_quantized_div_ret = 7,
  MX_NARGS_cortex_m_quantized_div = 8,

  /* cortex_m::log_softmax.out */
  MX_ARG_cortex_m_log_softmax_input = 0,
  MX_ARG_cortex_m_log_softmax_dim = 1,
  MX_ARG_cortex_m_log_softmax_input_multiplier = 2,
  MX_ARG_cortex_m_log_softmax_input_shift = 3,
  MX_ARG_cortex_m_log_softmax_diff_min = 4,
  MX_ARG_cortex_m_log_softmax_out = 5,
  MX_ARG_cortex_m_log_softmax_ret = 6,
  MX_NARGS_cortex_m_log_softmax = 7,

  /* cortex_m::quantized_prelu.out */
  MX_ARG_cortex_m_quantized_prelu_input = 0,
  MX_ARG_cortex_m_quantized_prelu_channel_dim = 1,
  MX_ARG_cortex_m_quantized_prelu_input_zero_point = 2,
  MX_ARG_cortex_m_quantized_prelu_output_zero_point = 3,
  MX_ARG_cortex_m_quantized_prelu_positive_multiplier = 4,
  MX_ARG_cortex_m_quantized_prelu_positive_shift = 5,
  MX_ARG_cortex_m_quantized_prelu_negative_multipliers = 6,
  MX_ARG_cortex_m_quantized_prelu_negative_shifts = 7,
  MX_ARG_cortex_m_quantized_prelu_out = 8,
  MX_ARG_cortex_m_quantized_prelu_ret = 9,
  MX_NARGS_cortex_m_quantized_prelu = 10,

  /* cortex_m::minimum.out */
  MX_ARG_cortex_m_minimum_self = 0,
  MX_ARG_cortex_m_minimum_other = 1,
  MX_ARG_cortex_m_minimum_out = 2,
  MX_ARG_cortex_m_minimum_ret = 3,
  MX_NARGS_cortex_m_minimum = 4,

  /* cortex_m::maximum.out */
  MX_ARG_cortex_m_maximum_self = 0,
  MX_ARG_cortex_m_maximum_other = 1,
  MX_ARG_cortex_m_maximum_out = 2,
  MX_ARG_cortex_m_maximum_ret = 3,
  MX_NARGS_cortex_m_maximum = 4,
};

#endif
