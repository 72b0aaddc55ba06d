"""`mcu-export report OUT` (mcu_export.report): what it gathers from real fp32 and int8 exports, that the page is
one self-contained file with every section, that the PNGs are images with content, that a broken report never
fails the export or run it follows, and the page in a real headless browser (Debian's Chromium)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import torch

from mcu_export.errors import UsageError
from mcu_export.report import LAST_RUN, PAGE, gather, report_after, write_report

SECTIONS = ("summary", "memory", "profile", "sizes", "int8", "graph")
CHROMIUM = Path("/usr/bin/chromium")
VOID = {"meta", "br", "img", "hr", "link", "input"}


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        y = torch.relu(self.conv(x))  # the source line the graph table names
        return torch.softmax(self.fc(y.flatten(1)), dim=1)


def _model():
    torch.manual_seed(0)
    return Net().eval(), (torch.randn(1, 1, 8, 8),)


def _export(tmp_path_factory, name, **options):
    from mcu_export.api import export

    model, inputs = _model()
    calibrate = [inputs] if options.get("quantize") else None  # given, so that no warning says it was not
    return export(model, inputs, calibrate=calibrate, **options).save(tmp_path_factory.mktemp(name))


@pytest.fixture(scope="module")
def fp32(tmp_path_factory):
    return _export(tmp_path_factory, "fp32")


@pytest.fixture(scope="module")
def int8(tmp_path_factory):
    return _export(tmp_path_factory, "int8", quantize="int8")


def _copy(out: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(out, tmp_path / out.name))


class Page(HTMLParser):
    """Elements with their attributes; tags must nest and close (html.parser alone accepts anything)."""

    def __init__(self, text: str):
        super().__init__()
        self.elements, self.stack, self.titles = [], [], []
        self.feed(text)
        self.close()
        assert not self.stack, f"unclosed: {self.stack}"

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "title":
            self.titles.append(data)


def check_self_contained(text: str) -> Page:
    page = Page(text)
    tags = {tag for tag, _ in page.elements}
    assert not tags & {"script", "link", "img", "iframe", "object"}, tags  # nothing run, nothing fetched
    for tag, attrs in page.elements:
        for key in ("src", "href", "xlink:href"):
            assert not attrs.get(key) or attrs[key].startswith("#"), (tag, attrs)  # only the page's own ids
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", text) and "url(http" not in text
    assert {a.get("id") for t, a in page.elements if t == "section"} == set(SECTIONS)
    return page


def check_png(path: Path, min_width: int = 600) -> None:
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "PNG" and image.width >= min_width and image.height >= 150, image.size
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) >= 8, "a blank or nearly blank image"
    white = max((n for n, c in colours if c == (255, 255, 255)), default=0)
    assert white < 0.97 * image.width * image.height  # more than a frame on a white page


@pytest.mark.slow
def test_gather_fp32(fp32):
    report = json.loads((fp32 / "report.json").read_text())
    data = gather(fp32)
    assert len(data.plan.tensors) == report["memory"]["planned_tensors"]
    assert data.plan.arenas == {1: report["memory"]["arena_bytes"]}
    assert data.plan.lower_bound == report["memory"]["lower_bound_bytes"]
    assert len(data.instructions) == report["instructions"]
    assert [i.op for i in data.instructions][:2] == ["aten::convolution.out", "aten::relu.out"]
    assert all(i.unit == "CPU" for i in data.instructions)
    conv = data.instructions[0]
    assert (
        conv.source == f"{Path(__file__).name}:{Net.forward.__code__.co_firstlineno + 1} in Net.forward"
    )  # the debug map names the class
    assert conv.code == "y = torch.relu(self.conv(x))  # the source line the graph table names"
    assert any(r.endswith(" input") for r in conv.reads) and sum(r.endswith(" const") for r in conv.reads) == 2
    relu = data.instructions[1]
    assert relu.reads == [conv.writes[0] + " from [0]"]
    # relu's out placed over its input: one overlap, where the planner says, at the instruction that makes it
    assert len(data.overlaps) == report["memory"]["overlaps"] == 1
    o = data.overlaps[0]
    assert o.instruction == 1 and o.high > o.low
    assert data.producers[o.writer] == "relu" and data.producers[o.reader] == "convolution"
    assert "int8" not in data.report and data.profile is None and data.sizes == []
    assert any("no run yet" in n for n in data.notes) and any("no firmware built" in n for n in data.notes)


@pytest.mark.slow
def test_gather_int8(int8):
    report = json.loads((int8 / "report.json").read_text())
    data = gather(int8)
    assert len(data.instructions) == report["instructions"]
    ops = [i.op for i in data.instructions]
    assert "cortex_m::quantized_conv2d.out" in ops and "cortex_m::quantized_linear.out" in ops
    assert data.fallbacks == [] and data.partitions is None  # every op has an int8 kernel; no NPU asked for
    assert ("precision", "int8") in data.summary and ("backend", "cortex-m") in data.summary
    by_op = {i.op: i for i in data.instructions}
    for op in ("cortex_m::quantized_conv2d.out", "cortex_m::quantized_linear.out"):
        assert by_op[op].source and by_op[op].source.startswith(f"{Path(__file__).name}:"), by_op[op]


@pytest.mark.slow
@pytest.mark.parametrize("which", ["fp32", "int8"])
def test_page_is_self_contained_with_every_section(which, request, tmp_path):
    out = _copy(request.getfixturevalue(which), tmp_path)
    written = write_report(out, png=True)
    assert written[0] == out / PAGE
    text = (out / PAGE).read_text()
    page = check_self_contained(text)
    data = gather(out)
    svgs = [a for t, a in page.elements if t == "svg"]
    assert len(svgs) == len(data.plan.arenas) + 1  # a timeline per arena and the graph; no run, no firmware
    ids = [a["id"] for _, a in page.elements if "id" in a]
    assert len(ids) == len(set(ids)), "ids repeat across the inline figures"
    tensor_titles = [t for t in page.titles if re.match(r"%\d+ \(", t)]
    assert len(tensor_titles) == len(data.plan.tensors)  # every box says what it is on hover
    hatched = [t for t in page.titles if " written over %" in t]
    assert len(hatched) == len(data.overlaps) == (1 if which == "fp32" else 0)  # fp32: relu's out over its input
    for i in data.instructions:
        assert i.op in text
    assert "test_report.py:" in text and "the source line the graph table names" in text
    pngs = sorted(p.name for p in written[1:])
    assert pngs == ["report-graph.png", *(f"report-timeline-{a}.png" for a in sorted(data.plan.arenas))]
    for p in written[1:]:
        check_png(p)


@pytest.mark.slow
def test_profile_sizes_and_fallbacks_from_recorded_files(int8, tmp_path):
    """The page's other sections from the files a run and a build leave (their layouts as run.json and
    report.json's firmware entry have them), without building here: the QEMU test below does it for real."""
    out = _copy(int8, tmp_path)
    data = gather(out)
    kernels = [i for i in data.instructions if i.op.startswith(("cortex_m::", "aten::", "dim_order_ops::"))]
    per_op = [{"index": i.index, "op": i.op, "instructions": 1000 + 100 * i.index} for i in kernels]
    run = {"board": "mps2-an386", "target": "qemu", "instructions_per_inference": 99999, "per_op": per_op}
    (out / LAST_RUN).write_text(json.dumps(run))
    report = json.loads((out / "report.json").read_text())
    categories = {"runtime": 9000, "kernels": 4000, "model_data": 3000, "arenas": 0, "startup_libc": 2000,
                  "stack": 0, "other": 100}  # fmt: skip
    ram = {"runtime": 0, "kernels": 0, "model_data": 600, "arenas": 512, "startup_libc": 4, "stack": 2048, "other": 8}
    report["firmware"] = {"mps2-an386": {"flash": {"total": 18100, "categories": categories},
                                         "ram": {"total": 3172, "categories": ram}}}  # fmt: skip
    report["int8"]["fallbacks"] = [{"op": "aten::fancy.out", "node": "fancy_1", "location": "m.py:3 in forward",
                                    "reason": "no int8 kernel <yet>", "backend": "portable"}]  # fmt: skip
    (out / "report.json").write_text(json.dumps(report))
    written = write_report(out, png=True)
    text = (out / PAGE).read_text()
    page = check_self_contained(text)
    names = sorted(p.name for p in written[1:])
    assert names == ["report-graph.png", "report-profile.png", "report-sizes.png", "report-timeline-1.png"]
    for p in written[1:]:
        check_png(p)
    bar_titles = [t for t in page.titles if re.match(r"\[\d+\] \S+: [\d,]+ instructions", t)]  # not the graph's
    assert len(bar_titles) == len(per_op) and "1,000 instructions" in " ".join(bar_titles)
    size_titles = [t for t in page.titles if t.startswith("mps2-an386 ")]
    assert len(size_titles) == sum(1 for v in [*categories.values(), *ram.values()] if v)
    assert "18,100" in text and "3,172" in text  # the totals in the sizes table
    assert "no int8 kernel &lt;yet&gt;" in text and "aten::fancy.out" in text  # the user's text, escaped


def planned_graph(pte_path: Path):
    """From the .pte itself: (instructions, {(writer, reader)}, model inputs, model outputs). A planned tensor
    (not a constant) is written by the first instruction that names it, unless the model gives it, and read by
    every later one that names it."""
    from mcu_export.pte import program as pte
    from mcu_export.pte.reader import read_program_file

    plan = read_program_file(pte_path).method("forward")
    steps = [ins for chain in plan.chains for ins in chain.instructions]

    def planned(ins):
        if isinstance(ins, (pte.KernelCall, pte.DelegateCall)):
            args = ins.args
        else:
            args = [ins.move_from, ins.move_to] if isinstance(ins, pte.MoveCall) else []
        for a in args:
            v = plan.values[a]
            for i in v.items if isinstance(v, (pte.TensorList, pte.OptionalTensorList)) else [a]:
                t = plan.values[i] if i >= 0 else None
                if isinstance(t, pte.Tensor) and not t.data_buffer_idx:
                    yield i

    writer = dict.fromkeys(plan.inputs, -1)
    pairs = set()
    for step, ins in enumerate(steps):
        for v in planned(ins):
            w = writer.setdefault(v, step)
            if 0 <= w < step:
                pairs.add((w, step))
    return len(steps), pairs, set(plan.inputs), set(plan.outputs)


def graph_ids(page: Page, kind: str):
    """The graph figure's <g id="graph-KIND-..."> groups (matplotlib's gids, prefixed by render.svg)."""
    found = [re.fullmatch(rf"graph-{kind}-(\d+)(?:-(\d+))?", a.get("id", "")) for _, a in page.elements]
    return [tuple(int(x) for x in m.groups() if x is not None) for m in found if m]


@pytest.mark.slow
@pytest.mark.parametrize("which", ["fp32", "int8"])
def test_graph_figure_has_a_node_per_instruction_and_an_edge_per_pair(which, request, tmp_path):
    out = _copy(request.getfixturevalue(which), tmp_path)
    write_report(out)
    page = check_self_contained((out / PAGE).read_text())
    count, pairs, inputs, outputs = planned_graph(out / "model.pte")
    assert pairs and count >= 5
    nodes = graph_ids(page, "node")
    assert sorted(nodes) == [(i,) for i in range(count)]  # each once
    edges = graph_ids(page, "edge")
    assert len(edges) == len(set(edges)) and set(edges) == pairs
    assert {v for (v,) in graph_ids(page, "input")} == inputs and {v for (v,) in graph_ids(page, "output")} == outputs
    assert len([t for t in page.titles if re.match(r"\[\d+\] .* -> \[\d+\] ", t)]) == len(pairs)  # edges hover


def test_graph_layers_delegates_and_cap():
    matplotlib = pytest.importorskip("matplotlib", reason="the report's figures need the charts extra")
    from mcu_export.report import figures, render
    from mcu_export.report.graph import MAX_NODES, graph
    from mcu_export.report.program import Instruction

    # 0 -> 1 -> {2 (NPU), 3} -> 4 (also reads 0's output) -> {5, 6}; 5 also reads a second model input
    reads = [{0: -1}, {1: 0}, {2: 1}, {2: 1}, {3: 2, 4: 3, 1: 0}, {5: 4, 6: -1}, {5: 4}]
    ins = [Instruction(k, "aten::add.out", "NPU" if k == 2 else "CPU", read_from=r, written=[k + 10],
                       returns=[k + 10] if k >= 5 else []) for k, r in enumerate(reads)]  # fmt: skip
    g = graph(ins)
    assert g.edges == [(0, 1), (0, 4), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5), (4, 6)]
    assert [g.layer[n] for n in g.nodes] == [0, 1, 2, 2, 3, 4, 4]  # the longest path from the inputs
    assert g.column[2] != g.column[3] and g.inputs == {0: [0], 6: [5]} and g.outputs == {15: 5, 16: 6}

    class Data:
        instructions = ins

    with matplotlib.rc_context(render.RC):
        fig, tips = figures.graph(Data)
    boxes = {p.get_gid(): p for p in fig.axes[0].patches}
    assert boxes["node-2"].get_linewidth() > boxes["node-3"].get_linewidth()  # the delegate call stands out
    assert boxes["node-2"].get_edgecolor() != boxes["node-3"].get_edgecolor()

    chain = [Instruction(k, "aten::relu.out", "CPU", read_from={k: k - 1}, written=[k + 1]) for k in range(200)]
    Data.instructions = chain
    with matplotlib.rc_context(render.RC):
        fig, tips = figures.graph(Data)
    assert len([t for t in tips if t.startswith("node-")]) == MAX_NODES
    assert len([t for t in tips if t.startswith("edge-")]) == MAX_NODES - 1
    assert fig.get_suptitle() == f"Graph: the first {MAX_NODES} of 200 instructions (the table lists every one)"


def test_not_an_export_folder(tmp_path, capsys):
    from mcu_export.cli import main

    with pytest.raises(UsageError, match="not an export folder"):
        write_report(tmp_path)
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an export folder" in err[0]


def test_a_broken_report_is_a_warning_not_a_failure(tmp_path):
    (tmp_path / "model.pte").write_bytes(b"not a program")
    (tmp_path / "report.json").write_text("{")
    said, warned = [], []
    report_after(tmp_path, said.append, warned.append)  # never raises
    assert said == [] and len(warned) == 1 and warned[0].startswith("no report: ")
    assert not (tmp_path / PAGE).exists()


@pytest.mark.slow
def test_export_and_run_leave_a_current_page_as_it_is(int8, tmp_path):
    """report_after (export's and run's) draws only when what the page shows changed; `report` always draws."""
    out = _copy(int8, tmp_path)
    kernels = [i for i in gather(out).instructions if i.op.startswith(("cortex_m::", "aten::", "dim_order_ops::"))]
    per_op = [{"index": i.index, "op": i.op, "instructions": 500} for i in kernels]
    run = {"board": "mps2-an386", "target": "qemu", "instructions_per_inference": 7777, "per_op": per_op}
    (out / LAST_RUN).write_text(json.dumps({**run, "seconds": 0.25}))

    def after():
        said, warned = [], []
        report_after(out, said.append, warned.append)
        assert warned == [] and len(said) == 1
        return said[0], (out / PAGE).stat().st_mtime_ns, (out / PAGE).read_text()

    first, made, text = after()
    assert first == f"wrote {out / PAGE}" and "7,777" in text
    os.utime(out / PAGE, ns=(made - 10**9, made - 10**9))  # any rewrite would be seen
    (out / LAST_RUN).write_text(json.dumps({**run, "seconds": 0.31}))  # a rerun: only its wall time differs
    again, kept, same = after()
    assert again.endswith("is current (the same export and run)") and kept == made - 10**9 and same == text
    (out / LAST_RUN).write_text(json.dumps({**run, "instructions_per_inference": 8888}))  # another run
    changed, _, text = after()
    assert changed == f"wrote {out / PAGE}" and "8,888" in text and "7,777" not in text
    report = json.loads((out / "report.json").read_text())
    (out / "report.json").write_text(json.dumps({**report, "model": "edited.py:factory"}))  # a new export
    assert after()[0] == f"wrote {out / PAGE}"
    assert write_report(out) == [out / PAGE]  # `mcu-export report` draws whatever the page says


@pytest.mark.slow
def test_without_matplotlib_the_page_keeps_its_tables(fp32, tmp_path, monkeypatch):
    out = _copy(fp32, tmp_path)
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    with pytest.raises(UsageError, match="pip install 'mcu-export\\[charts\\]'"):
        write_report(out, png=True)
    assert write_report(out) == [out / PAGE]
    text = (out / PAGE).read_text()
    page = check_self_contained(text)
    assert not any(t == "svg" for t, _ in page.elements) and "mcu-export[charts]" in text


@pytest.mark.slow
def test_export_command_writes_the_report(tmp_path, capsys):
    from mcu_export.cli import main

    out = tmp_path / "out"
    assert main(["export", f"{__file__}:_model", "-o", str(out)]) == 0  # this file's Net
    assert f"wrote {out / PAGE}" in capsys.readouterr().out
    check_self_contained((out / PAGE).read_text())
    assert main(["report", str(out), "--png"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"wrote {out / PAGE}" and any(line.endswith("report-timeline-1.png") for line in lines)


@pytest.mark.slow
def test_run_on_qemu_records_its_profile_and_sizes(int8, tmp_path, capsys):
    if not (shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc")):
        pytest.skip("needs qemu-system-arm and arm-none-eabi-gcc")
    from mcu_export.cli import main

    out = _copy(int8, tmp_path)
    np.save(tmp_path / "x.npy", np.random.default_rng(0).random((1, 1, 8, 8), dtype=np.float32))
    assert main(["run", str(out), "--board", "mps2-an386", "--input", str(tmp_path / "x.npy")]) == 0
    assert f"wrote {out / PAGE}" in capsys.readouterr().out
    run = json.loads((out / LAST_RUN).read_text())
    data = gather(out)
    assert data.profile is not None and data.profile.board == "mps2-an386"
    assert data.profile.instructions == run["instructions_per_inference"] > 0
    assert [s.board for s in data.sizes] == ["mps2-an386"]
    sizes = data.sizes[0]
    assert sum(sizes.flash.values()) == sizes.flash_total and sum(sizes.ram.values()) == sizes.ram_total
    assert sizes.flash["kernels"] > 0 and sizes.ram["arenas"] > 0
    page = check_self_contained((out / PAGE).read_text())
    assert len([a for t, a in page.elements if t == "svg"]) == 4  # timeline, profile, sizes, graph


def _chromium_skip():
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")


@pytest.mark.slow
def test_page_in_headless_chromium(int8, tmp_path):
    _chromium_skip()
    from PIL import Image

    out = _copy(int8, tmp_path)
    write_report(out)
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1200,2000",
         (out / PAGE).resolve().as_uri()],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    assert not console, console  # the page logs nothing: no script error, no blocked or missing resource
    with Image.open(shot) as image:
        assert image.size == (1200, 2000)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, boxes and legends drawn, not an empty page
