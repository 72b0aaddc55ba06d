"""The PNG: the same scene as the HTML page (layout.py), rasterised with Pillow.

Why Pillow: the PNG needs rectangles, lines and readable text (operator names). matplotlib would do it but
is heavy for two panels of rectangles: 3.11 with its dependencies (contourpy, fonttools, kiwisolver, pillow,
pyparsing, ...) is about 125 MB installed beyond numpy, 16 s to install and 1.4 s to import here. Pillow 13 is
one wheel with no dependencies (about 22 MB installed, 50 ms to import), well kept, and brings a font
(`ImageFont.load_default(size)`). Writing the PNG ourselves (zlib + struct) would be short, but the text would
need a bitmap font of our own to draw and keep: not worth it next to a dependency this small. Pillow is the
optional `charts` extra; the HTML page needs nothing.
"""

from __future__ import annotations

import io
from typing import Tuple

from mcu_export.charts.data import ChartData
from mcu_export.charts.layout import FONT, Scene, Shape, layout
from mcu_export.errors import UsageError

INSTALL = "the PNG chart needs Pillow: pip install 'mcu-export[charts]' (or: pip install pillow)"


def require_pillow() -> None:
    """Fail before a long run rather than after it, in one line that says how to install it."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise UsageError(INSTALL) from None


def _rgb(colour: str) -> Tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size)
    except TypeError:  # Pillow < 10.1: one fixed-size bitmap font
        return ImageFont.load_default()


def _dashed(draw, x1: float, y: float, x2: float, colour, width: int) -> None:
    x = x1
    while x < x2:  # the dash pattern of the SVG (6 on, 4 off); only horizontal lines are dashed
        draw.line([(x, y), (min(x + 6, x2), y)], fill=colour, width=width)
        x += 10


def _text(image, draw, s: Shape, fonts) -> None:
    from PIL import Image, ImageDraw

    font = fonts[1] if s.bold else fonts[0]
    colour = (34, 34, 34)
    if not s.rotate:
        # SVG puts (x, y) on the baseline: Pillow's "l/m/r" + "s" anchors are the same point.
        draw.text(
            (s.x, s.y), s.text, font=font, fill=colour, anchor={"start": "ls", "middle": "ms", "end": "rs"}[s.anchor]
        )
        return
    # Rotated text: draw it level on its own tile, turn the tile a quarter (counter-clockwise, so it reads
    # bottom to top like SVG's rotate(-90)), then paste it so that its end ("end") or start is at (x, y).
    width = int(draw.textlength(s.text, font=font)) + 2
    tile = Image.new("L", (width, FONT + 6), 0)
    ImageDraw.Draw(tile).text((0, FONT + 2), s.text, font=font, fill=255, anchor="ls")
    tile = tile.rotate(90, expand=True)
    left = int(round(s.x)) - (FONT + 2)  # the baseline, now vertical, sits at x
    top = int(round(s.y)) - (tile.size[1] if s.anchor == "start" else 0)  # "start": it begins at y, going up
    image.paste(Image.new("RGB", tile.size, colour), (left, top), tile)


def render(scene: Scene) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (scene.width, scene.height), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    fonts = (_font(FONT), _font(13))
    for panel in scene.panels:
        if panel.title:
            draw.text((80, panel.top + 16), panel.title, font=fonts[1], fill=(34, 34, 34), anchor="ls")
        for s in panel.shapes:
            if s.kind == "rect":
                if s.h < 0.5 or s.w < 0.5:  # a zero bar: nothing to fill (Pillow would still draw one pixel row)
                    continue
                outline = _rgb(s.stroke) if s.stroke != "none" else None
                # Pillow's corners are inclusive: the last pixel is one less than the SVG's edge (never above the first).
                x1, y1 = max(s.x, s.x + s.w - 1), max(s.y, s.y + s.h - 1)
                draw.rectangle([s.x, s.y, x1, y1], fill=_rgb(s.fill), outline=outline)
            elif s.kind == "line":
                width = 2 if s.cls in ("peak", "bound") else 1
                if s.dash:
                    _dashed(draw, s.x, s.y, s.w, _rgb(s.stroke), width)
                else:
                    draw.line([(s.x, s.y), (s.w, s.h)], fill=_rgb(s.stroke), width=width)
            else:
                _text(image, draw, s, fonts)
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def png_bytes(data: ChartData) -> bytes:
    require_pillow()
    return render(layout(data))
