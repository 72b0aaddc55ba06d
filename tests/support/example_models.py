"""Session-wide helpers for tests that use the example models: each is loaded and exported once."""

from __future__ import annotations

import functools

import torch

from mcu_export.examples import EXAMPLES, spec
from mcu_export.model_spec import load_model

NAMES = tuple(EXAMPLES)


@functools.lru_cache(maxsize=None)
def model_and_inputs(name: str):
    return load_model(spec(name))


@functools.lru_cache(maxsize=None)
def exported(name: str, overlap: bool = True):
    """overlap=False: tensors planned apart, as a .pte for ExecuTorch's runtime must be (its kernels keep
    another order than the overlap rules')."""
    import mcu_export.api

    model, inputs = model_and_inputs(name)
    return mcu_export.api.export(model, inputs, overlap=overlap)


@functools.lru_cache(maxsize=None)
def torch_outputs(name: str):
    model, inputs = model_and_inputs(name)
    with torch.no_grad():
        out = model(*inputs)
    return [o.numpy() for o in (out if isinstance(out, (tuple, list)) else (out,))]


@functools.lru_cache(maxsize=None)
def executorch_pte(name: str) -> bytes:
    """The same model exported by ExecuTorch 1.5.1 itself (no delegate, fp32)."""
    from executorch.exir import to_edge

    model, inputs = model_and_inputs(name)
    return to_edge(torch.export.export(model, inputs, strict=False)).to_executorch().buffer
