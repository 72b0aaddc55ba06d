"""Where a method's metadata lives (runtime_c/src/call_frame.c, method_carve.c): what only loading needs takes the
largest arena while the method loads, or the pool's end when no arena holds it, and each call's arguments are read
from the program into one call frame. Both placements load and compute what torch does; the pool `mx_run` reports
is the firmware template's sum (codegen/model/mx_model_memory.c.j2) over the exporter's counts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import mcu_export.api
from mcu_export.firmware.model_project import pool_counts
from mcu_export.host_runtime import HOST_BACKENDS
from mcu_export.runners.host import program_info, run_pte


class _Branches(nn.Module):
    """A conv whose int lists repeat (stride, padding, dilation) and a cat (a tensor list) of two views."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(2, 4, 3, padding=1)
        self.b = nn.Conv2d(2, 4, 1)

    def forward(self, x):
        return torch.cat([torch.relu(self.a(x)), self.b(x)], dim=1)


def _export(module: nn.Module, x: torch.Tensor, tmp_path, name: str):
    torch.manual_seed(0)
    artifact = mcu_export.api.export(module.eval(), (x,))
    path = tmp_path / f"{name}.pte"
    path.write_bytes(artifact.pte)
    return artifact, path


@pytest.mark.parametrize(
    "name, module, shape, where",
    [
        ("relu", nn.ReLU(), (1, 3), "pool"),  # a 12-byte arena holds no metadata
        ("branches", _Branches(), (1, 2, 16, 16), "arena"),
    ],
)
def test_load_only_metadata_goes_where_it_fits_and_both_compute_as_torch(tmp_path, name, module, shape, where):
    torch.manual_seed(1)
    x = torch.randn(*shape)
    artifact, path = _export(module, x, tmp_path, name)
    info = program_info(path)
    lasting, load, placed = info.meta_blocks
    assert placed == where
    assert lasting > 0 and load > 0
    assert info.meta_pool_bytes == lasting + (load if where == "pool" else 0)
    counts = dict(info.meta_counts)
    assert (counts["largest_arena"] >= load + 7) == (where == "arena")  # MX_META_LOAD_IN_ARENA
    assert counts == {k: v for k, v in vars(pool_counts(artifact.program.method(), HOST_BACKENDS)).items()}
    (out,) = run_pte(path, [x.numpy()])
    with torch.no_grad():
        np.testing.assert_allclose(out, module(x).numpy(), rtol=1e-5, atol=1e-6)


def test_the_frame_holds_the_largest_call_not_every_value(tmp_path):
    torch.manual_seed(2)
    x = torch.randn(1, 2, 16, 16)
    artifact, path = _export(_Branches(), x, tmp_path, "branches")
    counts = dict(program_info(path).meta_counts)
    plan = artifact.program.method()
    calls = plan.chains[0].instructions
    assert counts["frame_args"] == max(len(c.args) for c in calls) < counts["args"]
    assert counts["frame_tensors"] < counts["tensors"]
    # the cat's list: its two items are tensors of the frame too
    assert counts["frame_refs"] == 2
