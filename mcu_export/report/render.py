"""Figures to inline SVG (for the page) and PNG (Agg, for READMEs and CI artefacts), and the pages themselves
(the report's, and `--chart`'s in mcu_export.charts).

The SVG keeps text as text (svg.fonttype none: smaller, searchable) and carries no XML prolog, DTD or RDF
metadata: it sits inside the HTML and nothing in it names a URL to fetch. Several figures share one page, so
each one's ids get its own prefix (matplotlib numbers them from 1 in every figure).
"""

from __future__ import annotations

import io
import re
from html import escape
from typing import Any, Dict, Tuple

from mcu_export.report.figures import Tooltips

RC: Any = {  # Any: matplotlib types rc keys as a Literal union
    "svg.fonttype": "none",
    "svg.hashsalt": "mcu-export",
    "font.size": 9,
}
PNG_DPI = 110


def svg(fig, tips: Tooltips, prefix: str) -> str:
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', text)
    for gid, tip in tips.items():  # a <title> child: every browser shows it on hover, no script needed
        text = text.replace(f'<g id="{prefix}-{gid}">', f'<g id="{prefix}-{gid}"><title>{escape(tip)}</title>', 1)
    return text.replace('width="', 'class="figure" width="', 1)


def png(fig) -> bytes:
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # Agg explicitly: no display, whatever backend the user's matplotlibrc names
    buf = io.BytesIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format="png", dpi=PNG_DPI, metadata={"Software": None})
    return buf.getvalue()


def html(template: str, figures: Dict[str, Tuple[object, Tooltips]], **context) -> str:
    """codegen/<template> with `figures` inline as SVG (name -> markup) and `context`."""
    from markupsafe import Markup

    from mcu_export.report.program import short_op
    from mcu_export.templates import templates

    inline = {name: Markup(svg(fig, tips, name)) for name, (fig, tips) in figures.items()}
    env = templates().overlay(autoescape=True)  # the page's text is the user's (names, source lines): escaped
    env.filters["short_op"] = short_op
    return env.get_template(template).render(figures=inline, **context)


def page(data, figures: Dict[str, Tuple[object, Tooltips]], missing: str = "", inputs: str = "") -> str:
    """The report page: codegen/report/report.html.j2 with the figures inline (missing: why there are none;
    inputs: the <meta> tag naming what the page was made from, report/current.py)."""
    from markupsafe import Markup

    return html("report/report.html.j2", figures, data=data, missing=missing, inputs=Markup(inputs))
