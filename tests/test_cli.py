"""The command line, as a user drives it: export, run, inspect, and every kind of bad input."""

import json
import textwrap

import numpy as np
import pytest

from cli_runner import ROOT, assert_one_line_error, cli
from example_models import model_and_inputs, torch_outputs

pytestmark = pytest.mark.slow

KWS = ROOT / "examples" / "kws_dscnn.py"


@pytest.fixture(scope="module")
def exported_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "kws"
    result = cli("export", f"{KWS}:factory", "-o", out)
    assert result.code == 0, result.err
    return out


def test_export_writes_pte_and_report(exported_dir):
    assert sorted(p.name for p in exported_dir.iterdir()) == ["model.pte", "report.html", "report.json"]
    report = json.loads((exported_dir / "report.json").read_text())
    assert report["inputs"] == [{"shape": [1, 1, 49, 10], "dtype": "float32"}]
    assert report["outputs"] == [{"shape": [1, 12], "dtype": "float32"}]
    assert report["ops"]["aten::convolution.out"] == 9
    mem = report["memory"]  # below the live-set bound: channels-last convolutions over their inputs
    assert mem["arena_bytes"] < mem["lower_bound_bytes"] and mem["overlaps"] > 0 and mem["channels_last_tensors"] > 0
    assert (exported_dir / "model.pte").read_bytes()[4:8] == b"ET12"


def test_run_on_host_matches_torch(exported_dir, tmp_path):
    _, (x,) = model_and_inputs("kws_dscnn")
    np.save(tmp_path / "x.npy", x.numpy())
    result = cli("run", exported_dir, "--board", "host", "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npz")
    assert result.code == 0, result.err
    got = np.load(tmp_path / "y.npz")["output_0"]
    np.testing.assert_allclose(got, torch_outputs("kws_dscnn")[0], rtol=1e-4, atol=1e-5)


def test_run_on_host_goes_through_the_same_runner_as_a_board(exported_dir, tmp_path):
    _, (x,) = model_and_inputs("kws_dscnn")
    np.save(tmp_path / "x.npy", x.numpy())
    result = cli("run", exported_dir / "model.pte", "--input", tmp_path / "x.npy", "--json", tmp_path / "run.json")
    assert result.code == 0, result.err
    assert "output_0: float32[1, 12]" in result.out and "host (host): " in result.out
    run = json.loads((tmp_path / "run.json").read_text())
    assert (run["board"], run["target"], run["per_op"]) == ("host", "host", [])
    assert run["instructions_per_inference"] is None and run["ticks"] is None
    assert run["outputs"] == [{"shape": [1, 12], "dtype": "float32"}]
    assert_one_line_error(
        cli("run", exported_dir, "--sim", "qemu", "--input", tmp_path / "x.npy"),
        "board 'host' does not run on qemu (it runs on: host, serial)",
    )
    assert_one_line_error(cli("build", exported_dir, "--board", "host"), "board 'host' needs no firmware build")


def test_inspect_lists_operators_and_plan(exported_dir):
    result = cli("inspect", exported_dir / "model.pte")
    assert result.code == 0, result.err
    assert "aten::convolution.out" in result.out
    report = json.loads((exported_dir / "report.json").read_text())
    assert str(report["memory"]["arena_bytes"]) in result.out


def _write_model(tmp_path, body: str, name="net.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_unsupported_op_names_op_and_source_line(tmp_path):
    path = _write_model(
        tmp_path,
        """\
        import torch

        class Net(torch.nn.Module):
            def forward(self, x):
                y = torch.relu(x)
                return torch.cumsum(y, 1)

        def factory():
            return Net(), (torch.randn(1, 16),)
        """,
    )
    out = tmp_path / "out"
    line = assert_one_line_error(
        cli("export", f"{path}:factory", "-o", out), "not supported", "net.py:6 in Net.forward"
    )
    assert "cumsum" in line and "triangular weight of ones" in line  # one op: one line, with its hint
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize(
    "spec_suffix, fragment",
    [
        (":factory", "model file not found"),
        (":1bad", "not a Python name"),
    ],
)
def test_export_bad_spec(tmp_path, spec_suffix, fragment):
    assert_one_line_error(cli("export", f"{tmp_path / 'missing.py'}{spec_suffix}", "-o", tmp_path / "o"), fragment)


@pytest.mark.parametrize(
    "body, fragment",
    [
        ("import torch\ndef factory():\n    return torch.nn.ReLU()\n", "must return (module, example_inputs)"),
        ("import torch\ndef factory():\n    return 3, (torch.ones(1),)\n", "expected a torch.nn.Module"),
        ("import torch\ndef factory():\n    return torch.nn.ReLU(), ('x',)\n", "example input 0 is str"),
        ("def factory():\n    raise ValueError('no weights here')\n", "raised ValueError: no weights here"),
        ("import torch\n", "has no 'factory'"),
        ("this is not python\n", "importing"),
    ],
)
def test_export_bad_factory(tmp_path, body, fragment):
    path = _write_model(tmp_path, body)
    out = tmp_path / "o"
    assert_one_line_error(cli("export", f"{path}:factory", "-o", out), fragment)
    assert not out.exists()


def test_run_rejects_wrong_shape_dtype_and_count(exported_dir, tmp_path):
    np.save(tmp_path / "shape.npy", np.zeros((1, 1, 49, 11), np.float32))
    np.save(tmp_path / "dtype.npy", np.zeros((1, 1, 49, 10), np.float64))
    np.save(tmp_path / "ok.npy", np.zeros((1, 1, 49, 10), np.float32))
    assert_one_line_error(cli("run", exported_dir, "--input", tmp_path / "shape.npy"), "input 0", "[1, 1, 49, 10]")
    assert_one_line_error(cli("run", exported_dir, "--input", tmp_path / "dtype.npy"), "float64", "float32")
    assert_one_line_error(
        cli("run", exported_dir, "--input", tmp_path / "ok.npy", "--input", tmp_path / "ok.npy"), "takes 1 input"
    )
    assert_one_line_error(cli("run", exported_dir, "--input", tmp_path / "nope.npy"), "file not found")
    assert_one_line_error(
        cli("run", exported_dir, "--board", "toaster", "--input", tmp_path / "ok.npy"),
        "unknown board 'toaster'",
        "host",
    )


def test_corrupt_pte_is_refused(exported_dir, tmp_path):
    data = (exported_dir / "model.pte").read_bytes()
    bad = tmp_path / "bad.pte"
    bad.write_bytes(data[: len(data) // 3])
    np.save(tmp_path / "ok.npy", np.zeros((1, 1, 49, 10), np.float32))
    assert_one_line_error(cli("inspect", bad), "malformed .pte")
    assert_one_line_error(cli("run", bad, "--input", tmp_path / "ok.npy"), "malformed .pte")
    wrong = tmp_path / "wrong.pte"
    wrong.write_bytes(data[:4] + b"XX12" + data[8:])
    assert_one_line_error(cli("inspect", wrong), "ET12")


def test_usage_errors_are_one_line(tmp_path):
    assert_one_line_error(cli(), "command")
    assert_one_line_error(cli("export", f"{KWS}:factory"), "-o")
    assert_one_line_error(cli("inspect", tmp_path / "none.pte"))


def test_boards_lists_every_board_file_with_memory():
    from mcu_export.boards import list_boards, load_board

    result = cli("boards")
    assert result.code == 0, result.err
    for name in list_boards():
        assert f"\n{name}: " in "\n" + result.out
    dtcm = load_board("corstone-300").region("dtcm")
    assert f"dtcm     0x{dtcm.origin:08x}" in result.out


def test_int8_export_with_calibration(tmp_path):
    calib = _write_model(
        tmp_path,
        """\
        import torch

        def batches():
            g = torch.Generator().manual_seed(0)
            for _ in range(4):
                yield (torch.rand(1, 1, 28, 28, generator=g),)

        def wrong():
            yield (torch.rand(1, 784),)
        """,
        name="calib.py",
    )
    mlp = ROOT / "examples" / "mnist_mlp.py"
    out = tmp_path / "q"
    result = cli("export", f"{mlp}:factory", "-o", out, "--quantize", "int8", "--calibrate", f"{calib}:batches")
    assert result.code == 0, result.err
    report = json.loads((out / "report.json").read_text())
    assert report["int8"]["fallbacks"] == [] and report["int8"]["calibration_batches"] == 4
    assert "cortex_m::quantized_linear.out" in report["ops"]
    line = assert_one_line_error(
        cli("export", f"{mlp}:factory", "-o", tmp_path / "w", "--quantize", "int8", "--calibrate", f"{calib}:wrong"),
        "wrong",
        "input 0",
    )
    assert "[1, 784]" in line.replace("(", "[").replace(")", "]") or "784" in line
    assert not (tmp_path / "w").exists()
    assert_one_line_error(
        cli("export", f"{mlp}:factory", "-o", tmp_path / "x", "--calibrate", f"{calib}:batches"),
        "--calibrate goes with --quantize int8",
    )


def test_int8_export_without_calibration_warns(tmp_path):
    mlp = ROOT / "examples" / "mnist_mlp.py"
    result = cli("export", f"{mlp}:factory", "-o", tmp_path / "q", "--quantize", "int8")
    assert result.code == 0, result.err
    assert "representative" in result.err


def test_ops_lists_every_table_entry():
    from mcu_export.ops.table import ALL_OPS

    result = cli("ops")
    assert result.code == 0, result.err
    for op in ALL_OPS:
        assert any(line.startswith(op.qualified + " ") and op.kernel in line for line in result.out.splitlines()), op


def test_ops_args_lists_each_kernel_calls_arguments_in_order():
    from mcu_export.ops.table import BY_QUALIFIED

    result = cli("ops", "--args")
    assert result.code == 0, result.err
    block = result.out.split("cortex_m::quantized_linear.out\n", 1)[1].split("\n\n", 1)[0].splitlines()
    op = BY_QUALIFIED["cortex_m::quantized_linear.out"]
    assert [line.split()[0] for line in block] == [str(i) for i in range(len(op.arg_names()))]
    assert block[op.arg_index("activation_max")].endswith("int activation_max")
