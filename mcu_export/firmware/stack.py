"""The firmware's stack, sized by analysis: the worst path through the call graph, reserved at link time.

    worst = thread + max(interrupt handler + frame) + max(fault handler + frame)

- thread: the deepest path from the reset handler (which sets MSP to the stack's top and calls main).
- Exceptions stack on the same MSP, on top of whatever runs: an interrupt (SysTick, the NPU's line) on top of
  the thread, and a fault (NMI, HardFault and the configurable faults, which outrank every interrupt) on top of
  that. Each adds its handler's deepest path and the frame the core pushes: 26 words with the FP context
  (R0-R3, R12, LR, PC, xPSR, S0-S15, FPSCR, VPR or reserved) = 104 B, plus 4 B of alignment padding.
- Indirect calls reach the address-taken functions of the pointer's prototype (`fnkinds`), every one of them
  when the prototype cannot be told. Recursion (a cycle, through direct or indirect calls) is refused, naming
  the cycle; so is a frame no static figure bounds (GCC's `dynamic`, or `sub sp, rN`).
- reserved = worst + MARGIN, rounded up to 8 (AAPCS stack alignment). The margin covers what the graph does not
  show: the few words the reset handler runs on before its frame is laid out.

The board's `stack_size` is the upper limit: an analysis above it is an error. The result is written as
`stack.json` beside the ELF, and `stack.ld` (`__mx_stack_size = ...;`) is what firmware.ld includes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

from mcu_export.errors import RuntimeFailure, UsageError
from mcu_export.firmware import callgraph as cg
from mcu_export.firmware import fnkinds
from mcu_export.firmware.elf import Elf

EXCEPTION_FRAME = 104 + 4  # basic + FP context, 8-byte alignment padding
MARGIN = 64
STACK_LD = "stack.ld"
STACK_JSON = "stack.json"
FAULT_VECTORS = range(2, 8)  # NMI, HardFault, MemManage, BusFault, UsageFault, SecureFault
FIRST_INTERRUPT_VECTOR = 11  # SVCall, DebugMonitor, PendSV, SysTick, then the external interrupts


class StackAnalysisError(UsageError):
    """The call graph cannot be bounded (recursion, a dynamic frame) or needs more than the board allows."""


class StackOverflowMeasured(RuntimeFailure):
    """A run used more stack than the analysis said it could: the analysis missed a path."""


@dataclass(frozen=True)
class StackReport:
    reserved: int  # bytes firmware.ld reserves
    worst: int  # bytes of the worst case (thread + interrupt + fault)
    margin: int
    limit: int  # the board's stack_size
    thread: int
    interrupt: int  # deepest interrupt handler with its exception frame (0: none)
    fault: int  # deepest fault handler with its exception frame
    path: List[Tuple[str, int]]  # the thread's worst path: (function, its frame)
    functions: int
    indirect_callers: List[str]

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1) + "\n")


def load_report(elf: Path) -> Optional[dict]:
    path = Path(elf).parent / STACK_JSON
    return json.loads(path.read_text()) if path.is_file() else None


class Graph:
    """Functions, their frames (the larger of GCC's and the prologue's) and callees, indirect calls resolved."""

    def __init__(self, elf_path: Path, ci: Sequence[Path]):
        elf = Elf(elf_path)
        self.funcs, taken = cg.read_image(elf_path, elf)
        self.vectors = _vectors(elf)
        self.taken = taken  # handlers are only in the vector table, which the pointer scan skips
        nodes = _ci_nodes(ci)
        callers = {_node_of(nodes, f) for f in self.funcs.values() if f.indirect}
        protos = fnkinds.Prototypes(elf_path, taken, {n.file for n in callers if n is not None})
        for f in self.funcs.values():
            node = _node_of(nodes, f)
            if node is not None:
                f.gcc_frame = node.frame
                f.frame = max(f.frame, node.frame)
                if node.qualifier == "dynamic":
                    f.dynamic = True
            if f.indirect:
                f.calls |= self._indirect_targets(node, protos)

    def _indirect_targets(self, node: Optional[cg.CiNode], protos: fnkinds.Prototypes) -> Set[int]:
        kinds: Optional[Set[str]] = None
        if node is not None and node.indirect_sites:
            sets = [protos.of_site(node.file, site) for site in node.indirect_sites]
            kinds = None if any(s is None for s in sets) else set().union(*(s for s in sets if s))
        return fnkinds.reachable(kinds, self.taken, protos.by_address)

    def depth(self, root: int) -> Tuple[int, List[Tuple[str, int]]]:
        """(bytes, path) of the deepest path from `root`; StackAnalysisError on recursion or a dynamic frame."""
        memo: Dict[int, Tuple[int, List[int]]] = {}
        on_path: List[int] = []

        def visit(a: int) -> Tuple[int, List[int]]:
            if a in memo:
                return memo[a]
            f = self.funcs[a]
            if a in on_path:
                cycle = [self.funcs[x].name for x in on_path[on_path.index(a) :]] + [f.name]
                raise StackAnalysisError(f"recursion in the firmware's call graph: {' -> '.join(cycle)}")
            if f.dynamic:
                raise StackAnalysisError(
                    f"function {f.name} has a dynamic stack frame (alloca or a variable-length array): "
                    "its stack cannot be bounded"
                )
            on_path.append(a)
            best, tail = 0, []
            for callee in sorted(f.calls):
                d, p = visit(callee)
                if d > best:
                    best, tail = d, p
            on_path.pop()
            memo[a] = (f.frame + best, [a, *tail])
            return memo[a]

        total, path = visit(root)
        return total, [(self.funcs[a].name, self.funcs[a].frame) for a in path]

    def reachable(self, root: int) -> Set[int]:
        seen, todo = set(), [root]
        while todo:
            a = todo.pop()
            if a not in seen:
                seen.add(a)
                todo.extend(self.funcs[a].calls)
        return seen


def _vectors(elf: Elf) -> Dict[int, int]:
    """vector number -> handler address, from the vector table at the start of `.vectors`."""
    if ".vectors" not in elf.sections:
        raise StackAnalysisError("the firmware has no .vectors section: no reset handler to start from")
    data = elf.section_bytes(".vectors")
    out = {}
    for k in range(1, len(data) // 4):
        word = int.from_bytes(data[4 * k : 4 * k + 4], "little")
        if word & 1:  # a Thumb code address; 0 and the boot blocks after the table are not
            out[k] = word & ~1
    return out


def _ci_nodes(paths: Sequence[Path]) -> Dict[Tuple[str, str], cg.CiNode]:
    """(file name, function) for static functions, ("", function) for global ones -> node. A key several
    nodes share (a static function of one name in two files of one name; stale objects) keeps the largest frame."""
    nodes: Dict[Tuple[str, str], cg.CiNode] = {}
    for path in paths:
        for node in cg.read_ci(path):
            key = (Path(node.file).name if node.local else "", node.name)
            old = nodes.get(key)
            if old is None or node.frame > old.frame or node.qualifier == "dynamic":
                nodes[key] = node
    return nodes


def _node_of(nodes: Dict[Tuple[str, str], cg.CiNode], f: cg.Function) -> Optional[cg.CiNode]:
    """A static function's own node (by its STT_FILE name), else the global one of its name."""
    return nodes.get((Path(f.file).name, f.name) if f.file else ("", f.name))


def analyse(elf_path: Path, ci: Sequence[Path], limit: int) -> StackReport:
    g = Graph(Path(elf_path), ci)
    if 1 not in g.vectors or g.vectors[1] not in g.funcs:
        raise StackAnalysisError("the vector table names no reset handler function")
    thread, path = g.depth(g.vectors[1])
    main = next((a for a, f in g.funcs.items() if f.name == "main"), None)
    if main is not None and main not in g.reachable(g.vectors[1]):
        # a disassembly this module did not understand would otherwise give a tiny stack, silently
        raise StackAnalysisError("the call-graph analysis found no path from the reset handler to main")
    handlers = [(n, a) for n, a in g.vectors.items() if n != 1 and a in g.funcs]
    fault = max((g.depth(a)[0] + EXCEPTION_FRAME for n, a in handlers if n in FAULT_VECTORS), default=0)
    irq = max((g.depth(a)[0] + EXCEPTION_FRAME for n, a in handlers if n >= FIRST_INTERRUPT_VECTOR), default=0)
    worst = thread + irq + fault
    reserved = (worst + MARGIN + 7) // 8 * 8
    report = StackReport(
        reserved=reserved,
        worst=worst,
        margin=MARGIN,
        limit=limit,
        thread=thread,
        interrupt=irq,
        fault=fault,
        path=path,
        functions=len(g.funcs),
        indirect_callers=sorted(f.name for f in g.funcs.values() if f.indirect),
    )
    if reserved > limit:
        raise StackAnalysisError(
            f"the firmware's stack needs {reserved} bytes by analysis (thread {thread} through "
            f"{' -> '.join(n for n, _ in path[:6])}{' ...' if len(path) > 6 else ''}, interrupt {irq}, fault {fault}, "
            f"margin {MARGIN}), more than the board's stack_size limit of {limit}"
        )
    return report


def analysed(board) -> bool:
    """Boards whose firmware GCC builds: the analysis reads GCC's .ci files and Arm Thumb code.
    Others (clang: no -fcallgraph-info) reserve the board's stack_size."""
    return board.cpu.family == "cortex_m" and board.compiler.kind == "gcc"


def stack_ld(size: int) -> str:
    return (
        "/* The stack firmware.ld reserves: the call-graph analysis' worst case plus its margin\n"
        "   (mcu_export/firmware/stack.py; rewritten by each build, the board's stack_size before one). */\n"
        f"__mx_stack_size = 0x{size:x};\n"
    )


def check_measured(elf: Path, used: Optional[int], where: str) -> None:
    """A run's painted high-water mark may not exceed what the analysis reserved for its ELF."""
    report = load_report(elf)
    if report is None or used is None or used <= report["worst"]:
        return
    raise StackOverflowMeasured(
        f"firmware on {where} used {used} bytes of stack, more than the {report['worst']} bytes the call-graph "
        f"analysis found (reserved {report['reserved']}): a path the analysis missed ({Path(elf).parent / STACK_JSON})"
    )
