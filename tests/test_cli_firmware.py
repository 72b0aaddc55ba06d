"""The firmware side of the command line: export/build/run for a board, and its bad inputs."""

import json
import os
import shutil
import textwrap

import numpy as np
import pytest

from cli_runner import ROOT, assert_one_line_error, cli
from example_models import model_and_inputs, torch_outputs

pytestmark = pytest.mark.slow

MLP = ROOT / "examples" / "mnist_mlp.py"


@pytest.fixture(scope="module")
def mlp_export(tmp_path_factory):
    out = tmp_path_factory.mktemp("fw") / "mlp"
    result = cli("export", f"{MLP}:factory", "-o", out, "--board", "mps2-an505")
    assert result.code == 0, result.err
    return out


def test_export_for_board_writes_project_and_sizes(mlp_export):
    project = mlp_export / "firmware" / "mps2-an505"
    assert (project / "CMakeLists.txt").is_file() and (project / "artifacts" / "firmware.elf").is_file()
    sizes = json.loads((mlp_export / "report.json").read_text())["firmware"]["mps2-an505"]
    assert sum(sizes["flash"]["categories"].values()) == sizes["flash"]["total"]
    assert sizes["flash"]["categories"]["model_data"] >= (mlp_export / "model.pte").stat().st_size


def test_run_on_board_matches_torch_and_writes_run_json(mlp_export, tmp_path):
    _, (x,) = model_and_inputs("mnist_mlp")
    np.save(tmp_path / "x.npy", x.numpy())
    result = cli(
        "run",
        mlp_export,
        "--board",
        "mps2-an505",
        "--input",
        tmp_path / "x.npy",
        "--output",
        tmp_path / "y.npz",
        "--json",
        tmp_path / "run.json",
    )
    assert result.code == 0, result.err
    np.testing.assert_allclose(
        np.load(tmp_path / "y.npz")["output_0"], torch_outputs("mnist_mlp")[0], rtol=1e-4, atol=1e-5
    )
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["instructions_per_inference"] > 0
    assert [op["op"] for op in run["per_op"]][:2] == ["aten::view_copy.out", "aten::addmm.out"]
    assert "aten::addmm.out" in result.out  # the per-op table is printed
    sizes = json.loads((mlp_export / "report.json").read_text())["firmware"]["mps2-an505"]
    assert 0 < sizes["stack_used_bytes"] < sizes["stack_size"]
    assert sizes["instructions_per_inference"] == run["instructions_per_inference"]


def test_unknown_board_lists_valid_ones(mlp_export, tmp_path):
    line = assert_one_line_error(cli("build", mlp_export, "--board", "esp32"), "unknown board 'esp32'")
    for name in ("corstone-300", "mps2-an505", "pico2", "host"):
        assert name in line
    out = tmp_path / "never"
    assert_one_line_error(cli("export", f"{MLP}:factory", "-o", out, "--board", "esp32"), "unknown board")
    assert not out.exists()


def test_run_on_board_rejects_wrong_input_shape(mlp_export, tmp_path):
    np.save(tmp_path / "bad.npy", np.zeros((1, 784), np.float32))
    assert_one_line_error(
        cli("run", mlp_export, "--board", "mps2-an505", "--input", tmp_path / "bad.npy"), "input 0", "[1, 1, 28, 28]"
    )


def test_model_too_large_for_board_names_region_and_bytes(tmp_path):
    path = tmp_path / "big.py"
    path.write_text(
        textwrap.dedent("""\
        import torch

        def factory():
            torch.manual_seed(0)
            return torch.nn.Linear(1500, 1000), (torch.randn(1, 1500),)
        """)
    )
    line = assert_one_line_error(
        cli("export", f"{path}:factory", "-o", tmp_path / "o", "--board", "mps2-an386"),
        "does not fit board 'mps2-an386'",
        "region code",
        "bytes over",
    )
    assert "region overflowed" not in line  # our check runs before the linker's


def test_missing_toolchain_says_what_to_install(mlp_export, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("cmake", "ninja", "python3"):
        found = shutil.which(tool)
        if found:
            os.symlink(found, bin_dir / tool)
    project_copy = tmp_path / "mlp"
    shutil.copytree(mlp_export, project_copy, ignore=shutil.ignore_patterns("firmware"))
    result = cli("build", project_copy, "--board", "mps2-an386", env_path=str(bin_dir))
    assert_one_line_error(result, "apt-get install gcc-arm-none-eabi")


def test_cmsis_nn_option_names_what_is_missing(mlp_export, tmp_path):
    line = assert_one_line_error(
        cli("build", mlp_export, "--board", "mps2-an505", "--cmsis-nn", tmp_path / "none"), "Include/arm_nnfunctions.h"
    )
    assert str(tmp_path / "none") in line
    result = cli("build", mlp_export, "--board", "mps2-an505", "--cmsis-nn")
    if result.code != 0:  # no pack on this machine (the usual case): the message says where it looked
        assert_one_line_error(result, "no CMSIS-NN pack found")


def test_int8_export_for_one_board_is_refused_for_another(tmp_path):
    out = tmp_path / "q8"
    result = cli("export", f"{MLP}:factory", "-o", out, "--quantize", "int8", "--board", "corstone-300",
                 "--backend", "cortex-m")  # fmt: skip
    assert result.code == 0, result.err
    assert_one_line_error(
        cli("build", out, "--board", "mps2-an505"),
        "exported in int8 for board 'corstone-300'",
        "was not sized for the dsp kernels",
        "re-export with --board mps2-an505",
    )
