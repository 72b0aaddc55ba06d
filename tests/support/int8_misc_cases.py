"""Random cases for the misc int8 kernels: each maker takes a numpy Generator and returns (Case, expected
reference output). Shapes stay small so a few hundred cases fit one QEMU batch."""

from __future__ import annotations

import numpy as np

from int8_harness import Case
from mcu_export.int8.reference import elementwise, lut, pad, pooling, softmax, transpose


def _int8(rng, shape) -> np.ndarray:
    return rng.integers(-128, 128, size=shape, dtype=np.int8)


def _scale(rng) -> float:
    return float(2.0 ** rng.uniform(-9, 0))


def _act(rng):
    lo = int(rng.integers(-128, 0)) if rng.random() < 0.3 else -128
    hi = int(rng.integers(0, 128)) if rng.random() < 0.3 else 127
    return lo, hi


def add_case(rng, n=None):
    n = int(n if n is not None else rng.integers(1, 70))
    a, b = _int8(rng, n), _int8(rng, n)
    p = elementwise.add_params(
        _scale(rng),
        int(rng.integers(-128, 128)),
        _scale(rng),
        int(rng.integers(-128, 128)),
        _scale(rng),
        int(rng.integers(-128, 128)),
    )
    lo, hi = _act(rng)
    expected = elementwise.arm_elementwise_add_s8(a, b, **p, out_activation_min=lo, out_activation_max=hi)
    params = [
        p["input_1_offset"],
        p["input_1_mult"],
        p["input_1_shift"],
        p["input_2_offset"],
        p["input_2_mult"],
        p["input_2_shift"],
        p["left_shift"],
        p["out_offset"],
        p["out_mult"],
        p["out_shift"],
        lo,
        hi,
        n,
    ]
    return Case("add", params, a.tobytes() + b.tobytes(), n), expected


def mul_case(rng, n=None):
    n = int(n if n is not None else rng.integers(1, 70))
    a, b = _int8(rng, n), _int8(rng, n)
    p = elementwise.mul_params(
        _scale(rng),
        int(rng.integers(-128, 128)),
        _scale(rng),
        int(rng.integers(-128, 128)),
        _scale(rng) / 4,
        int(rng.integers(-128, 128)),
    )
    lo, hi = _act(rng)
    expected = elementwise.arm_elementwise_mul_s8(a, b, **p, out_activation_min=lo, out_activation_max=hi)
    params = [p["input_1_offset"], p["input_2_offset"], p["out_offset"], p["out_mult"], p["out_shift"], lo, hi, n]
    return Case("mul", params, a.tobytes() + b.tobytes(), n), expected


def pool_case(rng, kind: str):
    n, h, w, c = (int(rng.integers(1, 3)), int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 21)))
    kh, kw = int(rng.integers(1, h + 1)), int(rng.integers(1, w + 1))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    ph, pw = int(rng.integers(0, kh)), int(rng.integers(0, kw))  # padding < kernel: no window is all padding
    oh = (h + 2 * ph - kh) // sh + 1
    ow = (w + 2 * pw - kw) // sw + 1
    x = _int8(rng, (n, h, w, c))
    lo, hi = _act(rng)
    ref = pooling.arm_max_pool_s8 if kind == "max_pool" else pooling.arm_avgpool_s8
    expected = ref(x, (kh, kw), (sh, sw), (ph, pw), (oh, ow), lo, hi)
    params = [n, h, w, c, kh, kw, sh, sw, ph, pw, lo, hi, oh, ow]
    return Case(kind, params, x.tobytes(), expected.size), expected


def softmax_case(rng):
    rows, size = int(rng.integers(1, 5)), int(rng.integers(1, 80))
    spread = int(rng.integers(1, 128))
    x = np.clip(rng.integers(-spread, spread + 1, size=(rows, size)) + int(rng.integers(-100, 100)), -128, 127)
    x = x.astype(np.int8)
    mult, shift, diff_min = softmax.softmax_params(float(2.0 ** rng.uniform(-7, 0)), beta=float(rng.uniform(0.5, 2)))
    expected = softmax.arm_softmax_s8(x, mult, shift, diff_min)
    return Case("softmax", [rows, size, mult, shift, diff_min], x.tobytes(), x.size), expected


def lut_case(rng):
    n = int(rng.integers(1, 100))
    fn = ["sigmoid", "tanh", "hardswish"][int(rng.integers(0, 3))]
    table = lut.build_lut(fn, _scale(rng) * 8, int(rng.integers(-128, 128)), _scale(rng), int(rng.integers(-128, 128)))
    x = _int8(rng, n)
    expected = lut.arm_quantized_activation_s8(x, table)
    return Case("lut", [n], table.tobytes() + x.tobytes(), n), expected


def pad_case(rng):
    dims = [int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 9))]
    pre = [int(v) for v in rng.integers(0, 3, size=4)]
    post = [int(v) for v in rng.integers(0, 3, size=4)]
    value = int(rng.integers(-128, 128))
    x = _int8(rng, dims)
    expected = pad.arm_pad_s8(x, value, pre, post)
    return Case("pad", [*dims, *pre, *post, value], x.tobytes(), expected.size), expected


def transpose_case(rng):
    k = int(rng.integers(1, 5))
    dims = [int(v) for v in rng.integers(1, 9, size=k)]
    perm = [int(v) for v in rng.permutation(k)]
    x = _int8(rng, dims)
    expected = transpose.arm_transpose_s8(x, perm)
    pad4 = lambda v: list(v) + [1] * (4 - len(v))  # noqa: E731 - the unused trailing fields
    params = [k, *pad4(dims), *(perm + [0] * (4 - k)), *pad4(expected.shape)]
    return Case("transpose", params, x.tobytes(), expected.size), expected


MAKERS = {
    "add": add_case,
    "mul": mul_case,
    "max_pool": lambda r: pool_case(r, "max_pool"),
    "avg_pool": lambda r: pool_case(r, "avg_pool"),
    "softmax": softmax_case,
    "lut": lut_case,
    "pad": pad_case,
    "transpose": transpose_case,
}


def batch(seed: int, per_op: int):
    rng = np.random.default_rng(seed)
    return [(name,) + MAKERS[name](rng) for name in MAKERS for _ in range(per_op)]
