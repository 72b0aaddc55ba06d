"""The report of an export folder: OUT/report.html, one self-contained page (figures as inline SVG, no script,
nothing fetched: it opens from disk, a CI artefact or an e-mail), and with `png=True` each figure as
OUT/report-<name>.png for READMEs.

    write_report("out/mnist")            # `mcu-export report OUT [--png]`; also at the end of export and run

data.py gathers what is shown (report.json, model.pte, last_run.json), figures.py draws it with matplotlib (the
optional `charts` extra: without it the page keeps its tables and says how to get the figures), render.py
turns figures into SVG and PNG and fills codegen/report/report.html.j2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, List, Union

from mcu_export import atomic
from mcu_export.errors import McuExportError
from mcu_export.report import current
from mcu_export.report.data import LAST_RUN, ReportData, export_folder, gather

PAGE = "report.html"


def write_report(out: Union[str, Path], png: bool = False, reuse: bool = False) -> List[Path]:
    """Writes OUT/report.html (and OUT/report-<figure>.png with png); returns the files written. reuse: a page
    made from the same inputs (current.py) is left as it is, and nothing is returned."""
    from mcu_export.report import figures, render

    if png:
        figures.require_matplotlib()  # a PNG needs it; the page alone does not
    key = current.inputs_key(export_folder(out))
    if reuse and not png and current.is_current(Path(out) / PAGE, key):
        return []
    data = gather(out)
    drawn = {}
    missing = ""
    if figures.has_matplotlib():
        import matplotlib

        with matplotlib.rc_context(render.RC):
            drawn = figures.all_figures(data)
    else:
        missing = figures.INSTALL
    written = [data.out / PAGE]
    pngs = {f"report-{name}.png": render.png(fig) for name, (fig, _) in drawn.items()} if png else {}
    atomic.write_bytes(written[0], render.page(data, drawn, missing, inputs=current.meta_tag(key)).encode())
    for name, image in pngs.items():
        atomic.write_bytes(data.out / name, image)
        written.append(data.out / name)
    return written


def report_after(out: Union[str, Path], say: Callable[[str], None], warn: Callable[[str], None]) -> None:
    """The report at the end of `export` and `run`: its failure is one warning line, never the command's."""
    try:
        written = write_report(out, reuse=True)
        say(f"wrote {written[0]}" if written else f"{Path(out) / PAGE} is current (the same export and run)")
    except McuExportError as exc:
        warn(f"no report: {exc.message}")
    except Exception as exc:  # a bug in the report must not cost the user the export or run it follows
        warn(f"no report: {type(exc).__name__}: {exc}")


__all__ = ["LAST_RUN", "PAGE", "ReportData", "gather", "report_after", "write_report"]
