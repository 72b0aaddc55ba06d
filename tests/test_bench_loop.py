"""The loop benchmark's phase split (mcu_export/bench_loop.py): phases from the CLI's progress lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcu_export import bench_loop

ROOT = Path(__file__).resolve().parent.parent


def _lines(*pairs):
    return [(t, f"mcu-export: {text}") for t, text in pairs]


def test_export_build_and_run_phases():
    lines = _lines(
        (2.0, "capturing with torch.export (int8)"),
        (3.0, "inserting observers (PT2E prepare)"),
        (3.5, "calibrating"),
        (4.0, "converting to int8 (PT2E convert)"),
        (4.5, "lowering to cortex_m int8 kernels"),
        (5.0, "warning: something"),  # not a phase of its own
        (5.5, "planning memory"),
        (5.75, "writing model.pte"),
        (6.0, "build: configuring for corstone-300 (gcc)"),
        (7.0, "build: [1/50] Building C object"),
        (8.0, "build: done: firmware.elf"),
        (8.5, "writing report.html"),
    )
    spans = bench_loop.split_phases(0.0, lines, 9.0)
    assert spans["import"] == 2.0 and spans["capture"] == 1.0 and spans["quantize"] == 1.5
    assert spans["lower"] == 1.0 and spans["plan"] == 0.25 and spans["write"] == 0.25
    assert spans["build"] == 2.0 and spans["simulate"] == 0.5 and spans["report"] == 0.5
    assert sum(spans.values()) == pytest.approx(9.0)


def test_a_reused_export_is_import_then_run():
    lines = [(3.0, "mcu-export: /m.py:factory: unchanged since the export in out (export.sha256): reusing it")]
    spans = bench_loop.split_phases(0.0, lines, 4.0)
    assert spans["import"] == 3.0 and spans["simulate"] == 1.0 and spans["capture"] == 0.0


def test_every_phase_line_is_one_the_cli_prints():
    """Each prefix the split looks for is the start of a progress message in mcu_export's sources: a reworded
    message must not silently fold a phase into the one before it."""
    sources = "\n".join(p.read_text() for p in (ROOT / "mcu_export").rglob("*.py") if p.name != "bench_loop.py")
    for prefix, _ in bench_loop._STARTS:
        if prefix == "build: ":
            assert 'Printer("mcu-export: build: ")' in sources
            continue
        assert re.search(r'(say|progress)\(\s*f?"' + re.escape(prefix), sources), prefix
