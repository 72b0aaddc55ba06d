"""Choosing the NPU from the CLI and the API, what an Ethos-U export writes (report.json "partitions" and
"npu", OUT/npu/*.tosa, the delegate in `inspect`), and its errors: one line each."""

import dataclasses
import json

import numpy as np
import pytest
import torch
from torch import nn

import mcu_export
from cli_runner import assert_one_line_error, cli  # tests/support
from mcu_export.boards import load_board
from mcu_export.errors import UsageError
from mcu_export.ethosu.choice import NpuChoice, choose_npu
from mcu_export.ethosu.reference import tosa_delegate
from mcu_export.ethosu.vela import VelaError
from mcu_export.examples import spec
from mcu_export.int8.interpreter import run_reference
from mcu_export.pte.reader import read_program

pytest.importorskip("tosa_serializer")
MLP = spec("mnist_mlp")


def test_the_board_picks_its_npu_and_its_memories():
    c300, c320 = load_board("corstone-300"), load_board("corstone-320")
    assert choose_npu(None, c300, "int8") == NpuChoice("ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram")
    assert choose_npu(None, c320, "int8").accelerator == "ethos-u85-128"
    assert choose_npu("cortex-m", c300, "int8") is None and choose_npu(None, c300, None) is None
    # Another configuration of the board's generation keeps the board's memories; another generation takes Vela's.
    assert choose_npu("ethos-u55-256", c300, "int8").memory_mode == "Shared_Sram"
    assert choose_npu("ethos-u85-256", c300, "int8").memory_mode is None
    assert choose_npu(None, load_board("mps2-an505"), "int8") is None and choose_npu(None, None, "int8") is None


def test_bad_backend_choices_are_one_line_errors():
    with pytest.raises(UsageError, match=r"unknown backend 'ethos-u55-100' \(valid: cortex-m, ethos-u55-32, "):
        choose_npu("ethos-u55-100", None, "int8")
    with pytest.raises(UsageError, match="--backend ethos-u55-128 needs --quantize int8"):
        choose_npu("ethos-u55-128", None, None)


@pytest.mark.slow
def test_cli_export_to_the_npu_writes_partitions_estimates_and_tosa(tmp_path):
    out = tmp_path / "u55"
    result = cli("export", MLP, "-o", out, "--quantize", "int8", "--backend", "ethos-u55-128")
    assert result.code == 0, result.err
    assert "ethos-u55-128: 1 NPU subgraph(s) with 4 of 4 operators" in result.out
    report = json.loads((out / "report.json").read_text())
    assert report["int8"]["backend"] == "ethos-u55-128"
    (subgraph,) = report["partitions"]["subgraphs"]
    assert subgraph["operators"].count("cortex_m::quantized_linear.out") == 3
    assert {c["op"] for c in report["partitions"]["cpu"]} == {
        "cortex_m::quantize_per_tensor.out",
        "cortex_m::dequantize_per_tensor.out",
    }
    npu = report["npu"]
    assert (npu["system_config"], npu["memory_mode"]) == ("Ethos_U55_High_End_Embedded", "Shared_Sram")
    assert npu["total"]["cycles_npu"] > 0 and npu["subgraphs"][0]["weight_bytes"] > 20000
    layers = npu["subgraphs"][0]["layers"]  # Vela's per-layer estimates add up to its total
    assert {la["target"] for la in layers} == {"NPU"} and sum(
        la["macs"] for la in layers
    ) == 784 * 32 + 32 * 16 + 16 * 10
    assert sum(la["cycles"] for la in layers) == npu["total"]["cycles_total"]
    assert (out / "npu" / "subgraph_0.tosa").stat().st_size > 20000
    shown = cli("inspect", out / "model.pte")
    assert shown.code == 0, shown.err
    for fragment in ("EthosUBackend", "cmd_data", "weight_data", "commands:", "input 0: 1x1x1x1x1x784"):
        assert fragment in shown.out, fragment
    # The host runtime runs it: the delegate through our driver on the NPU simulator, bit for bit with the
    # program's Python reference whose delegate runs on TOSA's reference model.
    x = np.random.default_rng(0).random((1, 1, 28, 28), dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    ran = cli("run", out, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npz", "--json", tmp_path / "r.json")
    assert ran.code == 0, ran.err
    # Without an NPU to measure, the run shows and keeps Vela's estimate for the delegate, layer by layer.
    assert f"delegate 0 on ethos-u55-128: {npu['total']['cycles_npu']:,} NPU cycles (vela estimate)" in ran.out
    (kept,) = json.loads((tmp_path / "r.json").read_text())["npu"]["subgraphs"]
    assert sum(la["cycles"] for la in kept["layers"]) == npu["total"]["cycles_total"]
    program = read_program((out / "model.pte").read_bytes())
    graphs = [(out / "npu" / "subgraph_0.tosa").read_bytes()]
    (want,) = run_reference(program, [x], delegate=tosa_delegate(graphs))
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["output_0"], want)


@pytest.mark.slow
def test_a_board_with_an_npu_exports_to_it_and_its_firmware_drives_it(tmp_path):
    result = cli("export", MLP, "-o", tmp_path / "c300", "--quantize", "int8", "--board", "corstone-300")
    assert result.code == 0, result.err
    assert json.loads((tmp_path / "c300" / "report.json").read_text())["partitions"]["backend"] == "ethos-u55-128"
    assert (tmp_path / "c300" / "firmware" / "corstone-300" / "artifacts" / "firmware.elf").is_file()
    # A board whose NPU is another product (corstone-320: an Ethos-U85) refuses it, naming both.
    assert_one_line_error(
        cli("build", tmp_path / "c300", "--board", "corstone-320"),
        "delegate 0 (EthosUBackend) was compiled for an Ethos-U55, but board 'corstone-320' has an Ethos-U85",
        "re-export with --board corstone-320",
    )


@pytest.mark.slow
def test_backend_without_int8_is_refused_before_exporting(tmp_path):
    result = cli("export", MLP, "-o", tmp_path / "o", "--backend", "ethos-u55-128")
    assert_one_line_error(result, "--backend ethos-u55-128 needs --quantize int8")
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_a_vela_failure_is_one_line_naming_the_subgraph_and_its_operators():
    board = dataclasses.replace(load_board("corstone-300"), npu_system_config="No_Such_System")
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU()).eval()
    with pytest.raises(VelaError) as err:
        mcu_export.export(model, (torch.randn(1, 3, 8, 8),), quantize="int8", board=board)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("Vela failed on NPU subgraph 0 (nodes ") and "for ethos-u55-128" in message
    assert "No_Such_System" in message and "quantized_conv2d" in message
