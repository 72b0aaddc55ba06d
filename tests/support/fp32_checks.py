"""Checks shared by the fp32 kernel suites: a call that must succeed, closeness to torch, sentinel outs,
seeded random tensors, the hypothesis settings."""

import torch
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import kernel_harness as kh
from mcu_export.ops.table import BY_QUALIFIED

ERR = kh.error_codes()
OK = ERR["MX_OK"]
SETTINGS = settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**31 - 1)


def run(lib, op, **kwargs):
    err = lib.call(BY_QUALIFIED[op] if isinstance(op, str) else op, **kwargs)
    assert err == OK, f"{op}: {[k for k, v in ERR.items() if v == err]}"


def close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5, equal_nan=True)


def blank(like):
    """An out tensor pre-filled with a sentinel, so elements the kernel skips show up."""
    return torch.full_like(like, float("nan") if like.is_floating_point() else -7)


def rand(seed, *shape, scale=1.0):
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed)) * scale
