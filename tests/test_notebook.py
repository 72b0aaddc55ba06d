"""examples/notebooks/getting_started.ipynb runs from top to bottom (nbclient, the project's Python as its kernel)
and is committed without outputs, so it never rots and never carries stale figures."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "notebooks" / "getting_started.ipynb"


def test_committed_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


@pytest.mark.slow
def test_runs_top_to_bottom(tmp_path):
    from nbclient import NotebookClient

    if shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs qemu-system-arm and arm-none-eabi-gcc (make test installs them)")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "QEMU Cortex-M33 outputs == host outputs, bit for bit" in text
    assert "operators on the" in text and "NPU top-1" in text
    images = [o for o in outputs if o.output_type in ("display_data", "execute_result") and "image/png" in o.data]
    assert all(len(i.data["image/png"]) > 1000 for i in images)
    folder = tmp_path / "out" / "notebook"
    assert (folder / "int8-profile.png").is_file()  # the first image: the run's --chart
    # then the report's figures, one per PNG `mcu-export report --png` wrote, the graph and the run's profile among them
    report_pngs = sorted(p.name for p in (folder / "int8").glob("report-*.png"))
    assert {"report-graph.png", "report-profile.png", "report-sizes.png"} <= set(report_pngs)
    assert len(images) == 1 + len(report_pngs)
    assert all(name in text for name in report_pngs)
