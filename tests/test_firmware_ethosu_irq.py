"""The NPU's interrupt in model firmware (boards/ethosu/npu_irq.c, npu_platform.c): the vector table gains the
external entries up to the board's npu_irq, whose entry is the NPU's handler, and the firmware waits for the
interrupt instead of polling. On QEMU the seam pends the line when the host's reply is back, so a run that ends
proves the NVIC set-up, the vector and the handler: the driver's wait in interrupt mode ends only when the handler
has run (boards/ethosu/ethosu_driver.c wait_job), and the budget is far beyond the test's timeout."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from mcu_export.boards import load_board
from mcu_export.examples import spec
from npu_test_tools import FIRMWARE_TOOLS, missing, needs  # tests/support

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")]

BOARD = "corstone-300"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """mnist_mlp in int8 for corstone-300 (wholly on the NPU) and its firmware: (export folder, build)."""
    pytest.importorskip("tosa_serializer")
    from mcu_export.api import export_spec
    from mcu_export.firmware.flow import build_for_board

    if missing(*FIRMWARE_TOOLS):
        pytest.skip(f"needs {', '.join(missing(*FIRMWARE_TOOLS))}")
    out = export_spec(spec("mnist_mlp"), quantize="int8", board=BOARD).save(tmp_path_factory.mktemp("irq") / "out")
    return out, build_for_board(out, BOARD)


@needs(*FIRMWARE_TOOLS)
def test_the_vector_table_sends_the_npu_line_to_its_handler(exported):
    from mcu_export.firmware.elf import Elf

    _, build = exported
    irq = load_board(BOARD).npu_irq
    elf = Elf(build.elf)
    table = elf.section_bytes(".vectors")
    entries = struct.unpack_from(f"<{16 + irq + 1}I", table)
    handler = elf.symbols()["mx_npu_irq"].address
    assert entries[16 + irq] == handler | 1  # a Thumb function
    assert entries[16 : 16 + irq] == (0,) * irq  # no other line is taken: a stray one faults
    assert entries[1] == elf.symbols()["mx_reset_handler"].address | 1  # the core's vectors come first
    vectors = elf.symbols()["mx_external_vectors"]
    assert vectors.address == elf.symbols()["mx_vectors"].address + 64 and vectors.size == 4 * (irq + 1)


@needs("qemu-system-arm", *FIRMWARE_TOOLS)
def test_on_qemu_the_run_completes_through_the_interrupt(exported):
    from mcu_export.runners import runner_for

    out, build = exported
    x = np.random.default_rng(1).random((1, 1, 28, 28), dtype=np.float32)
    run = runner_for(BOARD, "qemu", timeout=60.0, profile=False).use_build(build).run([x])
    host = runner_for("host")
    host.open(out)
    np.testing.assert_array_equal(run.outputs[0], host.run([x]).outputs[0])
