"""The package's one Jinja environment, over codegen/ (where every template lives).

StrictUndefined: a template naming a value the caller did not pass fails at render time, not in the
compiler. keep_trailing_newline: rendered C and CMake files end with a newline like hand-written ones.
"""

from __future__ import annotations

import functools

import jinja2

from mcu_export.assets import asset_dir


@functools.lru_cache(maxsize=None)
def _environment(root: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(root), undefined=jinja2.StrictUndefined, keep_trailing_newline=True
    )


def templates() -> jinja2.Environment:
    return _environment(str(asset_dir("codegen")))


def render(name: str, **context) -> str:
    """Render codegen/<name> (e.g. "firmware/firmware.ld.j2") with `context`."""
    return templates().get_template(name).render(**context)
