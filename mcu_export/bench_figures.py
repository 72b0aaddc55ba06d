"""`make bench` tables that show each figure beside its previous value, so that a regression is seen.

Figures are kept in `docs/bench-figures.json` (committed: the next session's "previous" is this one's
"new"). A cell reads `8,044,723 (=)` when the figure did not change, `7,900,112 (8,044,723)` when it did,
and `8,044,723 (new)` when there was none before. Figures that depend on the machine's load (seconds) are
shown but never compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

from mcu_export import atomic

FIGURES_FILE = Path(__file__).resolve().parent.parent / "docs" / "bench-figures.json"
Number = Union[int, float]


@dataclass(frozen=True)
class Column:
    title: str
    fmt: str = ","  # format spec of the value, e.g. "," or ".3f"
    compare: bool = True  # False for wall-clock figures: shown, never compared
    width: int = 12


def _load(path: Path) -> Dict[str, Dict[str, Dict[str, Number]]]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


class FigureStore:
    """The previous figures (read once) and the new ones (written by `save`)."""

    def __init__(self, path: Path = FIGURES_FILE):
        self.path = path
        self.previous = _load(path)
        self.new: Dict[str, Dict[str, Dict[str, Number]]] = {}

    def table(self, name: str, keys: Sequence[Column], figures: Sequence[Column]) -> "BenchTable":
        return BenchTable(self, name, list(keys), list(figures))

    def save(self) -> None:
        merged = dict(self.previous)
        merged.update(self.new)  # tables not run this time keep their last figures
        atomic.write_bytes(self.path, (json.dumps(merged, indent=1, sort_keys=True) + "\n").encode())


def cell(value: Optional[Number], previous: Optional[Number], column: Column) -> str:
    if value is None:
        return "n/a"
    text = format(value, column.fmt)
    if not column.compare:
        return text
    if previous is None:
        return f"{text} (new)"
    return f"{text} (=)" if format(previous, column.fmt) == text else f"{text} ({format(previous, column.fmt)})"


class BenchTable:
    def __init__(self, store: FigureStore, name: str, keys: List[Column], figures: List[Column]):
        self.store, self.name, self.keys, self.figures = store, name, keys, figures
        self.previous = store.previous.get(name, {})
        self.rows = store.new.setdefault(name, {})
        self._widths = [c.width for c in keys] + [max(c.width, len(c.title)) for c in figures]
        header = [f"{c.title:<{w}}" for c, w in zip(keys, self._widths)]
        header += [f"{c.title:>{w}}" for c, w in zip(figures, self._widths[len(keys) :])]
        print("  ".join(header))
        print("-" * len("  ".join(header)))

    def row(self, key: Sequence[str], values: Dict[str, Optional[Number]]) -> None:
        """Prints one row now (benchmarks are slow: rows appear as they are measured) and records it."""
        name = "/".join(key)
        before = self.previous.get(name, {})
        self.rows[name] = {k: v for k, v in values.items() if v is not None}
        cells = [f"{k:<{w}}" for k, w in zip(key, self._widths)]
        for column, width in zip(self.figures, self._widths[len(self.keys) :]):
            cells.append(f"{cell(values.get(column.title), before.get(column.title), column):>{width}}")
        print("  ".join(cells), flush=True)
