"""Bit-exact numpy references of the int8 kernels in cmsis_nn_kernels/, one module per kernel family,
named after the C kernels and taking their parameters (NHWC dims, offsets, multipliers, shifts, clamps)."""
