"""One model of the int8 ops that used to fall back to fp32 (Conv1d and depthwise Conv1d, MaxPool1d,
standalone BatchNorm1d/2d, squeeze-and-excite and other broadcasting add/sub/mul, number operands, mean and
sum over any dims, minimum/maximum, division, cat as the output), exported with fallback=False: on QEMU for Cortex-M55 (MVE),
Cortex-M33 and Cortex-M4 (DSP) equal to the host C runtime and the reference interpreter, bit for bit."""

import numpy as np
import pytest
import torch
from torch import nn

from int8_export_check import batches, check_int8
from mcu_export.firmware.flow import build_for_board
from mcu_export.int8.interpreter import run_reference
from mcu_export.runners import run_model_firmware

SHAPES = [(1, 4, 24), (1, 3, 6, 6)]


class NoFallback(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn_seq, self.c1 = nn.BatchNorm1d(4), nn.Conv1d(4, 8, 3, padding=1)
        self.dw, self.mp = nn.Conv1d(8, 8, 5, padding=2, groups=8), nn.MaxPool1d(2)
        self.bn_img, self.conv = nn.BatchNorm2d(3), nn.Conv2d(3, 8, 3, padding=1)
        self.fc1, self.fc2 = nn.Conv2d(8, 4, 1), nn.Conv2d(4, 8, 1)
        self.lin = nn.Linear(8, 6)
        torch.manual_seed(5)
        for bn in (self.bn_seq, self.bn_img):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)

    def forward(self, seq, img):
        y = self.mp(torch.relu(self.dw(torch.relu(self.c1(self.bn_seq(seq))))))
        centred = y - y.mean(-1, keepdim=True)
        spread = (centred * centred).mean(-1)
        z = torch.relu(self.conv(self.bn_img(img)))
        z = z * torch.sigmoid(self.fc2(torch.relu(self.fc1(z.mean((2, 3), keepdim=True)))))
        pooled = z.sum((2, 3)) * 0.25
        tokens = z.flatten(2).permute(0, 2, 1).mean(1)
        return torch.cat(
            [
                self.lin(spread + torch.maximum(pooled, spread)),
                torch.minimum(1 - tokens, tokens / (torch.sigmoid(tokens) + 0.5)),
            ],
            dim=1,
        )


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    artifact = check_int8(NoFallback().eval(), SHAPES)
    inputs = batches(SHAPES, 1, 99)[0]
    return artifact, artifact.save(tmp_path_factory.mktemp("no_fallback")), inputs


@pytest.mark.slow  # exporting the model calibrates it (~20 s)
def test_host_runtime_equals_reference(exported):
    artifact, _, inputs = exported
    for h, r in zip(artifact.run(*inputs), run_reference(artifact.program, list(inputs))):
        assert np.array_equal(h, r)


@pytest.mark.slow
@pytest.mark.parametrize("board", ["corstone-300", "mps2-an505", "mps2-an386"])
def test_device_equals_host_and_reference(exported, board):
    artifact, out, inputs = exported
    arrays = [x.numpy() for x in inputs]
    run = run_model_firmware(build_for_board(out, board), board, arrays)
    host, reference = artifact.run(*inputs), run_reference(artifact.program, list(inputs))
    for d, h, r in zip(run.outputs, host, reference):
        assert np.array_equal(d, h), f"{board}: device differs from the host runtime"
        assert np.array_equal(d, r)
    ops = {op.op for op in run.per_op}
    called = {o.split(".")[0] for o in ops}
    assert {
        "cortex_m::quantized_depthwise_conv2d",
        "cortex_m::quantized_mul",
        "cortex_m::maximum",
        "cortex_m::quantized_div",
    } <= called
