"""The fp32 neural-net kernels in firmware: one model using every one of them (transposed convolution 1-D and
2-D, layer norm, GELU both ways, leaky_relu, ELU, adaptive max pooling, nearest and bilinear upsampling,
clamp by a tensor, log_softmax), built for corstone-300 and run under QEMU, against torch and the host C
runtime; and an int8 model whose nearest upsampling runs on int8 bytes, bit for bit the host runtime's and the
int8 reference's."""

import shutil

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from mcu_export import api
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.model_project import build_model_firmware, model_ops
from mcu_export.int8.interpreter import run_reference
from mcu_export.runners import run_model_firmware

pytestmark = [
    pytest.mark.skipif(
        any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
        reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
    ),
    pytest.mark.slow,
]


class NeuralNetOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(3, 6, 3, stride=2, padding=1, output_padding=1, groups=3)
        self.norm = nn.LayerNorm([8, 8])
        self.line = nn.ConvTranspose1d(6, 4, 4, stride=2, padding=1)
        self.register_buffer("floor", torch.linspace(-2.0, -0.5, 4).reshape(4, 1))

    def forward(self, x):
        y = F.leaky_relu(self.up(x), 0.1)  # [1,6,8,8]
        y = F.gelu(self.norm(y)) + F.gelu(y, approximate="tanh")
        y = F.adaptive_max_pool2d(F.elu(y), (3, 5))  # [1,6,3,5]
        y = F.interpolate(y, scale_factor=2.0) + F.interpolate(y, size=(6, 10), mode="bilinear", align_corners=True)
        z = self.line(y.mean(dim=2))  # [1,4,20]
        return F.log_softmax(torch.clamp(z, min=self.floor), dim=1)


def test_nn_ops_model_on_corstone_300(tmp_path):
    torch.manual_seed(0)
    model = NeuralNetOps().eval()
    x = torch.randn(1, 3, 4, 4, generator=torch.Generator().manual_seed(1))
    artifact = api.export(model, (x,))
    build = build_model_firmware(artifact.save(tmp_path / "out"), "corstone-300", model=artifact)
    ops = model_ops(artifact.program.method("forward"))
    kernels = {op.kernel for op in ops}
    for name in ("convolution", "native_layer_norm", "gelu", "leaky_relu", "elu", "adaptive_max_pool2d",
                 "upsample_nearest2d_vec", "upsample_bilinear2d_vec", "log_softmax", "clamp_Tensor"):  # fmt: skip
        assert any(f"mx_k_aten_{name}_out" == k for k in kernels), name
    assert {k for k in kernels} <= set(Elf(build.elf).symbols())

    run = run_model_firmware(build, "corstone-300", [x.numpy()])
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(run.outputs[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(run.outputs[0], artifact.run(x)[0], rtol=1e-5, atol=1e-6)
    assert [o.op for o in run.per_op if "convolution" in o.op] == ["aten::convolution.out"] * 2


def test_int8_upsample_on_corstone_300(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1),
        nn.ReLU(),
        nn.Upsample(scale_factor=(2.0, 1.5)),
        nn.Conv2d(6, 4, 3, padding=1),
    ).eval()
    gen = torch.Generator().manual_seed(3)
    calib = [(torch.randn(1, 3, 5, 6, generator=gen),) for _ in range(8)]
    artifact = api.export(model, calib[0], quantize="int8", calibrate=calib)
    ops = [op.qualified for op in artifact.program.method("forward").operators]
    assert "aten::upsample_nearest2d.vec_out" in ops and "aten::convolution.out" not in ops  # no fp32 fallback
    build = build_model_firmware(artifact.save(tmp_path / "out"), "corstone-300", model=artifact)
    (x,) = calib[-1]
    run = run_model_firmware(build, "corstone-300", [x.numpy()])
    assert np.array_equal(run.outputs[0], artifact.run(x)[0])
    assert np.array_equal(run.outputs[0], run_reference(artifact.program, [x])[0])
