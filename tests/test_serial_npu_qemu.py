"""Serving firmware with the Ethos-U delegate on corstone-300 under QEMU (mcu-export sim), through a TCP socket:
an int8 Ethos-U55 export of mnist_mlp loads over the link, its NPU jobs go through the NPU seam to our simulator,
and its outputs equal the host runtime's bit for bit; the profile lists the delegate call; a CPU-only model then
runs in the same session. One boot."""

from __future__ import annotations

import time

import numpy as np
import pytest

from mcu_export.firmware.serve_project import build_serve_firmware, resolve_ops
from mcu_export.firmware.sim import SerialSim, free_tcp_port
from mcu_export.serial import SerialClient
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"),
    NEEDS_ARM_QEMU,
]
DELEGATE = "delegate"  # PROFILE's kind of a delegate call (its name: the backend id)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """name -> (export folder, .pte bytes, inputs, the host runtime's outputs): mnist_mlp for the U55 and for the
    CPU."""
    import mcu_export.api
    import mcu_export.examples
    from mcu_export.runners import runner_for

    out = {}
    for name, board in (("u55", "corstone-300"), ("cpu", None)):
        artifact = mcu_export.api.export_spec(mcu_export.examples.spec("mnist_mlp"), quantize="int8", board=board)
        folder = artifact.save(tmp_path_factory.mktemp(name))
        runner = runner_for("host")
        runner.open(folder)
        rng = np.random.default_rng(3)
        arrays = [rng.standard_normal(s.shape).astype(s.numpy_dtype) for s in runner.inputs]
        out[name] = (folder, artifact.pte, arrays, runner.run(arrays).outputs)
    return out


@pytest.fixture(scope="module")
def firmware(models, tmp_path_factory):
    """The ELF linking the operators both programs use around their delegates, and the Ethos-U backend."""
    ops = {op.qualified: op for name in ("u55", "cpu") for op in resolve_ops("model", models[name][0])}
    return build_serve_firmware(tmp_path_factory.mktemp("serve"), "corstone-300", list(ops.values())).elf


def answers_as(client, models, name) -> bool:
    _, _, arrays, expected = models[name]
    outputs, _ = client.run(arrays)
    return len(outputs) == len(expected) and all(np.array_equal(a, b) for a, b in zip(outputs, expected))


def test_u55_delegate_over_the_serial_link(firmware, models, tmp_path):
    start = time.monotonic()
    sim = SerialSim("corstone-300", firmware, tmp_path, f"socket://127.0.0.1:{free_tcp_port()}")
    assert sim.npu  # the ELF links the delegate: the sim serves the NPU seam
    try:
        with SerialClient(sim.start(), timeout=0.3) as client:
            info = client.info()
            assert info.board == "corstone-300" and info.active_slot is None
            assert client.load(models["u55"][1]) == 1
            assert answers_as(client, models, "u55")
            assert sim.seam is not None and len(sim.seam.jobs) == 1  # one delegate call, one NPU job
            profile = client.profile()
            calls = [o for o in profile.ops if o.kind == DELEGATE]
            assert [o.name for o in calls] == ["EthosUBackend"] and calls[0].ticks > 0
            assert answers_as(client, models, "u55")  # again: the scratch and the NPU's state are reused

            assert client.load(models["cpu"][1]) == 2  # a CPU-only model, in the same session
            assert answers_as(client, models, "cpu")
            assert all(o.kind != DELEGATE for o in client.profile().ops)
            assert client.load(models["u55"][1]) == 3 and answers_as(client, models, "u55")
    finally:
        sim.stop()
    assert sim.npu_errors == []
    assert time.monotonic() - start < 60
