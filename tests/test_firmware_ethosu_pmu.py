"""The NPU's PMU cycle counter from the firmware to run.json (boards/ethosu/ethosu_pmu.c, npu_platform.c,
mcu_export/runners/firmware.py and report.py).

The driver starts the cycle counter before each job and reads it after; the firmware prints "mx: pmu
instruction=<i> cycles=<n>" for a counter that moved, and the runner puts each in run.json's npu.measured, named
by its delegate, next to Vela's estimate. On QEMU the counter is the seam's register file: it counts what the
host's executor reports in the reply (npu_wire.py), so a stand-in that reports known counts shows them reaching
run.json for the right delegate call, and our simulator (which reports none) leaves Vela's estimate alone. On the
FVP the same ELF reads the FVP's NPU (skipped, with the binary's name, where it is not on PATH)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

from mcu_export.boards import load_board
from mcu_export.firmware.fvp import fvp_available
from mcu_export.runners import npu_wire
from mcu_export.runners.base import ModelRun, NpuCycles
from mcu_export.runners.firmware import npu_cycles
from mcu_export.runners.report import npu_lines, npu_report, run_json, write_run_json
from npu_test_tools import FIRMWARE_TOOLS, needs  # tests/support

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")

BOARD = "corstone-300"
FVP = load_board(BOARD).fvp.binary
TIMEOUT = 120.0
needs_qemu = needs("qemu-system-arm", *FIRMWARE_TOOLS)


# --- parsing and reporting (no simulator) -----------------------------------------------------------------------


CALLS = [
    {"index": 1, "delegate": 0, "backend": "EthosUBackend"},
    {"index": 4, "delegate": 1, "backend": "EthosUBackend"},
]
UART = "mx: pmu instruction=1 cycles=1234\nmx: npu: something else\nmx: pmu instruction=4 cycles=4294967303\nmx: ok\n"


def test_the_firmware_lines_become_one_count_per_delegate_call():
    assert npu_cycles(UART, CALLS) == [NpuCycles(0, 1, 1234), NpuCycles(1, 4, (1 << 32) + 7)]
    assert npu_cycles("mx: ok ticks=1 stack=2 pool=3/4\n", CALLS) == []  # no PMU: nothing said, nothing measured


def test_run_json_keeps_the_estimate_and_adds_what_was_measured(tmp_path):
    report = {"npu": {"accelerator": "ethos-u55-128", "subgraphs": []}}
    report["npu"]["subgraphs"] = [
        {"index": d, "cycles_npu": 1000 * (d + 1), "layers": [{"operator": "conv", "cycles": 9, "macs": 3}]}
        for d in (0, 1)
    ]
    (tmp_path / "report.json").write_text(json.dumps(report))
    run = ModelRun(outputs=[np.zeros(2, np.float32)], board=BOARD, target="fvp", seconds=1.0)
    estimate_only = npu_report(tmp_path, run)
    assert estimate_only["source"] == "vela estimate" and "measured" not in estimate_only
    run.npu_measured = npu_cycles(UART, CALLS)
    npu = npu_report(tmp_path, run)
    assert [s["cycles_npu"] for s in npu["subgraphs"]] == [1000, 2000]
    assert npu["measured"] == [
        {"delegate": 0, "instruction": 1, "cycles": 1234, "source": "PMU"},
        {"delegate": 1, "instruction": 4, "cycles": (1 << 32) + 7, "source": "PMU"},
    ]
    lines = npu_lines(npu)
    assert lines[0].startswith("delegate 0 on ethos-u55-128: 1,000 NPU cycles (vela estimate)")
    assert lines[1] == "delegate 0 (instruction 1): 1,234 NPU cycles (PMU)"
    assert lines[3] == "delegate 1 (instruction 4): 4,294,967,303 NPU cycles (PMU)"
    assert json.loads(write_run_json(tmp_path / "run.json", run, npu).read_text())["npu"] == npu
    # Without report.json (no estimate) what was measured is the whole NPU part.
    (tmp_path / "elsewhere").mkdir()
    alone = npu_report(tmp_path / "elsewhere", run)
    assert alone == {"measured": npu["measured"]} and len(npu_lines(alone)) == 2
    assert "npu" not in run_json(run, npu_report(tmp_path / "elsewhere", ModelRun([], BOARD, "qemu", 0.0)))


def test_an_executor_answers_a_status_or_a_status_and_its_cycles():
    assert npu_wire.executor_answer(npu_wire.OK) == (npu_wire.OK, 0)
    assert npu_wire.executor_answer((npu_wire.OK, 5)) == (npu_wire.OK, 5)
    with pytest.raises(npu_wire.NpuSeamError, match="48 bits"):
        npu_wire.executor_answer((npu_wire.OK, 1 << 48))
    reply = npu_wire.encode_reply(3, 0, npu_wire.OK, 0, [], cycles=(1 << 47) + 1)
    assert len(reply) == npu_wire.REPLY_HEADER_BYTES == 40
    assert npu_wire.parse_reply(reply, (0,) * 8) == (3, 0, npu_wire.OK, 0, [], (1 << 47) + 1)


# --- on QEMU: the seam's executor reports the counts --------------------------------------------------------------


class TwoDelegates(nn.Module):
    """A 9x9 padded average pool between two convolutions: the U55 takes pools up to 8x8 only, so it runs on the
    CPU and the program calls two EthosUBackend delegates (tests/test_ethosu_partition.py)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(4, 8, 3, padding=1), nn.Conv2d(8, 8, 1)
        self.pool = nn.AvgPool2d(9, stride=1, padding=4, count_include_pad=False)

    def forward(self, x):
        return self.b(self.pool(torch.relu(self.a(x))))


X = torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(3))


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """The model exported in int8 for corstone-300, saved, its firmware built: (export folder, build, weights of
    delegate 0 and 1)."""
    pytest.importorskip("tosa_serializer")
    from mcu_export.api import export
    from mcu_export.ethosu import blob as B
    from mcu_export.firmware.flow import build_for_board
    from mcu_export.firmware.npu import delegate_data

    artifact = export(TwoDelegates().eval(), (X,), quantize="int8", board=BOARD)
    program = artifact.program
    assert [d.id for d in program.method().delegates] == ["EthosUBackend"] * 2
    weights = [B.unpack(delegate_data(program, d)).weight_data for d in program.method().delegates]
    assert weights[0] != weights[1]
    out = artifact.save(tmp_path_factory.mktemp("two") / "out")
    return out, build_for_board(out, BOARD), weights


# Counts that tell the calls apart; the second needs the counter's high word.
COUNTS = {0: 12_345, 1: (1 << 32) + 77}


class Counting:
    """A stand-in NPU: leaves the scratch as it is and reports COUNTS for the delegate whose weights it gets."""

    def __init__(self, weights):
        self.weights, self.seen = weights, []

    def __call__(self, words, regions):
        (delegate,) = [d for d, w in enumerate(self.weights) if bytes(regions[0]) == w]
        self.seen.append(delegate)
        return npu_wire.OK, COUNTS[delegate]


def delegate_instructions(build) -> dict:
    from mcu_export.firmware.model_project import MODEL_DIR, project_of

    manifest = json.loads((project_of(build) / MODEL_DIR / "model.json").read_text())
    return {c["delegate"]: c["index"] for c in manifest["delegate_calls"]}


@pytest.mark.slow
@needs_qemu
def test_counts_an_executor_reports_reach_run_json_for_their_delegate_call(two, tmp_path):
    from mcu_export.runners import runner_for

    out, build, weights = two
    counting = Counting(weights)
    runner = runner_for(BOARD, "qemu", timeout=TIMEOUT, profile=False, npu_executor=counting).use_build(build)
    run = runner.run([X.numpy()])
    assert counting.seen == [0, 1]
    at = delegate_instructions(build)
    assert run.npu_measured == [NpuCycles(d, at[d], COUNTS[d]) for d in (0, 1)]
    assert "mx: pmu instruction=" in run.uart_text
    npu = json.loads(write_run_json(tmp_path / "run.json", run, npu_report(out, run)).read_text())["npu"]
    assert npu["source"] == "vela estimate" and [s["delegate"] for s in npu["subgraphs"]] == [0, 1]
    assert npu["measured"] == [
        {"delegate": d, "instruction": at[d], "cycles": COUNTS[d], "source": "PMU"} for d in (0, 1)
    ]


@pytest.mark.slow
@needs_qemu
def test_an_executor_that_does_not_count_leaves_vela_s_estimate_alone(two, tmp_path):
    """Our simulator answers a plain STATUS: the counter stays 0, the firmware says nothing, run.json has the
    estimate only."""
    from mcu_export.runners import runner_for

    out, build, weights = two
    runner = runner_for(BOARD, "qemu", timeout=TIMEOUT, profile=False, npu_executor=lambda w, r: npu_wire.OK)
    run = runner.use_build(build).run([X.numpy()])
    assert run.npu_measured == [] and "mx: pmu" not in run.uart_text
    npu = npu_report(out, run)
    assert npu is not None and "measured" not in npu and len(npu["subgraphs"]) == 2


# --- on the FVP: the same ELF, the FVP's NPU ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(
    not fvp_available(load_board(BOARD)), reason=f"{FVP} is not on PATH (Arm FVPs cannot be downloaded here)"
)
def test_on_the_fvp_every_delegate_call_has_its_measured_cycles(two):
    from mcu_export.runners import runner_for

    out, build, _ = two
    run = runner_for(BOARD, "fvp", timeout=TIMEOUT).use_build(build).run([X.numpy()])
    at = delegate_instructions(build)
    assert [(m.delegate, m.instruction) for m in run.npu_measured] == sorted(at.items())
    assert all(m.cycles > 0 and m.source == "PMU" for m in run.npu_measured)
    assert "measured" in npu_report(out, run)
