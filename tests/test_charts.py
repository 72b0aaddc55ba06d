"""`--chart` (mcu_export.charts, drawn by the report's figures): the page is self-contained and names every op
with its figure and every planned tensor in its hover titles, computed here from the profile and plan it was
given; the PNG is the same figure (its size the SVG's at the PNG's resolution) with content; a missing
matplotlib is one line; and `--chart` on real runs (host, QEMU, a serial device on a pty)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from html.parser import HTMLParser

import numpy as np
import pytest

from mcu_export.charts import MemoryPlan, TensorSpan, chart_paths, from_profile, from_run, load_plan, write_charts
from mcu_export.errors import UsageError
from mcu_export.serial.client import OpTicks, Profile

pytest.importorskip("matplotlib", reason="--chart needs the charts extra (matplotlib)")

VOID = {"meta", "br", "img", "hr", "link", "input"}


class Page(HTMLParser):
    """Elements with their attributes and the hover titles; tags must nest and close (html.parser alone
    accepts anything)."""

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
        if self.stack and self.stack[-1] == "title" and "svg" in self.stack:
            self.titles.append(data)

    def svg(self):
        (svg,) = [a for t, a in self.elements if t == "svg"]  # one figure: the profile above the timeline
        return svg


def plan():
    # Three instructions; an input over "in..0", an output over "2..out", a peak of 224 bytes at instruction 1.
    tensors = [
        TensorSpan(0, 1, 0, 64, -1, 0),
        TensorSpan(1, 1, 64, 160, 0, 1),
        TensorSpan(2, 1, 0, 48, 1, 2),
        TensorSpan(3, 1, 64, 16, 2, 3),
    ]
    return MemoryPlan(3, tensors, {1: 224}, 208, {0: "aten::relu.out", 1: "aten::add.out", 2: "aten::mm.out"})


def profile():
    return Profile(2000, [OpTicks(0, "kernel", "aten::relu.out", 300), OpTicks(1, "kernel", "aten::add.out", 1200),
                          OpTicks(2, "kernel", "aten::mm.out", 450)])  # fmt: skip


def check_self_contained(text: str) -> Page:
    page = Page(text)
    tags = {tag for tag, _ in page.elements}
    assert page.elements[0][0] == "html" and not tags & {"script", "link", "img", "iframe", "object"}, tags
    for tag, attrs in page.elements:
        for key in ("src", "href", "xlink:href"):
            assert not attrs.get(key) or attrs[key].startswith("#"), (tag, attrs)  # only the page's own ids
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", text) and "url(http" not in text
    return page


def check_png(path, svg) -> None:
    """The SVG's size (points) at the PNG's resolution, and more than a frame on a white page."""
    from PIL import Image

    from mcu_export.report.render import PNG_DPI

    inches = [float(svg[k].removesuffix("pt")) / 72 for k in ("width", "height")]
    with Image.open(path) as image:
        assert image.format == "PNG"
        # the same figure: its inches (the SVG rounds points to 2 decimals, Agg rounds pixels down) at PNG_DPI
        assert all(abs(n - v * PNG_DPI) < 1 for n, v in zip(image.size, inches)), (image.size, inches)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) >= 8, "a blank or nearly blank image"
    white = max((n for n, c in colours if c == (255, 255, 255)), default=0)
    assert white < 0.97 * image.width * image.height


def tensor_titles(page: Page, p: MemoryPlan):
    """A hover title per planned tensor, naming it, its bytes and its offset."""
    for t in p.tensors:
        (title,) = [s for s in page.titles if s.startswith(f"%{t.value} (")]
        assert f"{t.size:,} bytes at [{t.offset:,}, {t.offset + t.size:,})" in title
    return [s for s in page.titles if re.match(r"%\d+ \(", s)]


def test_page_and_png(tmp_path):
    prof, p = profile(), plan()
    html, png = write_charts(tmp_path / "p.html", from_profile(prof, p))
    assert (html, png) == (tmp_path / "p.html", tmp_path / "p.png") and html.is_file() and png.is_file()
    text = html.read_text()
    page = check_self_contained(text)
    check_png(png, page.svg())
    for o in prof.ops:  # each op's name and ticks in its bar's title, and its share of the whole invoke
        share = 100.0 * o.ticks / prof.total_ticks
        assert f"[{o.index}] {o.name}: {o.ticks:,} ticks ({share:.1f}% of the invoke)" in page.titles
    assert len(tensor_titles(page, p)) == len(p.tensors)
    assert f"{prof.total_ticks:,}" in text  # the invoke's total, in the figure's title and the table


def test_no_plan_no_timeline_and_names_are_escaped(tmp_path):
    html, _ = write_charts(tmp_path / "p", from_profile(Profile(10, [OpTicks(0, "delegate", "<npu & co>", 10)])))
    text = html.read_text()
    page = check_self_contained(text)
    assert not [s for s in page.titles if re.match(r"%\d+ \(", s)] and len(page.titles) == 1
    assert "<npu & co>" not in text and "&lt;npu &amp; co&gt;" in text
    assert "pass the program (--program OUT)" in text


def test_a_profile_of_another_program_is_refused():
    wrong = profile()
    wrong.ops[1] = OpTicks(1, "kernel", "aten::mm.out", 10)
    with pytest.raises(UsageError, match="instruction 1 is aten::mm.out on the device but aten::add.out"):
        from_profile(wrong, plan())
    with pytest.raises(UsageError, match="the profile has 4 instructions, the program 3"):
        from_profile(Profile(10, profile().ops + [OpTicks(3, "kernel", "aten::mm.out", 10)]), plan())


@pytest.mark.slow
def test_many_ops_the_largest_drawn_every_one_listed(tmp_path):
    from mcu_export.report.figures import MAX_BARS

    ops = [OpTicks(i, "kernel", "aten::add.out", 10 + i) for i in range(600)]
    html, png = write_charts(tmp_path / "p.html", from_profile(Profile(10**6, ops)))
    page = check_self_contained(html.read_text())
    check_png(png, page.svg())
    drawn = {int(re.match(r"\[(\d+)\]", s).group(1)) for s in page.titles}
    assert drawn == set(range(600 - MAX_BARS, 600))  # the largest ones
    rows = [a for t, a in page.elements if t == "tr"]
    assert len(rows) == 1 + 600 + 1  # header, every op, the total


@pytest.mark.slow
def test_delegate_calls_get_their_npu_cycles(tmp_path):
    from mcu_export.runners.base import ModelRun, OpCount

    p = plan()
    p.ops.pop(1)
    p.delegates = {1: "delegate 0 (EthosUBackend)"}
    per_op = [OpCount(0, "aten::relu.out", 100), OpCount(2, "aten::mm.out", 50)]
    run = ModelRun([], "corstone-300", "qemu", 0.1, per_op, instructions_per_inference=200)
    npu = {"source": "vela estimate", "subgraphs": [{"delegate": 0, "cycles_npu": 1234, "layers": []}]}
    page = Page(write_charts(tmp_path / "a", from_run(run, p, npu=npu))[0].read_text())
    assert "[0] aten::relu.out: 100 instructions (50.0% of the invoke)" in page.titles
    assert "[1] delegate 0 (EthosUBackend): 1,234 NPU cycles (vela estimate)" in page.titles
    npu["measured"] = [{"delegate": 0, "instruction": 1, "cycles": 999, "source": "PMU"}]  # an FVP counted it
    page = Page(write_charts(tmp_path / "b", from_run(run, p, npu=npu))[0].read_text())
    assert "[1] delegate 0 (EthosUBackend): 999 NPU cycles (PMU)" in page.titles


def test_chart_paths_and_missing_matplotlib(tmp_path, monkeypatch):
    assert chart_paths(tmp_path / "p.html") == (tmp_path / "p.html", tmp_path / "p.png")
    assert chart_paths(tmp_path / "p") == (tmp_path / "p.html", tmp_path / "p.png")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    with pytest.raises(UsageError, match=r"--chart needs matplotlib: pip install 'mcu-export\[charts\]'"):
        write_charts(tmp_path / "p.html", from_profile(profile(), plan()))
    assert not list(tmp_path.iterdir())  # neither file


@pytest.mark.parametrize("command", ["run", "serial"])
def test_cli_chart_without_matplotlib_is_one_line_before_anything(command, tmp_path, monkeypatch, capsys):
    from mcu_export.cli import main

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    if command == "run":  # before the missing program is noticed (and before a run that may take minutes)
        args = ["run", str(tmp_path / "none"), "--chart", str(tmp_path / "c.html")]
    else:  # before the port is opened
        args = ["serial", "profile", "--port", "/dev/nonexistent-serial", "--chart", str(tmp_path / "c.html")]
    assert main(args) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--chart needs matplotlib: pip install 'mcu-export[charts]'" in line


def test_serial_profile_program_goes_with_chart(capsys):
    from mcu_export.cli import main

    assert main(["serial", "profile", "--port", "/dev/nonexistent-serial", "--program", "out/m"]) == 2
    assert "--program goes with --chart" in capsys.readouterr().err  # said before the port is opened


@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    import mcu_export.api
    import mcu_export.examples

    artifact = mcu_export.api.export_spec(mcu_export.examples.spec("mnist_mlp"), quantize="int8")
    out = artifact.save(tmp_path_factory.mktemp("mnist"))
    np.save(out / "x.npy", np.random.default_rng(0).random((1, 1, 28, 28), dtype=np.float32))
    return out, artifact.report


def read_chart(html):
    page = check_self_contained(html.read_text())
    check_png(html.with_suffix(".png"), page.svg())
    return page


@pytest.mark.slow
def test_load_plan_is_the_planners(mnist):
    from mcu_export.planner import compute_lifetimes
    from mcu_export.pte.reader import read_program_file

    out, report = mnist
    p = load_plan(out)
    assert p.arenas == {1: report["memory"]["arena_bytes"]} and p.lower_bound == report["memory"]["lower_bound_bytes"]
    assert len(p.tensors) == report["memory"]["planned_tensors"] and p.instructions == report["instructions"]
    method = read_program_file(out / "model.pte").method("forward")
    lifetimes = {lt.value: lt for lt in compute_lifetimes(method)}
    for t in p.tensors:
        lt = lifetimes[t.value]
        assert (t.size, t.first, t.last) == (lt.size, lt.first, lt.last)
        assert t.offset == method.values[t.value].allocation_info.memory_offset
    assert max(t.offset + t.size for t in p.tensors) == p.arenas[1]  # the peak is reached by some tensor


@pytest.mark.slow
@pytest.mark.parametrize("board", ["host", "mps2-an505"])
def test_run_with_chart_writes_both(mnist, board, tmp_path, capsys):
    if board != "host" and not (shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc")):
        pytest.skip("needs qemu-system-arm and arm-none-eabi-gcc")
    from mcu_export.cli import main

    out, report = mnist
    html, run_json = tmp_path / "chart.html", tmp_path / "run.json"
    args = ["run", str(out), "--board", board, "--input", str(out / "x.npy"), "--json", str(run_json)]
    assert main([*args, "--chart", str(html)]) == 0
    assert f"wrote {html} and {html.with_suffix('.png')}" in capsys.readouterr().out
    page = read_chart(html)
    assert len(tensor_titles(page, load_plan(out))) == report["memory"]["planned_tensors"]
    bars = [s for s in page.titles if re.match(r"\[\d+\] ", s)]
    per_op = json.loads(run_json.read_text())["per_op"]
    if board == "host":  # the host runtime counts nothing per op: the page says so
        assert not per_op and not bars and "count no instructions per op" in html.read_text()
    else:  # a bar per kernel call, its name and instructions (the icount plugin's) in its title
        assert len(per_op) == len(bars) == report["instructions"]
        for o in per_op:
            assert any(s.startswith(f"[{o['index']}] {o['op']}: {o['instructions']:,} instructions") for s in bars)


@pytest.mark.slow
def test_serial_profile_with_chart(mnist, tmp_path, capsys):
    from mcu_export.cli import main
    from mcu_export.host_runtime import build_serial_device
    from serial_link import PtyLink

    out, report = mnist
    link = PtyLink(build_serial_device(), tmp_path / "slots.bin")
    try:
        assert main(["serial", "load", str(out), "--port", link.port]) == 0
        capsys.readouterr()
        html = tmp_path / "profile.html"
        args = ["serial", "profile", "--port", link.port, "--input", str(out / "x.npy"), "--chart", str(html)]
        assert main([*args, "--program", str(out)]) == 0
    finally:
        link.close()
    printed = capsys.readouterr().out
    rows = [r.split() for r in printed.splitlines() if re.match(r"\s*\d+\s", r)]  # "#  op  ticks  share"
    assert len(rows) == report["instructions"]
    page = read_chart(html)
    for index, name, ticks, _share in rows:
        assert any(s.startswith(f"[{index}] {name}: {ticks} ticks") for s in page.titles), (index, name, ticks)
    assert len(tensor_titles(page, load_plan(out))) == report["memory"]["planned_tensors"]
