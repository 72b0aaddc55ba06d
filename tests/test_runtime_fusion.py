"""The loader's fusions: runs of calls that a .pte writes apart (for ExecuTorch's sake) become one call of
our kernel, to the same bits as the calls as written; anything that differs from the pattern runs as written."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mcu_export.api
from front_models import Fn
from mcu_export.host_runtime import build_host_runner, default_ops
from mcu_export.ops.table import OPS
from mcu_export.runners.host import instruction_kernels, run_pte

FUSED = {"aten::hardswish.out": F.hardswish, "aten::hardsigmoid.out": F.hardsigmoid}


def _x():
    return torch.randn(4, 9, generator=torch.Generator().manual_seed(0)) * 4  # across both kinks


def _program(tmp_path, fn, x):
    """The exported .pte's path, after checking its outputs on our runtime against torch."""
    path = tmp_path / "model.pte"
    path.write_bytes(mcu_export.api.export(Fn(fn), (x,)).pte)
    with torch.no_grad():
        want = fn(x)
    for g, w in zip(run_pte(path, [x.numpy()]), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-6)
    return path


def test_every_fused_op_has_a_case():
    assert {op.qualified for op in OPS if op.written_as} == set(FUSED)


@pytest.mark.parametrize("op", [op for op in OPS if op.written_as], ids=lambda op: op.qualified)
def test_loader_fuses_the_decomposition_bit_exactly(op, tmp_path):
    x = _x()
    path = _program(tmp_path, FUSED[op.qualified], x)
    assert instruction_kernels(path) == [op.qualified] + ["fused-away"] * (len(op.written_as) - 1)
    # A build without the fused kernel (so without its fusion) runs the calls as written, to the same bits.
    unfused = build_host_runner(ops=[o for o in default_ops() if not o.written_as])
    assert instruction_kernels(path, runner=unfused) == list(op.written_as)
    for f, u in zip(run_pte(path, [x.numpy()]), run_pte(path, [x.numpy()], runner=unfused)):
        np.testing.assert_array_equal(f, u)


def test_a_hand_written_ramp_fuses_too(tmp_path):
    path = _program(tmp_path, lambda x: x * (x + 3).clamp(0, 6) / 6, _x())
    assert instruction_kernels(path) == ["aten::hardswish.out"] + ["fused-away"] * 3


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: (x * (c := (x + 3).clamp(0, 6)) / 6, c),  # a temporary is also an output
        lambda x: (x * (c := (x + 3).clamp(0, 6)) / 6) + c,  # ... or read after the ramp
        lambda x: x * (x + 3).clamp(0, 6) / 5,  # not the ramp's constants
        lambda x: x * (x + 2).clamp(0, 6) / 6,
        lambda x: x * (x + 3).clamp(0, 5) / 6,
        lambda x: (x + 3).clamp(-1, 6) / 6,
    ],
    ids=["temporary-output", "temporary-read", "div-5", "add-2", "clamp-max-5", "clamp-min-1"],
)
@pytest.mark.slow
def test_ramps_that_differ_run_as_written(tmp_path, fn):
    kernels = instruction_kernels(_program(tmp_path, fn, _x()))
    assert "fused-away" not in kernels and "aten::add.out" in kernels
