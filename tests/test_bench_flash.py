"""The flash table's split (mcu_export/bench_flash.py, mcu_export/pte/parts.py) on a real int8 export and its
firmware: the .pte's parts sum to its bytes, the figures' parts to the firmware's flash."""

import json
import shutil

import pytest
import torch

from mcu_export.pte import program as P
from mcu_export.pte.parts import pte_parts
from mcu_export.pte.writer import write_program


class SmallConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


@pytest.fixture(scope="module")
def int8_export():
    from mcu_export.api import export

    torch.manual_seed(0)
    x = (torch.randn(1, 3, 8, 8),)
    calib = [(torch.randn(1, 3, 8, 8),) for _ in range(4)]
    return export(SmallConv().eval(), x, quantize="int8", calibrate=calib, board="corstone-300", backend="cortex-m")


def test_pte_parts_sum_to_the_file(int8_export):
    pte = int8_export.pte
    parts = pte_parts(pte)
    assert parts["weights"] + parts["delegates"] + parts["metadata"] == len(pte)
    assert parts["delegates"] == 0
    # Weights: every constant, each 16-byte aligned except the last; nothing else.
    consts = int8_export.program.constants()[1:]
    assert sum(len(c) for c in consts) <= parts["weights"] < sum((len(c) + 15) // 16 * 16 for c in consts) + 16
    assert 0 < parts["metadata"] < 4096


def test_pte_parts_of_inline_constants():
    t = P.Tensor(P.ScalarType.FLOAT, [4], [0], data_buffer_idx=1)
    plan = P.ExecutionPlan("forward", [t], [], [0], [P.Chain([], [0], [])], [], [0])
    prog = P.Program(execution_plan=[plan], constant_buffer=[b"", bytes(16)])
    for where in ("inline", "segment"):
        data = write_program(prog, constants=where)
        parts = pte_parts(data)
        assert parts["weights"] == 16 and parts["metadata"] == len(data) - 16


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs gcc-arm-none-eabi")
def test_flash_figures_sum_to_the_firmware_flash(int8_export, tmp_path):
    from mcu_export.bench_flash import flash_figures
    from mcu_export.firmware.flow import build_for_board

    out = int8_export.save(tmp_path / "small")
    build_for_board(out, "corstone-300")
    sizes = json.loads((out / "report.json").read_text())["firmware"]["corstone-300"]
    f = flash_figures(sizes, int8_export.pte)
    assert f["code B"] == f["runtime B"] + f["kernels B"] + f["libc+other B"]
    assert f["code B"] + f["weights B"] + f["pte meta B"] + f["tables B"] == f["flash B"] == sizes["flash_bytes"]
    assert f["runtime B"] > 0 and f["kernels B"] > 0 and f["tables B"] >= 0
    assert f["pte/weights"] == pytest.approx(len(int8_export.pte) / f["weights B"])
