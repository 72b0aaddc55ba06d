"""The HTML page: self-contained (inline SVG and CSS, no script, nothing fetched), so it opens from a CI
artifact or an e-mail as it is. Hover titles are SVG <title> children, which every browser shows natively."""

from __future__ import annotations

from html import escape
from typing import List

from mcu_export.charts.data import ChartData
from mcu_export.charts.layout import FONT, INK, Scene, Shape, headline, layout


def _n(v: float) -> str:
    """Two decimals at most: enough for a pixel, and short."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _attrs(s: Shape) -> str:
    out = f' class="{s.cls}"' if s.cls else ""
    for k, v in s.data.items():
        out += f' data-{k}="{escape(str(v))}"'
    return out


def _shape(s: Shape) -> str:
    title = f"<title>{escape(s.text)}</title>" if s.text and s.kind != "text" else ""
    if s.kind == "rect":
        fill, stroke = s.fill, f' stroke="{s.stroke}" stroke-width="0.5"' if s.stroke != "none" else ""
        geometry = f'x="{_n(s.x)}" y="{_n(s.y)}" width="{_n(s.w)}" height="{_n(s.h)}"'
        return f'<rect{_attrs(s)} {geometry} fill="{fill}"{stroke}>{title}</rect>'
    if s.kind == "line":
        dash = ' stroke-dasharray="6 4"' if s.dash else ""
        width = 1.5 if s.cls in ("peak", "bound") else 1
        geometry = f'x1="{_n(s.x)}" y1="{_n(s.y)}" x2="{_n(s.w)}" y2="{_n(s.h)}"'
        return f'<line{_attrs(s)} {geometry} stroke="{s.stroke}" stroke-width="{width}"{dash}>{title}</line>'
    rotate = f' transform="rotate(-90 {_n(s.x)} {_n(s.y)})"' if s.rotate else ""
    weight = ' font-weight="bold" font-size="13"' if s.bold else ""
    anchor = f' text-anchor="{s.anchor}"' if s.anchor != "start" else ""
    return f'<text{_attrs(s)} x="{_n(s.x)}" y="{_n(s.y)}"{anchor}{weight}{rotate}>{escape(s.text)}</text>'


def svg(scene: Scene) -> str:
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" height="{scene.height}" '
        f'viewBox="0 0 {scene.width} {scene.height}" font-family="sans-serif" font-size="{FONT}" fill="{INK}">',
        f'<rect x="0" y="0" width="{scene.width}" height="{scene.height}" fill="#ffffff"/>',
    ]
    for p in scene.panels:
        # The pixel mapping at full precision, so that a reader can check every shape against its figures.
        scale = "".join(f' data-{k.replace("_", "-")}="{v:.9g}"' for k, v in p.scale.items())
        kind = "bars" if p.title.startswith("Per-op") else "timeline" if p.title.startswith("Arena") else "note"
        lines.append(f'<g class="panel {kind}"{scale}>')
        if p.title:
            lines.append(f'<text x="80" y="{p.top + 16}" font-weight="bold" font-size="13">{escape(p.title)}</text>')
        lines += [_shape(s) for s in p.shapes]
        lines.append("</g>")
    lines.append("</svg>")
    return "\n".join(lines)


def _table(data: ChartData) -> List[str]:
    if not data.ops:
        return []
    denominator = data.denominator
    rows = ["<table>", f"<tr><th>#</th><th>op</th><th>{escape(data.unit)}</th><th>share</th></tr>"]
    for o in sorted(data.ops, key=lambda o: o.index):
        figure = "fused" if o.value is None else f"{o.value:,}"
        share = f"{100.0 * o.value / denominator:.1f}%" if o.value is not None and denominator else "-"
        rows.append(f"<tr><td>{o.index}</td><td>{escape(o.name)}</td><td>{figure}</td><td>{share}</td></tr>")
    if data.total:
        rows.append(f"<tr><td></td><td>total (invoke)</td><td>{data.total:,}</td><td>100.0%</td></tr>")
    rows.append("</table>")
    return rows


_CSS = """body { font-family: sans-serif; margin: 1.5em; color: #222; }
svg { max-width: 100%; height: auto; border: 1px solid #ccc; }
rect.bar:hover, rect.tensor:hover { opacity: 0.75; }
table { border-collapse: collapse; margin-top: 1em; font-size: 13px; }
td, th { padding: 2px 10px; border-bottom: 1px solid #eee; text-align: right; }
td:nth-child(2), th:nth-child(2) { text-align: left; font-family: monospace; }"""


def html_page(data: ChartData) -> str:
    title, _ = headline(data)  # the figures line is in the SVG, where the PNG has it too
    body = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>\n{_CSS}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{escape(title)}</h1>",
        svg(layout(data)),
        *_table(data),
        "</body>",
        "</html>",
    ]
    return "\n".join(body) + "\n"
