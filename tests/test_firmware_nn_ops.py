"""The fp32 neural-net kernels in firmware: one model using every one of them (transposed convolution 1-D and
2-D, layer norm, GELU both ways, leaky_relu, ELU, adaptive max pooling, nearest and bilinear upsampling,
log_softmax), built for corstone-300 and run under QEMU, against torch and the host C runtime."""

import shutil

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from mcu_export import api
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.model_project import build_model_firmware, model_ops
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

    def forward(self, x):
        y = F.leaky_relu(self.up(x), 0.1)  # [1,6,8,8]
        y = F.gelu(self.norm(y)) + F.gelu(y, approximate="tanh")
        y = F.adaptive_max_pool2d(F.elu(y), (3, 5))  # [1,6,3,5]
        y = F.interpolate(y, scale_factor=2.0) + F.interpolate(y, size=(6, 10), mode="bilinear", align_corners=True)
        z = self.line(y.mean(dim=2))  # [1,4,20]
        return F.log_softmax(z, dim=1)


def test_nn_ops_model_on_corstone_300(tmp_path):
    torch.manual_seed(0)
    model = NeuralNetOps().eval()
    x = torch.randn(1, 3, 4, 4, generator=torch.Generator().manual_seed(1))
    artifact = api.export(model, (x,))
    build = build_model_firmware(artifact.save(tmp_path / "out"), "corstone-300", model=artifact)
    ops = model_ops(artifact.program.method("forward"))
    kernels = {op.kernel for op in ops}
    for name in ("convolution", "native_layer_norm", "gelu", "leaky_relu", "elu", "adaptive_max_pool2d",
                 "upsample_nearest2d_vec", "upsample_bilinear2d_vec", "log_softmax"):  # fmt: skip
        assert any(f"mx_k_aten_{name}_out" == k for k in kernels), name
    assert {k for k in kernels} <= set(Elf(build.elf).symbols())

    run = run_model_firmware(build, "corstone-300", [x.numpy()])
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(run.outputs[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(run.outputs[0], artifact.run(x)[0], rtol=1e-5, atol=1e-6)
    assert [o.op for o in run.per_op if "convolution" in o.op] == ["aten::convolution.out"] * 2
