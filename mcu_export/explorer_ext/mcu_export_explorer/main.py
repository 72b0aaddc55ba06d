"""The adapter Model Explorer loads for `--extensions=mcu_export_explorer`: the graph Arm's PTE adapter builds
(pte-adapter-model-explorer), each instruction's node given the model's source line as attributes.

Arm's adapter reads no chain stacktrace, so the lines come from report.json's `debug_map` beside the .pte (torch
op, Class.forward), else from the .pte's stacktrace (innermost frame outside installed packages). An Ethos-U
delegate's node opens the TOSA graph Vela compiled (OUT/npu/subgraph_<k>.tosa) as its subgraph.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Dict, List, Optional

from model_explorer import Adapter, AdapterMetadata, ModelExplorerGraphs
from model_explorer import graph_builder as gb
from pte_adapter_model_explorer.builder.builder import PteGraphBuilder

ADAPTER_ID = "mcu_export_pte"
_LIBRARY = re.compile(r"[/\\](site-packages|dist-packages|torch)[/\\]|[/\\]lib[/\\]python3[.\d]*[/\\]")
_KEYS = (("source", "source"), ("torch_op", "torch op"), ("node", "graph node"), ("file", "file"), ("line", "line"))


def _tosa_files(pte: Path) -> List[str]:
    """npu/subgraph_<k>.tosa beside the .pte, last first: Arm's adapter gives a backend's k-th call the file
    len-1-k of the list."""
    found = sorted((pte.parent / "npu").glob("subgraph_*.tosa"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    return [str(p) for p in reversed(found)]


def _from_report(pte: Path, count: int) -> Optional[List[Dict]]:
    try:
        entries = json.loads((pte.parent / "report.json").read_text()).get("debug_map")
    except (OSError, ValueError, AttributeError):
        return None
    return entries if isinstance(entries, list) and len(entries) == count else None


def _from_stacktrace(chain) -> List[Dict]:
    out: List[Dict] = []
    for frames in chain.stacktrace or []:
        items = list(getattr(frames, "items", None) or [])
        user = [f for f in items if not _LIBRARY.search(_text(f.filename))] or items
        if not user:
            out.append({})
            continue
        f = user[-1]
        file, name = _text(f.filename), _text(f.name)
        out.append(
            {
                "file": file,
                "line": f.lineno,
                "function": name,
                "source": f"{os.path.basename(file)}:{f.lineno} in {name}",
            }
        )
    return out


def _text(v) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v or "")


def annotate(builder: PteGraphBuilder, pte: Path) -> int:
    """Adds the source attributes to each instruction node of every plan's first chain; returns how many."""
    done = 0
    by_id = {g.id: g for c in builder.graph_collections for g in c.graphs}
    for k, plan in enumerate(builder._program_def.executionPlan or []):
        graph = by_id.get(_text(plan.name) or f"ExecutionPlan_{k}")
        chains = plan.chains or []
        if graph is None or not chains:
            continue
        count = len(chains[0].instructions or [])
        entries = (_from_report(pte, count) if _text(plan.name) == "forward" else None) or _from_stacktrace(chains[0])
        nodes = {n.id: n for n in graph.nodes}
        for i, entry in enumerate(entries):
            node = nodes.get(f"{graph.id}_0_{i}")
            if node is None or not entry.get("source"):
                continue
            node.attrs += [gb.KeyValue(key=label, value=str(entry[key])) for key, label in _KEYS if entry.get(key)]
            if entry.get("covers"):  # a delegate call: the lines of every op it runs
                node.attrs.append(gb.KeyValue(key="covers", value="; ".join(entry["covers"])))
            done += 1
    return done


class McuExportPteAdapter(Adapter):
    metadata = AdapterMetadata(
        id=ADAPTER_ID,
        name="mcu-export .pte",
        description="ExecuTorch .pte (pte-adapter-model-explorer) with each instruction's source line",
        fileExts=["pte"],
    )

    def __init__(self):
        super().__init__()

    def convert(self, model_path: str, settings: Dict) -> ModelExplorerGraphs:
        pte = Path(model_path)
        settings = dict(settings or {})
        settings.setdefault("delegate_file_paths", _tosa_files(pte))
        builder = PteGraphBuilder(pte, settings)
        annotate(builder, pte)
        return {"graphCollections": builder.graph_collections}
