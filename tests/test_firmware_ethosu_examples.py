"""Every example model, delegated to corstone-300's Ethos-U55 (`mcu-export export --quantize int8 --board
corstone-300`): the firmware on QEMU (its NPU jobs on our simulator over the seam), the host runtime (the same
simulator behind mx_run's register file) and the int8 Python reference (the delegates on TOSA's reference model)
give the same outputs, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from mcu_export.examples import EXAMPLES, spec
from npu_test_tools import FIRMWARE_TOOLS, needs  # tests/support

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"),
    needs("qemu-system-arm", *FIRMWARE_TOOLS),
]

BOARD = "corstone-300"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_on_the_npu_in_firmware_equals_host_and_reference(name, tmp_path):
    pytest.importorskip("tosa_serializer")
    from mcu_export.api import export_spec
    from mcu_export.ethosu.reference import tosa_delegate
    from mcu_export.firmware.flow import build_for_board
    from mcu_export.int8.interpreter import run_reference
    from mcu_export.pte import program as P
    from mcu_export.runners import runner_for

    artifact = export_spec(spec(name), quantize="int8", board=BOARD)
    plan = artifact.program.method()
    assert any(isinstance(i, P.DelegateCall) for i in plan.chains[0].instructions), "delegated to the NPU"
    out = artifact.save(tmp_path / "out")
    rng = np.random.default_rng(3)
    x = [rng.standard_normal(tuple(plan.values[v].sizes)).astype(np.float32) for v in plan.inputs]
    want = run_reference(artifact.program, x, delegate=tosa_delegate(artifact.npu_graphs))
    host = runner_for("host")
    host.open(out)
    run = runner_for(BOARD, "qemu", timeout=120.0, profile=False).use_build(build_for_board(out, BOARD)).run(x)
    for got_fw, got_host, expected in zip(run.outputs, host.run(x).outputs, want):
        np.testing.assert_array_equal(got_host, expected)
        np.testing.assert_array_equal(got_fw, expected)
