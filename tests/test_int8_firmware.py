"""Every example model in int8 on Cortex-M33 (DSP), Cortex-M4 (DSP) and Cortex-M55 (MVE) under QEMU:
device output == host C runtime output == the Python reference interpreter, bit for bit.

One .pte serves all three boards: exported without a board, its scratch buffers are sized for the largest
of the scalar, DSP and MVE kernels' needs."""

import numpy as np
import pytest
import torch

from mcu_export import examples
from mcu_export.api import export
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.flow import build_for_board
from mcu_export.firmware.stack import load_report as load_stack_report
from mcu_export.int8.interpreter import run_reference
from mcu_export.model_spec import load_model
from mcu_export.runners import run_model_firmware

pytestmark = pytest.mark.slow

BOARDS = ("mps2-an505", "mps2-an386", "corstone-300")
SOFT_DOUBLE = {"__aeabi_dmul", "__aeabi_ddiv", "__aeabi_d2f", "__aeabi_dcmpgt", "__aeabi_dcmple", "__aeabi_dcmpun"}


def _batches(like, n, seed, uniform):
    gen = torch.Generator().manual_seed(seed)
    draw = torch.rand if uniform else torch.randn
    return [(draw(like.shape, generator=gen),) for _ in range(n)]


@pytest.fixture(scope="module", params=sorted(examples.EXAMPLES))
def int8_export(request, tmp_path_factory):
    name = request.param
    model, inputs = load_model(examples.spec(name))
    uniform = name == "mnist_mlp"
    calib = _batches(inputs[0], 16, 11, uniform)
    artifact = export(model, inputs, quantize="int8", calibrate=lambda: iter(calib))
    out = artifact.save(tmp_path_factory.mktemp("int8") / name)
    (x,) = _batches(inputs[0], 1, 99, uniform)[0]
    host = artifact.run(x)
    reference = run_reference(artifact.program, [x])
    return name, artifact, out, x.numpy(), host, reference


def test_host_runtime_equals_reference(int8_export):
    _, _, _, _, host, reference = int8_export
    for h, r in zip(host, reference):
        assert h.dtype == r.dtype and h.shape == r.shape
        assert np.array_equal(h, r)


@pytest.mark.parametrize("board", BOARDS)
def test_device_equals_host_and_reference(int8_export, board):
    name, artifact, out, x, host, reference = int8_export
    build = build_for_board(out, board)
    run = run_model_firmware(build, board, [x])
    # the runner already refuses a run above the analysis (StackOverflowMeasured); said here as the contract
    assert 0 < run.stack_used <= load_stack_report(build.elf)["worst"]
    for d, h, r in zip(run.outputs, host, reference):
        assert np.array_equal(d, h), f"{name} on {board}: device differs from the host runtime"
        assert np.array_equal(d, r)
    ops = {op.op for op in run.per_op}
    assert any(op.startswith("cortex_m::quantized_") for op in ops)
    assert run.instructions_per_inference > 0
    # int8 with float I/O takes its scales as floats in integer code (util/mx_f64_f32.c), and a layout change
    # that keeps the dtype links the copy without the conversion (firmware/kernel_variants.py): no libgcc
    # soft-float double (~1.5-3.5 KB) where the FPU has none
    if board != "corstone-300":
        soft = sorted(set(Elf(build.elf).symbols()) & SOFT_DOUBLE)
        assert not soft, f"{name} on {board} links soft-float double: {soft}"
