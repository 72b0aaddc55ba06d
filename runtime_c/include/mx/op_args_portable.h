#ifndef MX_OP_ARGS_PORTABLE_H
#define MX_OP_ARGS_PORTABLE_H
/* Generated from the op table (mcu_export/ops/c_args.py); do not edit: tests/test_op_args.py
 * fails when this file and the table disagree. Regenerate: python -m mcu_export.ops.c_args
 * KernelCall argument positions of the portable kernels: the schema's
 * arguments in order, then `ret`. Enumeration constants are ints, so kernels sharing a body compare
 * positions in _Static_asserts across ops. */

enum mx_op_arg_portable {
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
};

#endif
