"""Issue 15 item 3: our .pte files (fp32, cortex_m int8, Ethos-U delegated) open in Google's Model Explorer through
Arm's PTE adapter, each instruction's node with its source line (mcu_export_explorer's adapter), the Ethos-U
delegate with its TOSA graph; `mcu-export explore OUT` serves them. Model Explorer lives in a venv of its own
(mcu_export.explore says why): these tests skip when none is found."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest
import torch

from mcu_export import api, explore
from mcu_export.errors import UsageError
from mcu_export.pte.writer import write_program

ROOT = Path(__file__).resolve().parent.parent


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.fc(y.flatten(1))


KINDS = {
    "fp32": dict(),
    "int8": dict(quantize="int8", backend="cortex-m"),
    "ethosu": dict(quantize="int8", backend="ethos-u55-128"),
}
# Per kind, node labels (Arm's adapter: the operator's name, or the delegate's id) that must be in the graph.
LABELS = {
    "fp32": {"aten::convolution", "aten::relu", "aten::addmm"},
    "int8": {"cortex_m::quantized_conv2d", "cortex_m::quantized_linear", "cortex_m::quantize_per_tensor"},
    "ethosu": {"EthosUBackend", "cortex_m::quantize_per_tensor"},
}


@pytest.fixture(scope="module")
def python():
    found = explore.find_python()
    if found is None:
        pytest.skip(
            "needs ai-edge-model-explorer and pte-adapter-model-explorer in a side venv "
            f"(make venv makes .venv-explorer; or set {explore.ENV})"
        )
    return found


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    torch.manual_seed(0)
    model, x = Small().eval(), (torch.randn(1, 3, 6, 6),)
    out = {}
    for kind, options in KINDS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # int8: calibrated on the example input alone
            artifact = api.export(model, x, **options)
        out[kind] = artifact.save(tmp_path_factory.mktemp(kind))
        if kind == "fp32":  # also as a .pte that carries its stack traces (ExecuTorch's emit_stacktrace)
            (out[kind] / "traced.pte").write_bytes(write_program(artifact.program, stacktrace=True))
    return out


_CONVERT = """
import json, sys
from mcu_export_explorer.main import McuExportPteAdapter
from pte_adapter_model_explorer.main import PTEAdapter
result = {}
for pte in sys.argv[1:]:
    PTEAdapter().convert(pte, {})  # Arm's adapter alone reads the file too
    graphs = McuExportPteAdapter().convert(pte, {})["graphCollections"]
    result[pte] = [
        {"label": c.label, "graphs": [
            {"id": g.id, "nodes": [
                {"id": n.id, "label": n.label, "subgraphs": list(n.subgraphIds),
                 "attrs": {a.key: a.value for a in n.attrs}} for n in g.nodes]}
            for g in c.graphs]}
        for c in graphs
    ]
print(json.dumps(result))
"""


def _located_nodes(collections, out: Path):
    """The instruction nodes of `forward`, each checked against report.json's debug_map."""
    entries = json.loads((out / "report.json").read_text())["debug_map"]
    forward = next(g for g in collections[0]["graphs"] if g["id"] == "forward")
    nodes = {n["id"]: n for n in forward["nodes"]}
    for e in entries:
        node = nodes[f"forward_0_{e['index']}"]
        if e["source"]:
            assert node["attrs"]["source"] == e["source"]
            assert node["attrs"]["line"] == str(e["line"]) and node["attrs"]["torch op"] == e["torch_op"]
        else:
            assert "source" not in node["attrs"]
    return forward["nodes"]


def test_our_pte_files_open_with_their_source_lines(python, exports):
    ptes = [str(exports[k] / "model.pte") for k in KINDS]
    proc = subprocess.run(
        [python, "-c", _CONVERT, *ptes], env=explore.environment(), capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.splitlines()[-1])
    forward_line = f"{Path(__file__).name}:"
    for kind, pte in zip(KINDS, ptes):
        nodes = _located_nodes(result[pte], exports[kind])
        assert LABELS[kind] <= {n["label"] for n in nodes}, kind
        located = [n for n in nodes if "source" in n["attrs"]]
        assert located and all(n["attrs"]["source"].startswith(forward_line) for n in located)
        assert all(n["attrs"]["source"].endswith("in Small.forward") for n in located)
        assert all(os.path.samefile(n["attrs"]["file"], __file__) for n in located)
    # The Ethos-U delegate's node opens the TOSA graph Vela compiled (OUT/npu/subgraph_0.tosa).
    collections = result[ptes[2]]
    call = next(n for g in collections[0]["graphs"] for n in g["nodes"] if n["label"] == "EthosUBackend")
    delegates = {g["id"]: g for c in collections[1:] for g in c["graphs"]}
    assert call["attrs"]["covers"].count("Small.forward") == 2  # the delegate runs conv + relu (line 1), fc (2)
    assert call["subgraphs"] and {"CONV2D"} <= {n["label"] for n in delegates[call["subgraphs"][0]]["nodes"]}


def test_without_report_json_the_lines_come_from_the_pte(python, exports, tmp_path):
    """Our .pte leaves stack traces out (flash); one written with them (write_program(stacktrace=True), or
    ExecuTorch's emit_stacktrace) shows their lines with no report.json beside it."""
    pte = tmp_path / "model.pte"
    pte.write_bytes((exports["fp32"] / "traced.pte").read_bytes())
    proc = subprocess.run(
        [python, "-c", _CONVERT, str(pte)], env=explore.environment(), capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    nodes = json.loads(proc.stdout.splitlines()[-1])[str(pte)][0]["graphs"][0]["nodes"]
    conv = next(n for n in nodes if n["label"] == "aten::convolution")
    assert conv["attrs"]["source"].startswith(f"{Path(__file__).name}:") and conv["attrs"]["source"].endswith(
        " in forward"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def test_explore_command_serves_the_export(python, exports):
    port = _free_port()
    out = exports["ethosu"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{explore.ENV: python})
    cmd = [sys.executable, "-m", "mcu_export.cli", "explore", str(out), "--no-browser", "--port", str(port)]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://localhost:{port}/check_health", timeout=5)
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()[-2000:]
                assert time.monotonic() < deadline, "Model Explorer did not start within 120 s"
                time.sleep(0.5)
        cmd_json = {
            "cmdId": "convert",
            "extensionId": "mcu_export_pte",
            "modelPath": str(out / "model.pte"),
            "deleteAfterConversion": False,
        }
        request = urllib.request.Request(
            f"http://localhost:{port}/apipost/v1/send_command",
            data=json.dumps({**cmd_json, "settings": {}}).encode(),
            headers={"Content-Type": "application/json"},
        )
        reply = json.loads(urllib.request.urlopen(request, timeout=120).read())
        assert "error" not in reply, reply
        text = json.dumps(reply)
        assert "EthosUBackend" in text and f"{Path(__file__).name}:" in text and "Small.forward" in text
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_missing_model_explorer_says_how_to_install(monkeypatch, tmp_path):
    (tmp_path / "model.pte").write_bytes(b"")
    monkeypatch.delenv(explore.ENV, raising=False)
    monkeypatch.setattr(explore, "candidates", lambda: [])
    with pytest.raises(UsageError, match="pip install ai-edge-model-explorer pte-adapter-model-explorer") as info:
        explore.explore(tmp_path)
    assert "flatbuffers" in str(info.value) and "\n" not in str(info.value)
    monkeypatch.setenv(explore.ENV, str(tmp_path / "no-python"))
    with pytest.raises(UsageError, match=explore.ENV):
        explore.find_python()
    with pytest.raises(UsageError, match="holds no model.pte"):
        explore.explore(tmp_path / "nothing")
