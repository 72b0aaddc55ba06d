"""Small TOSA graphs built with the library's builders (mcu_export.ethosu.tosa), for the Ethos-U tests."""

import numpy as np

from mcu_export.ethosu.tosa import TosaGraph


def max_pool_graph() -> bytes:
    """[1, 8, 8, 16] int8 -> 2x2 max pool, stride 2 -> [1, 4, 4, 16]."""
    g = TosaGraph()
    g.output(g.pool("max", g.input([1, 8, 8, 16]), (2, 2), (2, 2), (0, 0, 0, 0), (1, 4, 4, 16)))
    return g.serialize()


def op_graph(op: str) -> bytes:
    """One int8 operator as the library builds it (mcu_export.ethosu.tosa), quantization as CMSIS-NN's."""
    g = TosaGraph()
    x = g.input([1, 6, 6, 8])
    q = dict(input_offset=5, filter_offset=0, output_offset=-3, activation=(-128, 127))
    if op == "conv":
        w = np.ones((4, 3, 3, 8), np.int8)
        out = g.conv(
            "conv",
            x,
            w,
            None,
            multipliers=[1 << 30] * 4,
            shifts=[-8] * 4,
            stride=(1, 1),
            pad_tblr=(0, 0, 0, 0),
            dilation=(1, 1),
            out_shape=(1, 4, 4, 4),
            **q,
        )
    elif op == "depthwise":
        w = np.ones((3, 3, 8, 1), np.int8)
        out = g.conv(
            "depthwise",
            x,
            w,
            None,
            multipliers=[1 << 30] * 8,
            shifts=[-8] * 8,
            stride=(1, 1),
            pad_tblr=(1, 1, 1, 1),
            dilation=(1, 1),
            out_shape=(1, 6, 6, 8),
            **q,
        )
    elif op == "add":
        p = dict(
            input_1_offset=3,
            input_1_mult=1 << 30,
            input_1_shift=0,
            input_2_offset=-2,
            input_2_mult=1 << 30,
            input_2_shift=0,
            left_shift=20,
            out_mult=1 << 30,
            out_shift=-19,
            out_offset=1,
        )
        out = g.add(x, g.input([1, 6, 6, 8]), [1, 6, 6, 8], p, (-128, 127))
    else:
        out = g.pool(op, x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 3, 3, 8))
    g.output(out)
    return g.serialize()
