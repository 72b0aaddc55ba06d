"""int8 quantization: CMSIS-NN-compatible arithmetic, the quantizer, and bit-exact numpy references."""
