"""The overlap rules on the device paths: the DSP (Cortex-M33, Cortex-M4) and MVE (Cortex-M55) code of every kernel
with a rule reads and writes in other orders than the host's scalar code, so each tightest placement of
tests/test_overlap.py runs again under QEMU. One boot of serving firmware per board (all the cases' operators
linked); over the serial link each placed program is loaded and run, and its outputs must equal, bit for bit, the
host runtime's outputs of the same program planned apart (fp32 ones to rounding: see _same)."""

from __future__ import annotations

import numpy as np
import pytest

import overlap_cases as OC  # noqa: E402  (tests/support, on sys.path via conftest)
from mcu_export.pte.writer import write_program
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"),
    NEEDS_ARM_QEMU,
]

BOARDS = ("corstone-300", "mps2-an505", "mps2-an386")  # MVE, DSP (M33), DSP (M4)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """(case, placement, .pte bytes, the host runtime's outputs of the plan apart) for every placement."""
    from mcu_export.runners.host import run_pte

    out = []
    tmp = tmp_path_factory.mktemp("apart")
    for case in (c for c in OC.CASES if c.overlaps):
        apart = OC.export(case, overlap=False)
        path = tmp / f"{case.name}.pte"
        path.write_bytes(write_program(apart))
        want = run_pte(path, OC.arrays(case))
        for where in ("below", "above"):
            placed = OC.placed(apart, case.op, where)
            if placed is not None:
                out.append((case, where, write_program(placed), want))
    return out


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """int8 programs: to the bit. fp32: to rounding, since a compiler may run an elementwise loop vectorized when its
    operands are apart and scalar when they overlap (its own alias check), and contract differently in each."""
    if a.dtype != np.float32:
        return np.array_equal(a, b)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("board", BOARDS)
def test_tightest_placements_on_the_device_paths(programs, board, tmp_path):
    from mcu_export.firmware.serve_project import build_serve_firmware
    from mcu_export.firmware.sim import SerialSim, free_tcp_port
    from mcu_export.ops.table import BY_QUALIFIED
    from mcu_export.pte.reader import read_program
    from mcu_export.serial import SerialClient

    ops = set()
    for _, _, pte, _ in programs:
        ops |= {BY_QUALIFIED[o.qualified] for o in read_program(pte).execution_plan[0].operators}
    elf = build_serve_firmware(tmp_path / "fw", board, sorted(ops, key=lambda o: o.qualified)).elf
    sim = SerialSim(board, elf, tmp_path, f"socket://127.0.0.1:{free_tcp_port()}")
    url = sim.start()
    wrong = []
    try:
        with SerialClient(url, timeout=0.5) as client:
            for case, where, pte, want in programs:
                client.load(pte)
                got, _ = client.run(OC.arrays(case))
                if not all(_same(a, b) for a, b in zip(got, want)):
                    wrong.append(f"{case.name} {where}: {got} != {want}")
    finally:
        sim.stop()
    assert not wrong, f"{board}: outputs differ from the plan apart for {wrong}"
    assert len(programs) >= 30
