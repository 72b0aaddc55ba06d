"""Issue 15 item 4: report.json's `debug_map` and `mcu-export inspect` name, per instruction, the user's source
line (file:line in Class.forward) and the torch op, for fp32 and int8; the per-op table and a fault use them."""

from __future__ import annotations

import inspect
import json
import os
import warnings

import pytest
import torch

from mcu_export import api
from mcu_export.firmware import elf as elf_tools
from mcu_export.firmware.results import FirmwareFault, RunResult
from mcu_export.pte import debug_map
from mcu_export.pte.inspect import format_program
from mcu_export.runners import firmware as fw
from mcu_export.runners.base import ModelRun, OpCount
from mcu_export.runners.report import format_per_op_table


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))  # LINE conv
        y = y.flatten(1)  # LINE flatten
        return self.fc(y)  # LINE fc


def _lines():
    """The line numbers of Tiny.forward's tagged lines, from its source."""
    src, first = inspect.getsourcelines(Tiny.forward)
    return {line.split("# LINE ")[1].strip(): first + k for k, line in enumerate(src) if "# LINE " in line}


@pytest.fixture(scope="module", params=["fp32", "int8"])
def exported(request, tmp_path_factory):
    torch.manual_seed(0)
    model, x = Tiny().eval(), (torch.randn(1, 3, 6, 6),)
    quantize = None if request.param == "fp32" else "int8"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # int8: calibrated on the example input alone
        artifact = api.export(model, x, quantize=quantize, backend="cortex-m" if quantize else None)
    return request.param, artifact, artifact.save(tmp_path_factory.mktemp(request.param))


# The kernel each line lowers to, by export kind: its call must carry that line and the torch op.
KERNELS = {
    "fp32": {"conv": "aten::convolution.out", "fc": "aten::addmm.out"},
    "int8": {"conv": "cortex_m::quantized_conv2d.out", "fc": "cortex_m::quantized_linear.out"},
}
TORCH_OPS = {"conv": "aten.convolution.default", "fc": ("aten.addmm.default", "aten.linear.default")}


def test_report_maps_every_instruction_to_the_forward_line(exported):
    kind, artifact, out = exported
    entries = json.loads((out / "report.json").read_text())["debug_map"]
    chain = artifact.program.method("forward").chains[0]
    assert [e["index"] for e in entries] == list(range(len(chain.instructions)))
    lines = _lines()
    located = [e for e in entries if e["file"]]
    assert located, entries
    for e in located:  # every located instruction comes from one of forward's lines, in this file
        assert os.path.samefile(e["file"], __file__)
        assert e["line"] in lines.values() and e["function"] == "Tiny.forward", e
        assert e["source"] == f"test_debug_map.py:{e['line']} in Tiny.forward"
        assert e["torch_op"], e
    for tag, op in KERNELS[kind].items():
        e = next(e for e in entries if e["op"] == op)
        assert e["line"] == lines[tag], e
        want = TORCH_OPS[tag]
        assert e["torch_op"] in (want if isinstance(want, tuple) else (want,)), e
    relu = [e for e in entries if "relu" in (e["torch_op"] or "")]
    assert all(e["line"] == lines["conv"] for e in relu)
    view = [e for e in entries if e["torch_op"] == "aten.view.default"]
    assert view and all(e["line"] == lines["flatten"] for e in view)


def test_inspect_prints_the_source_line_of_each_instruction(exported):
    kind, artifact, out = exported
    lines = _lines()
    prog = artifact.program
    entries = debug_map.load(out / "model.pte", prog.method("forward"))
    text = format_program(prog, entries)
    conv = next(line for line in text.splitlines() if KERNELS[kind]["conv"] + "(" in line)
    assert conv.endswith(f"# test_debug_map.py:{lines['conv']} in Tiny.forward (aten.convolution.default)")
    # The .pte alone (no report.json beside it): the line from its stacktrace, the function without its class.
    alone = format_program(prog)
    conv = next(line for line in alone.splitlines() if KERNELS[kind]["conv"] + "(" in line)
    assert conv.endswith(f"# test_debug_map.py:{lines['conv']} in forward")


def test_per_op_table_and_fault_name_the_source_line(exported, monkeypatch):
    kind, artifact, out = exported
    sources = debug_map.sources(debug_map.load(out / "model.pte"))
    index, line = next(iter(sources.items()))
    run = ModelRun(
        outputs=[],
        board="corstone-300",
        target="qemu",
        seconds=0.1,
        per_op=[OpCount(index, "op", 70, sources[index]), OpCount(index + 1, "other", 30)],
        instructions_per_inference=100,
    )
    table = format_per_op_table(run).splitlines()
    assert table[0].split()[:3] == ["#", "op", "source"]
    assert line in table[1] and table[1].endswith("70.0%")
    assert table[2].split()[2] == "-"  # no source known: a dash, the columns stay aligned
    monkeypatch.setattr(elf_tools, "symbolizer", lambda elf: lambda pc: None)  # raise_for looks it up there
    uart = f"boot\nmx: hard fault CFSR=0x00000001 PC=0x00000100 LR=0x00000200 op={index}\n"
    result = RunResult(exit_code=253, uart_text=uart, timed_out=False, seconds=0.1, command=())
    calls = [{"index": index, "op": "the_op"}]
    with pytest.raises(FirmwareFault, match=rf"instruction {index} \(the_op\) at {line}$"):
        fw.raise_for(result, "corstone-300 (qemu)", out / "none.elf", calls, 10, (), sources)
