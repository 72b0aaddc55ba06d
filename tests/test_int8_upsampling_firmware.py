"""A small decoder of the two int8 upsampling kernels (a strided, output-padded ConvTranspose2d as
quantized_transpose_conv2d, bilinear upsampling both ways as quantized_upsample_bilinear2d), exported with
fallback=False: on QEMU for Cortex-M55 (MVE), Cortex-M33 and Cortex-M4 (DSP) equal to the host C runtime and the
reference interpreter, bit for bit."""

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from int8_export_check import batches, check_int8
from mcu_export.firmware.flow import build_for_board
from mcu_export.int8.interpreter import run_reference
from mcu_export.runners import run_model_firmware

SHAPES = [(1, 3, 8, 8)]
OPS = {"cortex_m::quantized_transpose_conv2d", "cortex_m::quantized_upsample_bilinear2d"}


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)  # 4x4
        self.up = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1)  # 8x8
        self.head = nn.Conv2d(6, 4, 1)

    def forward(self, x):
        y = torch.relu(self.up(torch.relu(self.down(x))))
        y = F.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)  # 16x16
        return self.head(F.interpolate(y, size=(11, 13), mode="bilinear", align_corners=True))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(6)
    artifact = check_int8(Decoder().eval(), SHAPES)
    inputs = batches(SHAPES, 1, 99)[0]
    return artifact, artifact.save(tmp_path_factory.mktemp("upsampling")), inputs


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
    assert OPS <= {op.op.split(".")[0] for op in run.per_op}
