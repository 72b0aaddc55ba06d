"""Semantic mutants on the device: serving firmware (runtime_c/firmware/serve_main.c) for corstone-300 under
QEMU (Cortex-M55) loads programs over the serial link with the same C loader as mx_run. One boot is fed a good
int8 program, then mutants of it (a constant as a kernel's out, two aliasing plans, impossible quantization,
a pool window whose work is over the firmware's budget): each must be refused at LOAD_END with its own
runtime error as the device's status, the device must keep answering (a HardFault leaves it mute: the link
would be lost) with the good program still active, and a good program loads and runs afterwards, bit for bit
the host runtime's outputs."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pte_mutants as MU  # noqa: E402  (tests/support, on sys.path via conftest)
from mcu_export.errors import DeviceError
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"),
    NEEDS_ARM_QEMU,
]

SOURCE = "mixer-i8"
BOARD = "corstone-300"
# The catalog's own pairings, where the program fits the device; the window is the device's size: 180x180 over
# a 359x359 input is 1.05e9 window reads (over the serving firmware's MX_SERVE_MAX_COST, 2e8, in mx_serve.h), in
# 161 KB of arena (the host's 400x400 needs 0.8 MB, more than the work area).
BY_NAME = {m.name: m for m in MU.MUTANTS}
DEVICE_MUTANTS = [
    BY_NAME["int8-conv-out-is-constant"],
    BY_NAME["int8-conv-scratch-over-its-input"],
    BY_NAME["int8-quantized-input-under-a-later-intermediate"],
    BY_NAME["int8-conv-multiplier-negative"],
    BY_NAME["int8-linear-multiplier-negative"],
    MU.Mutant(
        "int8-avgpool-window-180",
        SOURCE,
        "MX_ERR_TOO_COSTLY",
        lambda e: MU.huge_pool(e, "cortex_m::quantized_avg_pool2d.out", np.int8, True, window=180),
    ),
]


def error_codes() -> dict:
    from mcu_export.assets import asset_dir

    text = (asset_dir("runtime_c") / "include" / "mx" / "errors.def").read_text()
    return {name: int(code, 16) for name, code in re.findall(r"^X\(\s*(\w+)\s*,\s*(0x[0-9a-fA-F]+)", text, re.M)}


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """(.pte, inputs, the host runtime's outputs) of the source program."""
    from mcu_export.runners.host import run_pte

    source = MU.sources()[SOURCE]
    path = tmp_path_factory.mktemp("good") / "model.pte"
    path.write_bytes(source.pte)
    return source.pte, source.inputs, run_pte(path, source.inputs)


@pytest.fixture(scope="module")
def elf(good, tmp_path_factory):
    """Serving firmware linking the source program's operators and no others."""
    from mcu_export.firmware.serve_project import build_serve_firmware
    from mcu_export.ops.table import BY_QUALIFIED
    from mcu_export.pte.reader import read_program

    plan = read_program(good[0]).execution_plan[0]
    ops = {BY_QUALIFIED[o.qualified] for o in plan.operators}
    out = tmp_path_factory.mktemp(BOARD)
    return build_serve_firmware(out, BOARD, sorted(ops, key=lambda o: o.qualified)).elf


def answers(client, good) -> bool:
    _, inputs, expected = good
    outputs, _ = client.run(inputs)
    return len(outputs) == len(expected) and all(np.array_equal(a, b) for a, b in zip(outputs, expected))


def test_device_refuses_each_mutant_and_keeps_serving(elf, good, tmp_path):
    from mcu_export.firmware.sim import SerialSim, free_tcp_port
    from mcu_export.serial import SerialClient

    codes = error_codes()
    port = free_tcp_port()
    sim = SerialSim(BOARD, elf, tmp_path, f"socket://127.0.0.1:{port}")
    url = sim.start()
    refused = {}
    try:
        with SerialClient(url, timeout=0.5) as client:
            assert client.load(good[0]) == 1
            assert answers(client, good)
            for mutant in DEVICE_MUTANTS:
                before = client.info()
                try:
                    client.load(mutant.build(good[0]))
                    refused[mutant.name] = "loaded"
                    client.load(good[0])  # a runtime that takes it is failing: carry on from the good program
                except DeviceError as e:
                    refused[mutant.name] = e.status
                    after = client.info()  # still answering: no fault; the good program still active
                    assert (after.active_slot, after.generation) == (before.active_slot, before.generation)
            assert answers(client, good)  # the refusals left the good program active
            generation = client.info().generation
            assert client.load(good[0]) == generation + 1  # and a good program still loads and runs
            assert answers(client, good)
    finally:
        sim.stop()
    want = {m.name: codes[m.error] for m in DEVICE_MUTANTS}

    def hexed(d):
        return {k: (f"0x{v:04x}" if isinstance(v, int) else v) for k, v in d.items()}

    assert refused == want, f"device statuses {hexed(refused)}, want {hexed(want)}"
