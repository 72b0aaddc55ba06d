"""The host's line for a device refusing a program whose delegate's backend the firmware does not link (0x0309):
it names the delegate id from the .pte being loaded (mcu_export/serial/refusal.py). End to end on the host's
mx_serial_device (CPU only, as a board without an NPU) with an Ethos-U55 export, and the wording alone; and which
serving projects link the backend that avoids the refusal (rendered, not built)."""

from __future__ import annotations

import pytest

from mcu_export.errors import DeviceError
from mcu_export.serial import SerialClient
from mcu_export.serial.refusal import ARENA_MISSING, BACKEND_MISSING, explain

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")

LINE = (
    "device refused: delegate 'EthosUBackend' has no backend in this firmware (build it with --serve on a board "
    "with an NPU, or export with --backend cortex-m)"
)


@pytest.fixture(scope="module")
def u55_image():
    import mcu_export.api
    import mcu_export.examples

    artifact = mcu_export.api.export_spec(mcu_export.examples.spec("mnist_mlp"), quantize="int8", board="corstone-300")
    return artifact.pte


def test_the_line_names_the_delegate(u55_image):
    from mcu_export.pte import program as P
    from mcu_export.pte.reader import read_program

    plan = read_program(u55_image).method("forward")
    call = next(i for i, ins in enumerate(plan.chains[0].instructions) if isinstance(ins, P.DelegateCall))
    assert explain(u55_image, BACKEND_MISSING, -1) == LINE
    assert explain(u55_image, BACKEND_MISSING, call) == LINE
    assert explain(u55_image, 0x0301, call) is None  # the device's own line names the operator
    assert explain(u55_image, ARENA_MISSING, call).startswith("device refused: delegate 'EthosUBackend' is called")
    assert explain(b"not a program", BACKEND_MISSING, -1) is None


@pytest.mark.slow
def test_a_cpu_only_device_refuses_it_by_name(u55_image, tmp_path):
    from mcu_export.host_runtime import build_serial_device
    from serial_link import PtyLink

    link = PtyLink(build_serial_device(), tmp_path / "slots.bin")
    try:
        with SerialClient(link.port, timeout=0.3) as client:
            with pytest.raises(DeviceError) as refused:
                client.load(u55_image)
            assert str(refused.value).startswith(LINE + "; LOAD_END failed on the device: 0x0309")
            assert (refused.value.status, client.info().active_slot) == (BACKEND_MISSING, None)
    finally:
        link.close()


def test_serving_projects_link_the_npu_where_the_board_has_one(tmp_path):
    """Rendered only (fast): on a board with an NPU the project has the delegate in its backend table, the driver,
    the platform and its defines, and the work area and slots where the NPU reaches; without one, none of it."""
    from mcu_export.boards import load_firmware_board
    from mcu_export.firmware.serve_project import render_serve_project, resolve_ops, serve_layout

    ops = resolve_ops("aten::add.out")
    for name in ("corstone-300", "corstone-320", "mps2-an505"):
        board = load_firmware_board(name)
        project = render_serve_project(board, tmp_path, ops)
        npu = board.npu_base is not None
        assert (project / "npu" / "npu_platform.c").is_file() == npu
        assert (project / "serve" / "serve_npu.c").is_file() == npu
        assert ("mx_ethosu_backend" in (project / "serve" / "kernel_table.c").read_text()) == npu
        assert ("MX_NPU_BASE" in (project / "CMakeLists.txt").read_text()) == npu
        if npu:
            layout = serve_layout(board)
            assert {layout.work_region, layout.slot_region} <= set(board.npu_reachable), name
