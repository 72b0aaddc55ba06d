"""Where in the user's model a graph node came from, from the stack trace torch.export records.

The trace lists frames outermost first; torch's own frames (nn.Conv2d.forward, functional.py) come
last, so the user's line is the last frame that is not inside an installed library.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import List, Optional

from torch.fx import Node

from mcu_export.pte.debug_map import is_library

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')


@dataclass(frozen=True)
class SourceFrame:
    filename: str
    lineno: int
    name: str  # function name as the frame reports it


@dataclass(frozen=True)
class SourceLocation:
    frame: SourceFrame
    qualname: str  # "Class.method" when the enclosing module class is known, else the function name

    def __str__(self) -> str:
        return f"{os.path.basename(self.frame.filename)}:{self.frame.lineno} in {self.qualname}"


def stack_frames(node: Node) -> List[SourceFrame]:
    trace = node.meta.get("stack_trace") or ""
    return [SourceFrame(m["file"], int(m["line"]), m["func"]) for m in _FRAME.finditer(trace)]


def _user_class(node: Node) -> Optional[str]:
    """The innermost module on the node's module stack whose class is not one of torch's."""
    for _path, cls in reversed(list((node.meta.get("nn_module_stack") or {}).values())):
        qual = cls if isinstance(cls, str) else f"{cls.__module__}.{cls.__qualname__}"
        if not qual.startswith("torch."):
            return qual.rsplit(".", 1)[-1]
    return None


def source_location(node: Node) -> Optional[SourceLocation]:
    frames = stack_frames(node)
    if not frames:
        return None
    user = [f for f in frames if not is_library(f.filename)]
    frame = (user or frames)[-1]
    cls = _user_class(node)
    return SourceLocation(frame, f"{cls}.{frame.name}" if cls else frame.name)
