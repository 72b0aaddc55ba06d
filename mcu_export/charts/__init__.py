"""`--chart OUT.html` of `mcu-export run` and `serial profile`: per-op time and the arena timeline in one
figure, drawn by the report's figure code (report/figures.py, matplotlib), written as a self-contained HTML page
(inline SVG with hover titles, no script, nothing fetched) and as OUT.png next to it.

    data = from_profile(profile, load_plan("out/mnist"))   # or from_run(model_run, plan, npu=...)
    html, png = write_charts("profile.html", data)        # also writes profile.png

data.py says what is shown; the figure is built here, from the report's drawing functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Tuple, Union

from mcu_export import atomic
from mcu_export.charts.data import ChartData, from_profile, from_run
from mcu_export.report.plan import MemoryPlan, TensorSpan, load_plan

WIDTH = 11  # inches: the report's figures' width
INSTALL = "--chart needs matplotlib: pip install 'mcu-export[charts]' (or: pip install matplotlib)"


def require_matplotlib() -> None:
    """Before a run that may take minutes: one line (a UsageError) that says how to install it."""
    from mcu_export.report.figures import require_matplotlib as require

    require(INSTALL)


def chart_paths(path: Union[str, Path]) -> Tuple[Path, Path]:
    """OUT.html -> (OUT.html, OUT.png): the PNG goes next to the page, with the same stem."""
    path = Path(path)
    base = path.with_suffix("") if path.suffix.lower() in (".html", ".htm", ".png") else path
    return base.with_name(base.name + ".html"), base.with_name(base.name + ".png")


def headline(data: ChartData) -> str:
    """The profile panel's title: what ran and the whole invoke's figures."""
    p, parts = data.profile, []
    if p is not None and p.instructions:
        parts.append(f"{p.instructions:,} instructions per inference")
    if p is not None and p.ticks:
        parts.append(f"invoke {p.ticks:,} ticks")
    return f"{data.title}: {', '.join(parts)}" if parts else data.title


def chart_figure(data: ChartData):
    """(figure, tooltips): the profile above a timeline per arena, each a subfigure drawn by report.figures."""
    from matplotlib.figure import Figure

    from mcu_export.report import figures
    from mcu_export.report.program import overlaps, producers

    panels = []
    if data.profile is not None and any(o.value is not None for o in data.profile.ops):
        panels.append((figures.profile_height(data.profile), "profile", 0))
    for arena in sorted(data.plan.arenas) if data.plan is not None else []:
        panels.append((figures.TIMELINE_HEIGHT, "timeline", arena))
    fig = Figure(figsize=(WIDTH, sum(h for h, _, _ in panels) or 1.0), layout="constrained")
    if not panels:  # nothing measured, no plan: the page's notes say why
        return fig, {}
    subs = fig.subfigures(len(panels), 1, height_ratios=[h for h, _, _ in panels], squeeze=False)[:, 0]
    tips: figures.Tooltips = {}
    for sub, (_, kind, arena) in zip(subs, panels):
        if kind == "profile":
            assert data.profile is not None
            tips.update(figures.draw_profile(sub, data.profile, headline(data)))
        else:
            assert data.plan is not None
            tips.update(figures.draw_timeline(sub, data.plan, arena, producers(data.plan), overlaps(data.plan)))
    return fig, tips


def write_charts(path: Union[str, Path], data: ChartData) -> Tuple[Path, Path]:
    """Both files or neither: the figure is drawn and rendered before either is written."""
    require_matplotlib()
    import matplotlib

    from mcu_export.report import render

    html, png = chart_paths(path)
    with matplotlib.rc_context(render.RC):
        fig, tips = chart_figure(data)
    page = render.html("report/chart.html.j2", {"chart": (fig, tips)}, data=data)
    image = render.png(fig)
    atomic.write_bytes(html, page.encode())
    atomic.write_bytes(png, image)
    return html, png


def profile_chart(path: Union[str, Path], profile, program: Optional[Union[str, Path]] = None) -> Tuple[Path, Path]:
    """`mcu-export serial profile --chart`: the device's ticks; the timeline when the program is given (the
    device holds only the image, the host needs the .pte to know its plan)."""
    return write_charts(path, from_profile(profile, load_plan(program) if program else None))


def run_chart(path: Union[str, Path], run, program: Union[str, Path], npu=None) -> Tuple[Path, Path]:
    """`mcu-export run --chart`: instructions per op where the target counted them, the NPU's cycles at its
    delegate calls (npu: runners.report.npu_report), and the program's plan."""
    return write_charts(path, from_run(run, load_plan(program), npu=npu))


__all__ = [
    "ChartData",
    "MemoryPlan",
    "TensorSpan",
    "chart_figure",
    "chart_paths",
    "from_profile",
    "from_run",
    "load_plan",
    "profile_chart",
    "require_matplotlib",
    "run_chart",
    "write_charts",
]
