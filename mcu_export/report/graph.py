"""The program as a graph for the report's figure: a node per instruction, an edge from the instruction that
writes a tensor to each one that reads it, and where each node goes: a layer per longest path from the model's
inputs (a node sits one layer below the deepest instruction it reads from), and within a layer an order that
keeps a node under the instructions it reads (the mean position of its writers). A few lines of our own rather
than graphviz or networkx: the programs are chains with a few branches and skips, already in a valid order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from mcu_export.report.program import Instruction

MAX_NODES = 50  # past this the figure draws the first ones and says so; the table lists every instruction


@dataclass
class Graph:
    nodes: List[int]  # instruction indices drawn: the first MAX_NODES
    total: int  # instructions in the program
    edges: List[Tuple[int, int]]  # (writer, reader), both drawn, each pair once
    inputs: Dict[int, List[int]] = field(default_factory=dict)  # model input value -> the drawn nodes reading it
    outputs: Dict[int, int] = field(default_factory=dict)  # model output value -> the drawn node writing it
    layer: Dict[int, int] = field(default_factory=dict)  # node -> its layer (0: reads nothing an instruction wrote)
    column: Dict[int, float] = field(default_factory=dict)  # node -> across, centred on 0 in every layer

    @property
    def layers(self) -> int:
        return max(self.layer.values(), default=-1) + 1

    @property
    def width(self) -> int:
        """The widest row: layers, the inputs' row and the outputs' row."""
        counts: Dict[int, int] = {}
        for n in self.nodes:
            counts[self.layer[n]] = counts.get(self.layer[n], 0) + 1
        return max([1, len(self.inputs), len(self.outputs), *counts.values()])


def edges(instructions: Sequence[Instruction]) -> List[Tuple[int, int]]:
    """(writer, reader) for every planned tensor an instruction reads from an earlier one, each pair once."""
    return sorted({(w, i.index) for i in instructions for w in i.read_from.values() if w >= 0})


def layers(nodes: Sequence[int], pairs: Sequence[Tuple[int, int]]) -> Dict[int, int]:
    """Longest path from a node reading nothing written by another. A writer runs before its readers, so one
    pass over the edges in reader order sees each writer's layer final."""
    layer = dict.fromkeys(nodes, 0)
    for w, r in sorted(pairs, key=lambda e: e[1]):
        layer[r] = max(layer[r], layer[w] + 1)
    return layer


def columns(layer: Dict[int, int], pairs: Sequence[Tuple[int, int]]) -> Dict[int, float]:
    """Layer by layer, the nodes ordered by the mean column of their writers (then by index), spread one apart
    and centred: a chain stays a straight line, a branch splits to either side."""
    writers: Dict[int, List[int]] = {}
    for w, r in pairs:
        writers.setdefault(r, []).append(w)
    column: Dict[int, float] = {}
    for depth in sorted(set(layer.values())):
        row = [n for n in layer if layer[n] == depth]
        at = {n: sum(column[w] for w in writers[n]) / len(writers[n]) if writers.get(n) else 0.0 for n in row}
        row.sort(key=lambda n: (at[n], n))
        column.update({n: k - (len(row) - 1) / 2 for k, n in enumerate(row)})
    return column


def graph(instructions: Sequence[Instruction], limit: int = MAX_NODES) -> Graph:
    drawn = list(instructions[:limit])
    nodes = [i.index for i in drawn]
    pairs = edges(drawn)
    layer = layers(nodes, pairs)
    g = Graph(nodes, len(instructions), pairs, layer=layer, column=columns(layer, pairs))
    for i in drawn:
        for v, w in sorted(i.read_from.items()):
            if w < 0:
                g.inputs.setdefault(v, []).append(i.index)
        for v in i.returns:
            g.outputs[v] = i.index
    return g
