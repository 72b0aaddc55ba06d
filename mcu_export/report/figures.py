"""The report's figures, drawn with matplotlib (an optional extra: `pip install 'mcu-export[charts]'`).

Figures are made with `matplotlib.figure.Figure`, never pyplot: no global state, no GUI backend chosen, safe
inside the exporter's process. Each tensor, bar, segment and graph node gets a gid, so that render.py can give it
a hover title. The timeline and the profile draw into a figure or a subfigure they are given: `--chart`
(mcu_export.charts) stacks the same two in one figure.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from mcu_export.errors import UsageError
from mcu_export.firmware.sizes import CATEGORIES
from mcu_export.report.data import OpTime, Profile, ReportData
from mcu_export.report.plan import MemoryPlan
from mcu_export.report.program import Instruction, Overlap, short_op

INSTALL = "the report's figures need matplotlib: pip install 'mcu-export[charts]' (or: pip install matplotlib)"
MAX_BARS = 60  # per-op bars past this: the largest ones; the table lists every instruction
CPU_COLOUR, NPU_COLOUR = "#4c72b0", "#dd8452"
CPU_FACE, NPU_FACE = "#dbe6f4", "#fbe3d0"  # the graph's boxes
BOX_STYLE = "round,pad=0,rounding_size=0.08"
BOUND_COLOUR, ARENA_COLOUR, OVERLAP_COLOUR = "#c44e52", "#222222", "#000000"
INPUT_FACE, INPUT_EDGE, OUTPUT_FACE, OUTPUT_EDGE = "#e5f5e0", "#55a868", "#f2e6f7", "#8172b2"
# firmware.sizes.CATEGORIES, each its own colour in every board's bar
CATEGORY_COLOURS = dict(zip(CATEGORIES, ("#4c72b0", "#55a868", "#8172b2", "#dd8452", "#937860", "#c44e52", "#8c8c8c")))

TIMELINE_HEIGHT = 4.8  # inches, at the page's width of 11
# A profile unit: its axis label, its word in a hover title, its colour. "ticks": a serial device's SysTick (one
# clock for kernels and delegate calls alike); "NPU": cycles of the NPU's clock, drawn apart from the CPU's.
UNITS = {
    "CPU": ("CPU instructions", "instructions", CPU_COLOUR),
    "ticks": ("ticks", "ticks", CPU_COLOUR),
    "NPU": ("NPU cycles", "NPU cycles", NPU_COLOUR),
}

Tooltips = Dict[str, str]  # gid -> hover text


def require_matplotlib(message: str = INSTALL) -> None:
    """One line that says how to install it (a UsageError), before any work that would need it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(message) from None


def has_matplotlib() -> bool:
    try:
        require_matplotlib()
    except UsageError:
        return False
    return True


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _colours(names: List[str]) -> Dict[str, str]:
    """One colour per operator, the same in every figure of the page."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps["tab20"]
    fixed = {"model input": "#bbbbbb"}
    others = sorted(n for n in set(names) if n not in fixed)
    return {**fixed, **{n: to_hex(cmap(k % cmap.N)) for k, n in enumerate(others)}}


def timeline(data: ReportData, arena: int) -> Tuple[object, Tooltips]:
    fig = _figure(11, TIMELINE_HEIGHT)
    return fig, draw_timeline(fig, data.plan, arena, data.producers, data.overlaps)


def draw_timeline(fig, plan: MemoryPlan, arena: int, producers: Dict[int, str], overlaps: List[Overlap]) -> Tooltips:
    """Every planned tensor of one arena as a box: x its instructions (first to last use), y its bytes; coloured
    by the operator that writes it; the arena's size and the planner's lower bound as lines; where an output is
    placed over the input it replaces, the shared bytes hatched."""
    from matplotlib.artist import Artist
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    size = plan.arenas[arena]
    bound = plan.lower_bound if arena == min(plan.arenas) else None
    tensors = [t for t in plan.tensors if t.arena == arena]
    colours = _colours(list(producers.values()))
    ax = fig.add_subplot()
    tips: Tooltips = {}
    for t in tensors:
        op = producers.get(t.value, "other")
        rect = Rectangle((t.first - 0.5, t.offset), t.last - t.first + 1, t.size, facecolor=colours.get(op, "#999"),
                         edgecolor="white", linewidth=0.6)  # fmt: skip
        gid = f"tensor-{arena}-{t.value}"
        rect.set_gid(gid)
        tips[gid] = (
            f"%{t.value} ({op}): {t.size:,} bytes at [{t.offset:,}, {t.offset + t.size:,}), instructions {t.first}..{t.last}"
        )
        ax.add_patch(rect)
    for k, o in enumerate(x for x in overlaps if x.arena == arena):
        rect = Rectangle((o.instruction - 0.5, o.low), 1, o.high - o.low, fill=False, hatch="///",
                         edgecolor=OVERLAP_COLOUR, linewidth=0.8)  # fmt: skip
        gid = f"overlap-{arena}-{k}"
        rect.set_gid(gid)
        tips[gid] = (
            f"%{o.writer} written over %{o.reader} at instruction {o.instruction}: bytes [{o.low:,}, {o.high:,})"
        )
        ax.add_patch(rect)
    ax.axhline(size, color=ARENA_COLOUR, linewidth=1.2)
    handles: List[Artist] = [Line2D([], [], color=ARENA_COLOUR, label=f"arena {size:,} B")]
    if bound is not None:
        ax.axhline(bound, color=BOUND_COLOUR, linewidth=1.2, linestyle="--")
        handles.append(Line2D([], [], color=BOUND_COLOUR, linestyle="--", label=f"lower bound {bound:,} B"))
    if any(o.arena == arena for o in overlaps):
        handles.append(Patch(fill=False, hatch="///", edgecolor=OVERLAP_COLOUR, label="out over its input"))
    used = sorted({producers.get(t.value, "other") for t in tensors})
    handles += [Patch(facecolor=colours.get(op, "#999"), label=op) for op in used[:18]]
    ax.set_xlim(-1.5, plan.instructions + 0.5)
    ax.set_ylim(0, max(size, bound or 0, 1) * 1.05)
    ax.set_xlabel("instruction (-1: model inputs, written before the first)")
    ax.set_ylabel("arena offset (bytes)")
    ax.set_title(f"Arena {arena}: {len(tensors)} planned tensors, {size:,} bytes")
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return tips


def _profile_rows(profile: Profile) -> List[OpTime]:
    ops = [o for o in profile.ops if o.value is not None]
    if len(ops) > MAX_BARS:
        ops = sorted(sorted(ops, key=lambda o: -(o.value or 0))[:MAX_BARS], key=lambda o: o.index)
    return ops


def profile_height(p: Profile) -> float:
    """Inches at the page's width: a row per bar."""
    return max(2.2, 0.7 + 0.26 * len(_profile_rows(p)))


def profile(data: ReportData) -> Optional[Tuple[object, Tooltips]]:
    p = data.profile
    if p is None or not _profile_rows(p):
        return None
    fig = _figure(11, profile_height(p))
    total = f", {p.instructions:,} instructions per inference" if p.instructions else ""
    return fig, draw_profile(fig, p, f"Last run: {p.board} ({p.target}){total}")


def _share(p: Profile, o: OpTime) -> str:
    total = p.instructions if o.unit == "CPU" else p.ticks if o.unit == "ticks" else None
    return f" ({100.0 * (o.value or 0) / total:.1f}% of the invoke)" if total else ""


def draw_profile(fig, p: Profile, title: str) -> Tooltips:
    """One bar per instruction that has a figure: CPU instructions or a serial device's ticks, and beside them
    (another clock) the NPU's cycles. Past MAX_BARS, the largest ones (the page's table lists every one)."""
    ops = _profile_rows(p)
    units = [u for u in UNITS if any(o.unit == u for o in ops)]
    axes = fig.subplots(1, len(units), sharey=True, squeeze=False)[0]
    labels = [f"[{o.index}] {short_op(o.op)}" for o in ops]
    tips: Tooltips = {}
    for ax, unit in zip(axes, units):
        axis_label, word, colour = UNITS[unit]
        values = [o.value if o.unit == unit else 0 for o in ops]
        bars = ax.barh(range(len(ops)), values, color=colour)
        for k, (bar, o) in enumerate(zip(bars, ops)):
            if o.unit == unit:
                gid = f"bar-{unit}-{o.index}"
                bar.set_gid(gid)
                what = f"{word} ({o.source})" if unit == "NPU" else word
                tips[gid] = f"[{o.index}] {o.op}: {o.value:,} {what}{_share(p, o)}"
                ax.annotate(f"{o.value:,}", (o.value, k), xytext=(3, 0), textcoords="offset points", va="center",
                            fontsize=7)  # fmt: skip
        ax.set_xlabel(axis_label)
        ax.margins(x=0.15)
    axes[0].set_yticks(range(len(ops)), labels, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(title, fontsize=11)
    return tips


def sizes(data: ReportData) -> Optional[Tuple[object, Tooltips]]:
    """Flash and RAM of each board's firmware as stacked bars, one segment per category."""
    if not data.sizes:
        return None
    rows = [(f"{s.board} flash", s.flash) for s in data.sizes] + [(f"{s.board} RAM", s.ram) for s in data.sizes]
    fig = _figure(11, 1.2 + 0.45 * len(rows))
    ax = fig.add_subplot()
    tips: Tooltips = {}
    left = [0.0] * len(rows)
    for cat in CATEGORIES:
        kib = [split.get(cat, 0) / 1024 for _, split in rows]
        if not any(kib):
            continue
        bars = ax.barh(range(len(rows)), kib, left=left, color=CATEGORY_COLOURS[cat], label=cat.replace("_", "/"))
        for k, bar in enumerate(bars):
            if kib[k]:
                gid = f"size-{k}-{cat}"
                bar.set_gid(gid)
                tips[gid] = f"{rows[k][0]}: {cat} {rows[k][1][cat]:,} bytes"
        left = [a + b for a, b in zip(left, kib)]
    for k, total in enumerate(left):
        ax.annotate(f"{total:,.1f} KiB", (total, k), xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), [name for name, _ in rows])
    ax.invert_yaxis()
    ax.margins(x=0.12)
    ax.set_xlabel("KiB")
    ax.set_title("Firmware flash and RAM by category")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return fig, tips


def _row(keys: Dict[int, float]) -> Dict[int, float]:
    """Markers in a row of their own (the inputs', the outputs'): ordered by where they connect, one apart."""
    order = sorted(keys, key=lambda k: (keys[k], k))
    return {k: n - (len(order) - 1) / 2 for n, k in enumerate(order)}


def _node_tip(i: Instruction) -> str:
    lines = [f"[{i.index}] {i.op} ({i.unit})"]
    lines += [f"reads {', '.join(i.reads)}"] if i.reads else []
    lines += [f"writes {', '.join(i.writes)}"] if i.writes else []
    lines += [i.source + (f": {i.code}" if i.code else "")] if i.source else []
    return "\n".join(lines)


def graph(data: ReportData) -> Optional[Tuple[object, Tooltips]]:
    """The instructions as boxes (short operator and source file:line), an arrow from the writer of each tensor
    to each of its readers, NPU delegate calls in the NPU's colour with a heavy edge, the model's inputs on top
    and its outputs at the bottom. Layers and columns: report/graph.py."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch

    from mcu_export.report.graph import graph as layout

    if not data.instructions:
        return None
    g = layout(data.instructions)
    by_index = {i.index: i for i in data.instructions}
    width = min(11.0, max(6.0, 1.9 * g.width + 0.6))
    fig = _figure(width, 0.9 + 0.62 * (g.layers + 2))
    ax = fig.add_subplot()
    ax.set_axis_off()
    span = max(g.width, (width - 0.6) / 1.9)  # columns across: a box stays about 1.6 in wide where it can
    ax.set_xlim(-span / 2, span / 2)
    ax.set_ylim(-g.layers - 0.5, 1.5)
    chars = max(8, int(width / g.width * 15))  # what fits in a box at 7 pt
    box_w, box_h = 0.86, 0.56
    tips: Tooltips = {}
    where: Dict[str, Tuple[float, float]] = {}  # gid -> centre

    def box(gid: str, x: float, y: float, text: str, face: str, edge: str, lw: float = 0.8) -> None:
        patch = FancyBboxPatch((x - box_w / 2, y - box_h / 2), box_w, box_h, boxstyle=BOX_STYLE,
                               facecolor=face, edgecolor=edge, linewidth=lw)  # fmt: skip
        patch.set_gid(gid)
        ax.add_patch(patch)
        ax.text(x, y, text, ha="center", va="center", fontsize=7, clip_on=True)
        where[gid] = (x, y)

    def arrow(gid: str, a: str, b: str, tip: str) -> None:
        (xa, ya), (xb, yb) = where[a], where[b]
        bend = 0.0 if ya - yb <= 1 or xa != xb else 0.35  # past a layer in line: around the boxes between
        patch = FancyArrowPatch((xa, ya - box_h / 2), (xb, yb + box_h / 2), arrowstyle="-|>", mutation_scale=8,
                                connectionstyle=f"arc3,rad={bend}", color="#555555", linewidth=0.8,
                                shrinkA=0, shrinkB=0)  # fmt: skip
        patch.set_gid(gid)
        tips[gid] = tip
        ax.add_patch(patch)

    def clip(text: str) -> str:
        return text if len(text) <= chars else text[: chars - 1] + "…"

    for n in g.nodes:
        i = by_index[n]
        text = clip(f"[{n}] {short_op(i.op)}")
        if i.source:  # "model.py:42 in Net.forward": the file and line fit a box
            text += "\n" + clip(i.source.split(" in ")[0])
        if i.unit == "NPU":
            box(f"node-{n}", g.column[n], -g.layer[n], text, NPU_FACE, NPU_COLOUR, 1.8)
        else:
            box(f"node-{n}", g.column[n], -g.layer[n], text, CPU_FACE, CPU_COLOUR)
        tips[f"node-{n}"] = _node_tip(i)
    labels = {v: t.split(" ")[1] for i in data.instructions for v, t in zip(i.written, i.writes)}
    for v, x in _row({v: sum(g.column[r] for r in rs) / len(rs) for v, rs in g.inputs.items()}).items():
        box(f"input-{v}", x, 1, f"input %{v}", INPUT_FACE, INPUT_EDGE)
        tips[f"input-{v}"] = f"model input %{v}, read by " + ", ".join(f"[{r}]" for r in g.inputs[v])
    for v, x in _row({v: g.column[w] for v, w in g.outputs.items()}).items():
        box(f"output-{v}", x, -g.layers, f"output %{v}\n{labels.get(v, '')}", OUTPUT_FACE, OUTPUT_EDGE)
        tips[f"output-{v}"] = f"model output %{v} {labels.get(v, '')}, written by [{g.outputs[v]}]"
    for w, r in g.edges:
        values = [f"%{v}" for v, src in by_index[r].read_from.items() if src == w]
        tip = f"[{w}] {short_op(by_index[w].op)} -> [{r}] {short_op(by_index[r].op)}: {', '.join(values)}"
        arrow(f"edge-{w}-{r}", f"node-{w}", f"node-{r}", tip)
    for v, readers in g.inputs.items():
        for r in readers:
            arrow(f"in-{v}-{r}", f"input-{v}", f"node-{r}", f"model input %{v} -> [{r}]")
    for v, w in g.outputs.items():
        arrow(f"out-{w}-{v}", f"node-{w}", f"output-{v}", f"[{w}] -> model output %{v}")
    shown = f"the first {len(g.nodes)} of {g.total} instructions (the table lists every one)"
    fig.suptitle(f"Graph: {shown if len(g.nodes) < g.total else f'{g.total} instructions'}", fontsize=11)
    handles = [Patch(facecolor=CPU_FACE, edgecolor=CPU_COLOUR, label="kernel call (CPU)"),
               Patch(facecolor=NPU_FACE, edgecolor=NPU_COLOUR, linewidth=1.8, label="delegate call (NPU)"),
               Patch(facecolor=INPUT_FACE, edgecolor=INPUT_EDGE, label="model input"),
               Patch(facecolor=OUTPUT_FACE, edgecolor=OUTPUT_EDGE, label="model output")]  # fmt: skip
    fig.legend(handles=handles, loc="outside lower center", ncols=4 if width > 7 else 2, fontsize=8, frameon=False)
    return fig, tips


def all_figures(data: ReportData) -> Dict[str, Tuple[object, Tooltips]]:
    """name -> (figure, tooltips), in page order; a figure without data is left out (the page says why)."""
    out: Dict[str, Tuple[object, Tooltips]] = {}
    for arena in sorted(data.plan.arenas):
        out[f"timeline-{arena}"] = timeline(data, arena)
    for name, made in (("profile", profile(data)), ("sizes", sizes(data)), ("graph", graph(data))):
        if made is not None:
            out[name] = made
    return out
