"""The profile as a chart (mcu_export.charts): the HTML page's SVG read back against the figures it was drawn
from (bars proportional to ticks, one rectangle per planned tensor where the plan puts it, the peak at the
arena size), the PNG checked as a PNG chunk by chunk, and `--chart` on real runs (host, QEMU, a serial
device on a pty)."""

from __future__ import annotations

import shutil
import struct
import sys
import zlib
from html.parser import HTMLParser

import numpy as np
import pytest

from mcu_export.charts import (
    ChartData,
    MemoryPlan,
    OpBar,
    TensorSpan,
    chart_paths,
    from_profile,
    load_plan,
    write_charts,
)
from mcu_export.charts.png import png_bytes
from mcu_export.charts.svg import html_page
from mcu_export.errors import UsageError
from mcu_export.serial.client import OpTicks, Profile

VOID = {"meta", "br", "img", "hr", "link", "input"}


class Page(HTMLParser):
    """Every element with its attributes and the SVG panel (<g class="panel ...">) it sits in; tags must
    nest and close properly (html.parser alone would accept anything)."""

    def __init__(self, text: str):
        super().__init__()
        self.elements, self.stack, self.panel, self.titles = [], [], None, []
        self.feed(text)
        self.close()
        assert not self.stack, f"unclosed: {self.stack}"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "g" and "panel" in a.get("class", ""):
            self.panel = a
        self.elements.append((tag, a, self.panel))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), self.panel))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "title":
            self.titles.append(data)

    def of_class(self, cls):
        return [(a, p) for tag, a, p in self.elements if cls in a.get("class", "").split()]


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


def close(a, b):
    return abs(float(a) - float(b)) < 0.011  # the SVG keeps two decimals


def test_html_parses_and_bars_are_proportional_to_ticks():
    page = Page(html_page(from_profile(profile(), plan())))
    bars = page.of_class("bar")
    assert len(bars) == 3
    ticks = {o.index: o.ticks for o in profile().ops}
    px = float(bars[0][1]["data-px-per-unit"])
    baseline = float(bars[0][1]["data-baseline"])
    xs = []
    for a, _ in bars:
        value = ticks[int(a["data-index"])]
        assert int(a["data-value"]) == value
        assert close(a["height"], value * px) and close(float(a["y"]) + float(a["height"]), baseline)
        xs.append(float(a["x"]))
    assert xs == sorted(xs)  # in instruction order
    heights = [float(a["height"]) for a, _ in bars]
    assert heights[1] == max(heights) and close(heights[0] / heights[1] * 1200, 300)
    titles = " ".join(page.titles)
    assert "#1 aten::add.out: 1,200 ticks (60.0% of the invoke)" in titles  # share of the whole invoke
    assert page.elements[0][0] == "html" and not any(tag == "script" for tag, _, _ in page.elements)


def test_timeline_has_one_rect_per_tensor_where_the_plan_puts_it():
    p = plan()
    page = Page(html_page(from_profile(profile(), p)))
    rects = page.of_class("tensor")
    assert len(rects) == len(p.tensors)
    by_value = {t.value: t for t in p.tensors}
    for a, g in rects:
        t = by_value[int(a["data-value"])]
        x0, col, y0, px = (float(g[k]) for k in ("data-x0", "data-column", "data-y0", "data-px-per-byte"))
        assert close(a["x"], x0 + (t.first + 1) * col) and close(a["width"], (t.last - t.first + 1) * col)
        assert close(a["y"], y0 - (t.offset + t.size) * px) and close(a["height"], t.size * px)
        assert (int(a["data-offset"]), int(a["data-size"])) == (t.offset, t.size)
    (peak, g), = page.of_class("peak")[:1]  # fmt: skip
    assert int(peak["data-bytes"]) == 224 and close(
        peak["y1"], float(g["data-y0"]) - 224 * float(g["data-px-per-byte"])
    )
    assert len(page.of_class("peak-at")) == 1  # where the peak is reached: tensor %1 from instruction 0
    assert "peak: 224 bytes, reached by %1 at instruction 0" in page.titles
    (bound, _), = [b for b in page.of_class("bound") if "data-bytes" in b[0]]  # fmt: skip
    assert int(bound["data-bytes"]) == 208 and bound["stroke-dasharray"]


def test_no_plan_no_timeline_and_names_are_escaped():
    prof = Profile(10, [OpTicks(0, "delegate", "<npu & co>", 10)])
    page_text = html_page(from_profile(prof))
    page = Page(page_text)
    assert not page.of_class("tensor") and len(page.of_class("bar")) == 1
    assert "<npu & co>" not in page_text and "&lt;npu &amp; co&gt;" in page_text
    assert "pass the program (--program OUT)" in page_text


def test_a_profile_of_another_program_is_refused():
    wrong = profile()
    wrong.ops[1] = OpTicks(1, "kernel", "aten::mm.out", 10)
    with pytest.raises(UsageError, match="instruction 1 is aten::mm.out on the device but aten::add.out"):
        from_profile(wrong, plan())
    with pytest.raises(UsageError, match="the profile has 4 instructions, the program 3"):
        from_profile(Profile(10, profile().ops + [OpTicks(3, "kernel", "aten::mm.out", 10)]), plan())


def assert_bars_proportional(page):
    for a, g in page.of_class("bar"):
        px, baseline = float(g["data-px-per-unit"]), float(g["data-baseline"])
        assert px > 0 and close(a["height"], int(a["data-value"]) * px)
        assert close(float(a["y"]) + float(a["height"]), baseline)


def test_many_ops_narrow_the_columns_not_the_page():
    from mcu_export.charts.layout import MAX_WIDTH

    names = ["aten::convolution.out", "aten::add.out"]
    ops = [OpTicks(i, "kernel", names[i % 2], 10 + i) for i in range(600)]
    page = Page(html_page(from_profile(Profile(10**6, ops))))
    (svg, _), = [(a, p) for tag, a, p in page.elements if tag == "svg"]  # fmt: skip
    assert int(svg["width"]) == MAX_WIDTH and len(page.of_class("bar")) == 600
    assert 0 < len(page.of_class("label")) < 600  # every n-th bar labelled, the rest by their titles
    assert_bars_proportional(page)


def test_delegate_calls_say_their_npu_cycles():
    from mcu_export.charts import from_run
    from mcu_export.runners.base import ModelRun, OpCount

    p = plan()
    p.ops.pop(1)
    p.delegates = {1: "delegate 0 (EthosUBackend)"}
    per_op = [OpCount(0, "aten::relu.out", 100), OpCount(2, "aten::mm.out", 50)]
    run = ModelRun([], "corstone-300", "qemu", 0.1, per_op, instructions_per_inference=200)
    npu = {"source": "vela estimate", "subgraphs": [{"delegate": 0, "cycles_npu": 1234, "layers": []}]}
    text = html_page(from_run(run, p, npu=npu))
    page = Page(text)
    assert len(page.of_class("bar")) == 2 and int(page.of_class("mark")[0][0]["data-index"]) == 1
    assert "NPU 1,234 cycles (vela estimate)" in text and "1: delegate 0 (EthosUBackend)" in text
    npu["measured"] = [{"delegate": 0, "instruction": 1, "cycles": 999, "source": "PMU"}]  # an FVP counted it
    assert "NPU 999 cycles (PMU)" in html_page(from_run(run, p, npu=npu))


def test_fused_and_unmeasured_ops_keep_their_bar():
    data = ChartData("t", "instructions", [OpBar(0, "aten::mm.out", 90), OpBar(1, "aten::relu.out", None)], 100)
    bars = Page(html_page(data)).of_class("bar")
    assert [float(a["height"]) for a, _ in bars][1] == 0.0 and len(bars) == 2


def png_chunks(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind!r}"
        chunks.append((kind, body))
        pos += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND" and pos == len(data)
    return chunks


def unfilter(raw: bytes, width: int, height: int, channels: int) -> np.ndarray:
    """PNG's five row filters undone (RFC 2083 6.3), to look at the pixels."""
    stride, out, prev = width * channels, [], bytearray(width * channels)
    for r in range(height):
        f, row = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1 : (r + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                row[i] = (row[i] + a) & 255
            elif f == 2:
                row[i] = (row[i] + b) & 255
            elif f == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(row))
        prev = row
    return np.frombuffer(b"".join(out), np.uint8).reshape(height, width, channels)


def check_png(data: bytes, size=None) -> np.ndarray:
    chunks = png_chunks(data)
    assert len(chunks[0][1]) == 13  # IHDR: width, height, depth, colour type, compression, filter, interlace
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    assert depth == 8 and interlace == 0 and width >= 900 and height > 400
    assert size is None or (width, height) == size
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert len(raw) == height * (1 + width * channels)
    return unfilter(raw, width, height, channels)


def test_png_is_a_valid_png_and_not_blank():
    pytest.importorskip("PIL", reason="the charts extra (Pillow) draws the PNG")
    from mcu_export.charts.layout import layout

    data = from_profile(profile(), plan())
    scene = layout(data)
    pixels = check_png(png_bytes(data), (scene.width, scene.height))  # the SVG's size
    assert pixels.astype(float).var() > 100 and len(np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0)) > 5


def test_write_charts_names_and_missing_pillow(tmp_path, monkeypatch):
    assert chart_paths(tmp_path / "p.html") == (tmp_path / "p.html", tmp_path / "p.png")
    assert chart_paths(tmp_path / "p") == (tmp_path / "p.html", tmp_path / "p.png")
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    with pytest.raises(UsageError, match=r"pip install 'mcu-export\[charts\]'"):
        write_charts(tmp_path / "p.html", from_profile(profile(), plan()))
    assert not list(tmp_path.iterdir())  # no page without its PNG


def test_cli_chart_without_pillow_fails_before_running(tmp_path, monkeypatch, capsys):
    from mcu_export.cli import main

    monkeypatch.setitem(sys.modules, "PIL", None)
    assert main(["run", str(tmp_path / "none"), "--chart", str(tmp_path / "c.html")]) == 2
    (line,) = capsys.readouterr().err.splitlines()  # one line, about Pillow, not about the missing program
    assert "needs Pillow: pip install 'mcu-export[charts]'" in line


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
    assert html.is_file() and html.with_suffix(".png").is_file()
    check_png(html.with_suffix(".png").read_bytes())
    return Page(html.read_text())


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
    pytest.importorskip("PIL", reason="the charts extra (Pillow) draws the PNG")
    if board != "host" and not (shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc")):
        pytest.skip("needs qemu-system-arm and arm-none-eabi-gcc")
    from mcu_export.cli import main

    out, report = mnist
    html = tmp_path / "chart.html"
    assert main(["run", str(out), "--board", board, "--input", str(out / "x.npy"), "--chart", str(html)]) == 0
    assert f"wrote {html} and {html.with_suffix('.png')}" in capsys.readouterr().out
    page = read_chart(html)
    assert len(page.of_class("tensor")) == report["memory"]["planned_tensors"]
    assert int(page.of_class("peak")[0][0]["data-bytes"]) == report["memory"]["arena_bytes"]
    bars = page.of_class("bar")
    if board == "host":  # the host runtime counts nothing per op: the page says so
        assert not bars and "count no instructions per op" in html.read_text()
    else:  # one bar per kernel call, its instructions from the icount plugin
        assert len(bars) == report["instructions"] and all(int(a["data-value"]) > 0 for a, _ in bars)
        assert_bars_proportional(page)


@pytest.mark.slow
def test_serial_profile_with_chart(mnist, tmp_path, capsys):
    pytest.importorskip("PIL", reason="the charts extra (Pillow) draws the PNG")
    from mcu_export.cli import main
    from mcu_export.host_runtime import build_serial_device
    from serial_link import PtyLink

    out, report = mnist
    link = PtyLink(build_serial_device(), tmp_path / "slots.bin")
    try:
        assert main(["serial", "load", str(out), "--port", link.port]) == 0
        html = tmp_path / "profile.html"
        args = ["serial", "profile", "--port", link.port, "--input", str(out / "x.npy"), "--chart", str(html)]
        assert main([*args, "--program", str(out)]) == 0
    finally:
        link.close()
    assert "total (invoke)" in capsys.readouterr().out
    page = read_chart(html)
    assert len(page.of_class("bar")) == report["instructions"]
    assert_bars_proportional(page)
    assert len(page.of_class("tensor")) == report["memory"]["planned_tensors"]
