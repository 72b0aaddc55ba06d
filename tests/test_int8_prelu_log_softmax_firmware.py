"""int8 PReLU (per channel and one weight) and log_softmax under QEMU: one classifier exported with no fp32
fallback runs on Cortex-M55 (corstone-300, MVE) and Cortex-M4 (mps2-an386, DSP), and the device output
equals the host C runtime and the reference interpreter bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import int8_model_checks as M
from mcu_export.api import export
from mcu_export.firmware.flow import build_for_board
from mcu_export.int8.interpreter import run_reference
from mcu_export.runners import run_model_firmware

pytestmark = pytest.mark.slow

BOARDS = ("corstone-300", "mps2-an386")
NEW_KERNELS = {
    "cortex_m::quantized_prelu.out",
    "cortex_m::quantized_activation.out",
    "cortex_m::log_softmax.out",
}


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.act = nn.Conv2d(3, 6, 3, padding=1), nn.PReLU(6)
        self.fc, self.act_fc, self.head = nn.Linear(6 * 4 * 4, 24), nn.PReLU(init=0.1), nn.Linear(24, 10)
        with torch.no_grad():
            self.act.weight.copy_(torch.tensor([0.25, -0.5, 0.0, 1.5, 0.1, 0.6]))

    def forward(self, x):
        h = nn.functional.max_pool2d(self.act(self.conv(x)), 2)
        return torch.log_softmax(self.head(self.act_fc(self.fc(h.flatten(1)))), dim=-1)


SHAPE = (2, 3, 8, 8)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(12)
    model = Classifier().eval()
    calib = M.data(SHAPE, 16, 1)
    artifact = export(model, calib[0], quantize="int8", calibrate=lambda: iter(calib), fallback=False)
    out = artifact.save(tmp_path_factory.mktemp("prelu_log_softmax") / "classifier")
    (x,) = M.data(SHAPE, 1, 99)[0]
    host = artifact.run(x)
    reference = run_reference(artifact.program, [x])
    assert M.cosine(reference[0], model(x).detach().numpy()) >= 0.99
    return artifact, out, x.numpy(), host, reference


def test_host_equals_reference(exported):
    artifact, _out, _x, host, reference = exported
    assert np.array_equal(host[0], reference[0])
    assert NEW_KERNELS <= set(M.ops(artifact.program))


@pytest.mark.parametrize("board", BOARDS)
def test_device_equals_host_and_reference(exported, board):
    _artifact, out, x, host, reference = exported
    run = run_model_firmware(build_for_board(out, board), board, [x])
    assert np.array_equal(run.outputs[0], host[0]), f"{board}: device differs from the host runtime"
    assert np.array_equal(run.outputs[0], reference[0])
    assert NEW_KERNELS <= {op.op for op in run.per_op}
