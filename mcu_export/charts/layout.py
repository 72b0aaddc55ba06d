"""The two panels as a list of shapes in pixel coordinates, computed once and drawn twice (SVG for the HTML
page, Pillow for the PNG), so both always show the same thing.

Panel 1, per-op time: one bar per profiled instruction, in instruction order, height proportional to its
ticks/instructions, its share of the invoke above it and its operator below. Panel 2, arena timeline: x is
the instruction (one column each, plus "in" before instruction 0 and "out" after the last, where model inputs
and outputs live), y the arena offset (0 at the bottom); one rectangle per planned tensor over its lifetime;
a line at the arena size (the plan's peak) and, dashed, at the planner's lower bound.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from mcu_export.charts.data import ChartData, MemoryPlan

# Categorical colours (Tableau 10): distinct, and readable with black text on or near them.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
INK, GRID, PEAK, BOUND = "#222222", "#dddddd", "#d62728", "#2ca02c"

MARGIN_L, MARGIN_R, BAR_W, BAR_GAP = 80, 30, 18, 6
BARS_H, LABELS_H, TIMELINE_H = 220, 180, 260
FONT = 11
MAX_WIDTH = 6000


@dataclass
class Shape:
    kind: str  # rect, line, text
    x: float
    y: float
    w: float = 0.0  # rect: width; line: x2
    h: float = 0.0  # rect: height; line: y2
    fill: str = "none"
    stroke: str = "none"
    text: str = ""  # text: the string; rect/line: the hover title
    cls: str = ""  # what the shape is (bar, tensor, peak, bound, ...): tests and CSS find it by this
    data: Dict[str, object] = field(default_factory=dict)  # the figures it was drawn from, as data-* attributes
    anchor: str = "start"  # text: start, middle, end
    rotate: bool = False  # text: read bottom to top, ending at (x, y)
    dash: bool = False
    bold: bool = False


@dataclass
class Panel:
    title: str
    top: int
    height: int
    shapes: List[Shape] = field(default_factory=list)
    scale: Dict[str, float] = field(default_factory=dict)  # pixel mapping, for readers of the SVG


@dataclass
class Scene:
    width: int
    height: int
    panels: List[Panel]


def _short(name: str) -> str:
    """aten::convolution.out -> convolution: the namespace and overload are in the hover title."""
    base = name.split("::")[-1]
    base = base[:-4] if base.endswith(".out") else base
    return base if len(base) <= 28 else base[:27] + "~"  # "~": the default PNG font may lack an ellipsis


def _nice_ticks(top: float, count: int = 4) -> List[float]:
    if top <= 0:
        return [0.0]
    raw = top / count
    mag = 10 ** (len(str(int(raw))) - 1) if raw >= 1 else 1
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return [i * step for i in range(int(top // step) + 1)]


def _axis(panel: Panel, x: float, right: float, y0: float, px_per_unit: float, top: float, unit: str) -> None:
    for t in _nice_ticks(top):
        y = y0 - t * px_per_unit
        panel.shapes.append(Shape("line", x, y, right, y, stroke=GRID, cls="grid"))
        panel.shapes.append(Shape("text", x - 6, y + 4, text=f"{t:,.0f}", anchor="end", cls="tick"))
    panel.shapes.append(Shape("text", 8, y0 - top * px_per_unit - 10, text=unit, cls="unit"))


def _columns(data: ChartData) -> int:
    """Instructions on the x axis: both panels share it, so a bar stands above its column of the timeline."""
    if data.plan is not None:
        return data.plan.instructions
    return max((o.index for o in data.ops), default=-1) + 1


def _column(width: int, instructions: int) -> float:
    return (width - MARGIN_L - MARGIN_R) / (instructions + 2)  # "in", each instruction, "out"


def _bars_panel(data: ChartData, top: int, width: int) -> Panel:
    panel = Panel(f"Per-op time ({data.unit})", top, BARS_H + LABELS_H + 50)
    y0 = top + 40 + BARS_H  # the bars' baseline
    ops = sorted(data.ops, key=lambda o: o.index)
    most = max((o.value or 0 for o in ops), default=0)
    px = BARS_H / most if most else 0.0
    col = _column(width, _columns(data))
    bar = min(col * 0.7, 48.0)
    every = max(1, math.ceil(14 / col))  # a label per bar while they fit side by side, else every n-th
    panel.scale = {"x0": MARGIN_L, "column": col, "baseline": y0, "px_per_unit": px}
    if not ops:  # a line saying so rather than an empty frame
        panel.height = 50
        panel.shapes.append(Shape("text", MARGIN_L, top + 38, text="(no per-op figures)", cls="note"))
        return panel
    _axis(panel, MARGIN_L, width - MARGIN_R, y0, px, most, data.unit)
    total = data.denominator
    for o in ops:
        centre = MARGIN_L + (o.index + 1.5) * col
        value = o.value or 0
        share = f"{100.0 * value / total:.1f}%" if total and o.value is not None else "-"
        figure = f"{o.value:,} {data.unit}" if o.value is not None else "fused into an earlier call"
        title = f"#{o.index} {o.name}: {figure} ({share} of {'the invoke' if data.total else 'the ops'})"
        # Colour by operator, stable across runs (crc32, not hash()); delegates and the like in grey.
        colour = PALETTE[zlib.crc32(o.name.encode()) % len(PALETTE)] if o.kind in ("kernel", "fused") else "#999999"
        h = value * px
        data_attrs: Dict[str, object] = {"index": o.index, "value": value}
        panel.shapes.append(
            Shape("rect", centre - bar / 2, y0 - h, bar, h, fill=colour, text=title, cls="bar", data=data_attrs)
        )
        if bar >= 24:  # a share label wider than its bar would run into the next one's: the title has it
            panel.shapes.append(Shape("text", centre, y0 - h - 4, text=share, anchor="middle", cls="share"))
        if o.index % every == 0:
            label = f"{o.index}: {_short(o.name)}"
            panel.shapes.append(Shape("text", centre + 4, y0 + 6, text=label, anchor="end", rotate=True, cls="label"))
    delegates = data.plan.delegates if data.plan is not None else {}
    for index, text in sorted(data.marks.items()):  # e.g. a delegate call: its NPU cycles, in words, no bar
        centre = MARGIN_L + (index + 1.5) * col
        mark = Shape("text", centre + 4, y0 - 4, text=text, rotate=True, cls="mark", data={"index": index})
        panel.shapes.append(mark)
        label = f"{index}: {delegates.get(index, '')}".rstrip(": ")
        panel.shapes.append(Shape("text", centre + 4, y0 + 6, text=label, anchor="end", rotate=True, cls="label"))
    panel.shapes.append(Shape("line", MARGIN_L, y0, width - MARGIN_R, y0, stroke=INK, cls="baseline"))
    return panel


def _timeline_panel(plan: MemoryPlan, arena: int, top: int, width: int) -> Panel:
    size = plan.arenas[arena]
    bound = plan.lower_bound if arena == 1 else None
    panel = Panel(f"Arena {arena} timeline: {size:,} bytes", top, TIMELINE_H + 80)
    y0 = top + 40 + TIMELINE_H  # offset 0
    col = _column(width, plan.instructions)
    px = TIMELINE_H / max(size, bound or 0, 1)
    panel.scale = {"x0": MARGIN_L, "column": col, "y0": y0, "px_per_byte": px, "first_column": -1}
    _axis(panel, MARGIN_L, width - MARGIN_R, y0, px, max(size, 1), "bytes")

    def x_of(instr: int) -> float:
        return MARGIN_L + (instr + 1) * col

    for t in sorted((t for t in plan.tensors if t.arena == arena), key=lambda t: (t.first, t.offset)):
        end = t.offset + t.size
        life = f"instructions {t.first}..{t.last}".replace("-1..", "in..").replace(f"..{plan.instructions}", "..out")
        panel.shapes.append(
            Shape(
                "rect",
                x_of(t.first),
                y0 - end * px,
                (t.last - t.first + 1) * col,
                t.size * px,
                fill=PALETTE[t.value % len(PALETTE)],
                stroke="#ffffff" if t.size * px >= 4 else "none",  # a white edge would hide a thin tensor
                text=f"%{t.value}: {t.size:,} bytes at [{t.offset:,}, {end:,}), {life}",
                cls="tensor",
                data={"value": t.value, "offset": t.offset, "size": t.size, "first": t.first, "last": t.last},
            )
        )
    top_tensor = max((t for t in plan.tensors if t.arena == arena), key=lambda t: t.offset + t.size, default=None)
    at = f", reached by %{top_tensor.value} at instruction {top_tensor.first}" if top_tensor else ""
    right = width - MARGIN_R
    panel.shapes.append(
        Shape("line", MARGIN_L, y0 - size * px, right, y0 - size * px, stroke=PEAK, text=f"peak: {size:,} bytes{at}",
              cls="peak", data={"bytes": size})
    )  # fmt: skip
    panel.shapes.append(Shape("text", right, y0 - size * px - 4, text=f"peak {size:,} B", anchor="end", cls="peak"))
    if top_tensor is not None:  # where the peak is reached: a marker on the line, at that tensor's first column
        mx = x_of(top_tensor.first) + col / 2
        panel.shapes.append(
            Shape("rect", mx - 4, y0 - size * px - 4, 8, 8, fill=PEAK, text=f"peak: {size:,} bytes{at}", cls="peak-at")
        )
    if bound is not None:
        yb = y0 - bound * px
        panel.shapes.append(
            Shape("line", MARGIN_L, yb, right, yb, stroke=BOUND, dash=True, cls="bound", data={"bytes": bound},
                  text=f"lower bound: {bound:,} bytes live at once (no plan can use less)")
        )  # fmt: skip
        panel.shapes.append(
            Shape("text", MARGIN_L + 4, yb - 4, text=f"lower bound {bound:,} B", cls="bound", anchor="start")
        )
    panel.shapes.append(Shape("line", MARGIN_L, y0, right, y0, stroke=INK, cls="baseline"))
    step = max(1, int(40 // max(col, 1e-9)) + 1)  # an x label every ~40 px
    for c in range(-1, plan.instructions + 1):
        if c in (-1, plan.instructions) or c % step == 0:
            label = "in" if c == -1 else "out" if c == plan.instructions else str(c)
            panel.shapes.append(Shape("text", x_of(c) + col / 2, y0 + 16, text=label, anchor="middle", cls="tick"))
    panel.shapes.append(Shape("text", right, y0 + 34, text="instruction", anchor="end", cls="unit"))
    return panel


def layout(data: ChartData) -> Scene:
    # A column per instruction, wide enough for a bar and its label; past MAX_WIDTH they narrow instead (a PNG
    # tens of thousands of pixels wide helps nobody; the page's hover titles still give every figure).
    width = max(900, min(MAX_WIDTH, MARGIN_L + MARGIN_R + (_columns(data) + 2) * (BAR_W + BAR_GAP)))
    title, figures = headline(data)
    header = [Shape("text", 8, 16, text=title, bold=True, cls="title")]
    header += [Shape("text", 8, 33, text=figures, cls="figures")] if figures else []
    panels: List[Panel] = [Panel("", 0, 40, header), _bars_panel(data, 40, width)]
    top = 40 + panels[-1].height
    if data.plan is not None:
        for arena in sorted(data.plan.arenas):
            panels.append(_timeline_panel(data.plan, arena, top, width))
            top += panels[-1].height
    for note in data.notes:
        panels.append(Panel("", top, 24, [Shape("text", MARGIN_L, top + 16, text=note, cls="note")]))
        top += 24
    return Scene(width, top + 10, panels)


def headline(data: ChartData) -> Tuple[str, Optional[str]]:
    """The page title and one line of figures under it."""
    parts = []
    if data.ops:
        measured = sum(o.value or 0 for o in data.ops)
        parts.append(f"{len(data.ops)} ops, {measured:,} {data.unit}")
        if data.total:
            parts.append(f"invoke {data.total:,} {data.unit}")
    if data.plan is not None:
        parts += [f"arena {a}: {n:,} bytes" for a, n in sorted(data.plan.arenas.items())]
        if data.plan.lower_bound is not None:
            parts.append(f"lower bound {data.plan.lower_bound:,} bytes")
    return f"mcu-export profile: {data.title}", ", ".join(parts) or None
