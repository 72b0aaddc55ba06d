"""A profile as a chart: per-op time and the arena timeline, as a self-contained HTML page and a PNG.

    data = from_profile(profile, load_plan("out/mnist"))   # or from_run(model_run, plan)
    html, png = write_charts("profile.html", data)        # also writes profile.png

data.py says what is shown, layout.py where (one scene for both outputs), svg.py and png.py draw it; png.py
says why Pillow draws the PNG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Tuple, Union

from mcu_export import atomic
from mcu_export.charts.data import ChartData, MemoryPlan, OpBar, TensorSpan, from_profile, from_run, load_plan
from mcu_export.charts.png import png_bytes, require_pillow
from mcu_export.charts.svg import html_page


def chart_paths(path: Union[str, Path]) -> Tuple[Path, Path]:
    """OUT.html -> (OUT.html, OUT.png): the PNG goes next to the page, with the same stem."""
    path = Path(path)
    base = path.with_suffix("") if path.suffix.lower() in (".html", ".htm", ".png") else path
    return base.with_name(base.name + ".html"), base.with_name(base.name + ".png")


def write_charts(path: Union[str, Path], data: ChartData) -> Tuple[Path, Path]:
    html, png = chart_paths(path)
    image = png_bytes(data)  # first: a missing Pillow must not leave a page without its PNG
    atomic.write_bytes(html, html_page(data).encode())
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
    "OpBar",
    "TensorSpan",
    "chart_paths",
    "from_profile",
    "from_run",
    "load_plan",
    "profile_chart",
    "run_chart",
    "require_pillow",
    "write_charts",
]
