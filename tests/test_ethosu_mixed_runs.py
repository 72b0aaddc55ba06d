"""A graph that goes NPU -> CPU -> NPU, run for real: the softmax over channels stays on the CPU in fp32 (no int8
kernel and no NPU takes it), the convolutions before and after it are two Ethos-U55 delegates. The host runtime
(whose NPU is our simulator), the corstone-300 firmware on QEMU (whose NPU jobs go to the simulator over the seam)
and the int8 Python reference (whose delegates are the TOSA graphs, run by tosa_reference_model) agree bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from mcu_export.pte import program as P
from npu_test_tools import FIRMWARE_TOOLS, needs  # tests/support

pytest.importorskip("tosa_serializer")
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")]

BOARD = "corstone-300"
SHAPE = (1, 4, 8, 8)


class SoftmaxBetweenConvolutions(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(4, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return self.b(torch.softmax(torch.relu(self.a(x)), dim=1))


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    from mcu_export.api import export

    torch.manual_seed(0)
    model = SoftmaxBetweenConvolutions().eval()
    gen = torch.Generator().manual_seed(5)
    calibration = [(torch.randn(SHAPE, generator=gen),) for _ in range(8)]
    artifact = export(model, calibration[0], quantize="int8", calibrate=calibration, board=BOARD)
    return artifact, artifact.save(tmp_path_factory.mktemp("mixed") / "out")


def inputs(seed: int):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SHAPE).astype(np.float32) * (1 + seed)]  # seed 2: large enough to saturate


def test_the_program_is_npu_then_cpu_then_npu(mixed):
    artifact, _ = mixed
    plan = artifact.program.method()
    kinds = []
    for ins in plan.chains[0].instructions:
        if isinstance(ins, P.DelegateCall):
            kinds.append("npu")
        elif isinstance(ins, P.KernelCall) and "softmax" in plan.operators[ins.op_index].name:
            kinds.append("softmax")
    assert kinds == ["npu", "softmax", "npu"]
    assert len(artifact.npu_graphs) == 2


def test_host_runtime_equals_the_reference(mixed):
    from mcu_export.ethosu.reference import tosa_delegate
    from mcu_export.int8.interpreter import run_reference
    from mcu_export.runners import runner_for

    artifact, out = mixed
    host = runner_for("host")
    host.open(out)
    for seed in range(3):
        x = inputs(seed)
        (want,) = run_reference(artifact.program, x, delegate=tosa_delegate(artifact.npu_graphs))
        assert np.unique(want).size > 16  # a real output, not a saturated or constant one
        np.testing.assert_array_equal(host.run(x).outputs[0], want, err_msg=f"seed {seed}")


@needs("qemu-system-arm", *FIRMWARE_TOOLS)
def test_qemu_firmware_equals_the_host_runtime(mixed):
    from mcu_export.runners import runner_for

    _, out = mixed
    x = inputs(2)
    on_qemu = runner_for(BOARD, "qemu", timeout=120.0)
    on_qemu.open(out)
    run = on_qemu.run(x)
    assert run.instructions_per_inference is not None  # the firmware ran the CPU part (the softmax) itself
    host = runner_for("host")
    host.open(out)
    np.testing.assert_array_equal(run.outputs[0], host.run(x).outputs[0])
