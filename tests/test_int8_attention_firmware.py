"""The int8 kernels of attention, LayerNorm and the newer lookup tables under QEMU: one model (LayerNorm,
q·kᵀ and weights·v batch matmuls, softmax, gelu, silu, leaky_relu, elu) exported with no fp32 fallback runs
on Cortex-M55 (MVE: kernel sums in the batch matmul's scratch), Cortex-M33 and Cortex-M4 (DSP), and the
device output equals the host C runtime and the reference interpreter bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import int8_model_checks as M
from mcu_export.api import export
from mcu_export.firmware.flow import build_for_board
from mcu_export.int8.interpreter import run_reference
from mcu_export.runners import run_model_firmware

pytestmark = pytest.mark.slow

BOARDS = ("corstone-300", "mps2-an505", "mps2-an386")
NEW_KERNELS = {
    "cortex_m::quantized_batch_matmul.out",
    "cortex_m::quantized_layer_norm.out",
    "cortex_m::quantized_activation.out",
}


class TinyBlock(nn.Module):
    def __init__(self, d=24):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 2 * d), nn.Linear(2 * d, 6)

    def forward(self, x):
        h = self.ln(x)
        weights = torch.softmax(torch.bmm(self.q(h), self.k(h).transpose(1, 2)), dim=-1)
        a = torch.bmm(weights, self.v(h))
        y = F.gelu(self.up(a)) + F.silu(self.up(h))
        return self.down(F.leaky_relu(y, 0.05) + F.elu(y))


SHAPE = (2, 7, 24)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(4)
    model = TinyBlock().eval()
    calib = M.data(SHAPE, 16, 1)
    artifact = export(model, calib[0], quantize="int8", calibrate=lambda: iter(calib), fallback=False)
    out = artifact.save(tmp_path_factory.mktemp("attention_int8") / "tiny_block")
    (x,) = M.data(SHAPE, 1, 99)[0]
    host = artifact.run(x)
    reference = run_reference(artifact.program, [x])
    assert M.cosine(reference[0], model(x).detach().numpy()) >= 0.99
    return artifact, out, x.numpy(), host, reference


def test_host_equals_reference(exported):
    _artifact, _out, _x, host, reference = exported
    assert np.array_equal(host[0], reference[0])
    assert NEW_KERNELS <= set(M.ops(_artifact.program))


@pytest.mark.parametrize("board", BOARDS)
def test_device_equals_host_and_reference(exported, board):
    _artifact, out, x, host, reference = exported
    run = run_model_firmware(build_for_board(out, board), board, [x])
    assert np.array_equal(run.outputs[0], host[0]), f"{board}: device differs from the host runtime"
    assert np.array_equal(run.outputs[0], reference[0])
    assert NEW_KERNELS <= {op.op for op in run.per_op}
