"""The wheel carries everything a pip-installed mcu-export needs, under the one `mcu_export` namespace."""

import subprocess
import sys
import zipfile

import pytest

from cli_runner import ROOT


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0 and "No module named" in proc.stderr and "setuptools" in proc.stderr:
        pytest.skip("setuptools is not installed in this environment")
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = out.glob("mcu_export-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return {name: (zf.read(name) if name.endswith("entry_points.txt") else b"") for name in zf.namelist()}


def test_wheel_has_one_namespace(wheel_names):
    tops = {name.split("/")[0] for name in wheel_names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"mcu_export"}


def test_wheel_carries_runtime_templates_and_schema(wheel_names):
    for required in (
        "mcu_export/_assets/runtime_c/CMakeLists.txt",
        "mcu_export/_assets/runtime_c/include/mx/errors.def",
        "mcu_export/_assets/codegen/kernel_table.c.j2",
        "mcu_export/_assets/runtime_c/firmware/main.c",
        "mcu_export/_assets/runtime_c/cmake/arm-none-eabi-gcc.cmake",
        "mcu_export/_assets/boards/host.toml",
        "mcu_export/_assets/fvp/corstone-300.params",
        "mcu_export/pte/schema/program.fbs",
        "mcu_export/cli.py",
    ):
        assert required in wheel_names, required
    assert not any("__pycache__" in n for n in wheel_names)


def test_console_script_declared(wheel_names):
    (entry,) = [data for n, data in wheel_names.items() if n.endswith("entry_points.txt")]
    assert b"mcu-export = mcu_export.cli:main" in entry


def test_codegen_holds_templates_only():
    """A file without Jinja tags is a plain source: it lives with the C or CMake it belongs to. One data file
    besides: the firmware template's compile flags (codegen/firmware/compile_flags.toml, in the firmware's sources
    fingerprint with the template that reads it)."""
    data = {ROOT / "codegen" / "firmware" / "compile_flags.toml"}
    for path in sorted(p for p in (ROOT / "codegen").rglob("*") if p.is_file() and p not in data):
        text = path.read_text()
        assert path.suffix == ".j2" and ("{{" in text or "{%" in text), path
