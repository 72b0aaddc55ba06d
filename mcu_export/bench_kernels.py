"""`make bench-kernels`: per int8 layer (mcu_export/bench_kernels_layers.py) and board, the instructions of its
kernel call, instructions per multiply-accumulate, and the code bytes of the kernel (its cortex_m kernel and every
function it reaches: the runtime's conv helpers and the CMSIS-NN functions). With `--cmsis-nn PATH`, the same
figures with Arm's CMSIS-NN at PATH linked instead of ours, and the ratio ours/Arm's. Then the same layers in fp32
(table kernels_fp32, mcu_export/bench_kernels_fp32.py: the portable kernels, no Arm columns); `--dtype` picks one.

One serving firmware per board (and per library) boots once under QEMU; each layer is exported for that board
(int8 in and out, so the program is the layer's kernel and at most a layout copy), loaded over the serial link,
run on random int8 inputs, and its profile gives the kernel call's instructions (SysTick counts instructions under
QEMU's -icount). Each layer's outputs must equal, bit for bit, the host runtime's outputs of the same .pte; a layer
whose outputs differ, or that the device refuses, is reported as an error (its figures are not recorded).

    python -m mcu_export.bench_kernels [--cmsis-nn PATH] [--dtype int8|fp32|both] [--boards B ...] [--layers NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np

from mcu_export.bench_kernels_layers import BY_NAME, LAYERS, LAYERS_NHWC, Layer

BOARDS = ("corstone-300", "mps2-an505", "mps2-an386")  # Cortex-M55 (MVE), Cortex-M33 (DSP), Cortex-M4 (DSP)
TABLE = "kernels_int8"
# Calls that are the kernel's own (and code it reaches): the cortex_m kernels, their helpers, CMSIS-NN. The walk of
# the call graph stops at anything else (the runtime core, libc): code every kernel shares.
_KERNEL_PREFIXES = ("mx_k_cortex_m_", "mx_cm_", "arm_")


def say(message: str) -> None:
    print(f"bench-kernels: {message}", file=sys.stderr, flush=True)


@dataclass
class Prepared:
    """A layer exported for one board: its program, the inputs it runs on, the host runtime's outputs."""

    layer: Layer
    pte: bytes
    op: object  # the op-table entry of the layer's kernel
    inputs: List[np.ndarray]
    want: List[np.ndarray]
    prefixes: Tuple[str, ...] = _KERNEL_PREFIXES  # what the code-bytes walk counts as the kernel's


@dataclass
class Measured:
    instructions: Optional[int] = None
    code_bytes: Optional[int] = None
    error: Optional[str] = None


def kernel_op(pte: bytes):
    """The op-table entry of the program's one cortex_m compute kernel (conv, depthwise conv, linear)."""
    from mcu_export.ops.table import BY_QUALIFIED
    from mcu_export.pte.reader import read_program

    names = [o.qualified for o in read_program(pte).execution_plan[0].operators]
    found = [n for n in names if n.startswith("cortex_m::quantized_")]
    if len(found) != 1:
        raise RuntimeError(f"expected one cortex_m quantized kernel, the program calls {names}")
    return BY_QUALIFIED[found[0]]


def prepare(layer: Layer, board: str, workdir: Path, seed: int = 0) -> Prepared:
    """Exports `layer` in int8 for `board` (on the CPU, int8 in and out, tensors planned apart so that Arm's kernels
    may run it too), draws int8 inputs, and runs the .pte with the host runtime."""
    from mcu_export.api import export
    from mcu_export.runners.host import run_pte

    x = layer.example()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one calibration batch: the figures measure cost, not accuracy
        artifact = export(
            layer.module(),
            (x,),
            quantize="int8",
            calibrate=[(x,)],
            board=board,
            backend="cortex-m",
            overlap=False,
            io="int8",
        )
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(-128, 128, size=layer.input_shape, dtype=np.int8)]
    path = workdir / f"{board}-{layer.name}.pte"
    path.write_bytes(artifact.pte)
    want = run_pte(path, inputs)
    return Prepared(layer, artifact.pte, kernel_op(artifact.pte), inputs, want)


def compare_outputs(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> Optional[str]:
    """None when the device's outputs equal the host's bit for bit, else what differs."""
    if len(got) != len(want):
        return f"{len(got)} outputs, the host runtime gave {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        if g.dtype != w.dtype or g.shape != w.shape:
            return f"output {i}: {g.dtype}{list(g.shape)}, the host runtime gave {w.dtype}{list(w.shape)}"
        if g.tobytes() != w.tobytes():
            bad = int(np.count_nonzero(g.view(np.uint8) != w.view(np.uint8)))
            return f"output {i}: {bad} of {g.nbytes} bytes differ from the host runtime's"
    return None


def reachable_code_bytes(
    functions: dict, by_name: Dict[str, int], entry: str, prefixes: Tuple[str, ...] = _KERNEL_PREFIXES
) -> int:
    """Bytes of `entry` and every kernel function (`prefixes`, by name or by the file of a static one) it
    reaches through direct calls, each counted once."""
    if entry not in by_name:
        raise RuntimeError(f"{entry} is not in the firmware")

    def ours(f) -> bool:
        return f.name.startswith(prefixes) or f.file.startswith(prefixes)

    seen: Set[int] = set()
    pending = [by_name[entry]]
    while pending:
        address = pending.pop()
        if address in seen:
            continue
        seen.add(address)
        pending.extend(a for a in functions[address].calls if a in functions and ours(functions[a]))
    return sum(functions[a].size for a in seen)


class CodeSizes:
    """Code bytes reachable from each kernel entry of one firmware image (its disassembly read once)."""

    def __init__(self, elf: Path):
        from mcu_export.firmware.callgraph import read_image
        from mcu_export.firmware.elf import Elf

        self.functions, _ = read_image(elf, Elf(elf))
        self.by_name = {f.name: a for a, f in self.functions.items()}
        self.cache: Dict[Tuple[str, Tuple[str, ...]], int] = {}

    def of(self, symbol: str, prefixes: Tuple[str, ...] = _KERNEL_PREFIXES) -> int:
        if (symbol, prefixes) not in self.cache:
            self.cache[symbol, prefixes] = reachable_code_bytes(self.functions, self.by_name, symbol, prefixes)
        return self.cache[symbol, prefixes]


def kernel_index(profile, qualified: str) -> int:
    """The program instruction of the layer's kernel call (its icount region is this + 1)."""
    found = [op.index for op in profile.ops if op.name == qualified and op.kind in ("kernel", "fused")]
    if len(found) != 1:
        raise RuntimeError(f"expected one call of {qualified} in the profile: {[op.name for op in profile.ops]}")
    return found[0]


def _counting_sim(board: str, elf: Path, workdir: Path, plugin: Path, log: Path):
    """A SerialSim whose QEMU also loads the icount plugin, reporting to `log` when QEMU ends."""
    from mcu_export.firmware.qemu import qemu_command
    from mcu_export.firmware.sim import SerialSim, free_tcp_port

    class CountingSim(SerialSim):
        def command(self) -> List[str]:
            return qemu_command(self.board, self.elf, icount=True, serial=self.backend, plugin=plugin, plugin_log=log)

    return CountingSim(board, elf, workdir, f"socket://127.0.0.1:{free_tcp_port()}")


def measure_on_device(
    board: str, prepared: Sequence[Prepared], workdir: Path, cmsis_nn: Optional[Path] = None
) -> Dict[str, Measured]:
    """Builds one serving firmware for `board` linking the layers' operators (CMSIS-NN: ours, or Arm's at
    `cmsis_nn`) and measures each layer in a QEMU process of its own (the icount plugin reports when QEMU ends;
    the firmware boots in well under a million instructions)."""
    from mcu_export.firmware.icount import build_plugin
    from mcu_export.firmware.serve_project import build_serve_firmware
    from mcu_export.ops.table import BY_QUALIFIED
    from mcu_export.pte.reader import read_program

    library = "Arm's CMSIS-NN" if cmsis_nn else "ours"
    ops: Set = set()
    for p in prepared:
        ops |= {BY_QUALIFIED[o.qualified] for o in read_program(p.pte).execution_plan[0].operators}
    say(f"{board}: building serving firmware with {library}")
    elf = Path(
        build_serve_firmware(workdir / "fw", board, sorted(ops, key=lambda o: o.qualified), cmsis_nn=cmsis_nn).elf
    )
    sizes = CodeSizes(elf)
    plugin = build_plugin()
    results: Dict[str, Measured] = {}
    for p in prepared:
        say(f"{board}: {p.layer.name} ({library})")
        results[p.layer.name] = _measure_one(board, elf, workdir / "sim", plugin, p, sizes)
    return results


def _measure_one(board: str, elf: Path, workdir: Path, plugin: Path, p: Prepared, sizes: CodeSizes) -> Measured:
    """One layer in a QEMU process of its own; once more in a new one if the link failed (a loaded machine can
    starve QEMU past the client's resends), since the figures do not depend on timing."""
    from mcu_export.errors import SerialLinkError

    try:
        return _measure_once(board, elf, workdir, plugin, p, sizes)
    except SerialLinkError as e:
        say(f"{board}: {p.layer.name}: {e}; once more")
        try:
            return _measure_once(board, elf, workdir, plugin, p, sizes)
        except SerialLinkError as e:
            return Measured(error=f"{type(e).__name__}: {e}")


def _measure_once(board: str, elf: Path, workdir: Path, plugin: Path, p: Prepared, sizes: CodeSizes) -> Measured:
    from mcu_export.errors import McuExportError, SerialLinkError
    from mcu_export.firmware.icount import parse_icount
    from mcu_export.serial import SerialClient

    log = workdir / f"icount-{p.layer.name}.log"
    workdir.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    sim = _counting_sim(board, elf, workdir, plugin, log)
    try:
        try:
            with SerialClient(sim.start(), timeout=2.0) as client:
                client.load(p.pte)
                got, _ = client.run(p.inputs)
                index = kernel_index(client.profile(), p.op.qualified)  # type: ignore[attr-defined]
        finally:
            sim.stop()
        region = parse_icount(log.read_text() if log.exists() else "").regions.get(index + 1)
        if region is None or region.entries != 1:
            raise RuntimeError(f"icount region {index + 1}: {region} (expected one entry)")
    except SerialLinkError:
        raise
    except (McuExportError, RuntimeError) as e:
        return Measured(error=f"{type(e).__name__}: {e}")
    wrong = compare_outputs(got, p.want)
    if wrong is not None:
        return Measured(error=f"outputs differ from the host runtime: {wrong}")
    return Measured(region.instructions, sizes.of(p.op.kernel, p.prefixes))  # type: ignore[attr-defined]


@dataclass
class BoardResults:
    ours: Dict[str, Measured] = field(default_factory=dict)
    arm: Dict[str, Measured] = field(default_factory=dict)


def run_board(
    board: str, layers: Iterable[Layer], workdir: Path, cmsis_nn: Optional[Path] = None, dtype: str = "int8"
) -> BoardResults:
    """Exports and measures `layers` in `dtype` (int8, or fp32: bench_kernels_fp32) on `board`."""
    from mcu_export import bench_kernels_fp32

    workdir.mkdir(parents=True, exist_ok=True)
    prep = prepare if dtype == "int8" else bench_kernels_fp32.prepare
    prepared, failed = [], {}
    for layer in layers:
        say(f"{board}: exporting {layer.name} ({dtype})")
        try:
            prepared.append(prep(layer, board, workdir))
        except Exception as e:  # noqa: BLE001  (one layer's failure is reported in its row, the others still run)
            failed[layer.name] = Measured(error=f"export: {type(e).__name__}: {e}")
    out = BoardResults(ours=dict(failed), arm=dict(failed))
    if prepared:
        out.ours.update(_on_device(board, prepared, workdir / "ours", None))
        if cmsis_nn is not None:
            out.arm.update(_on_device(board, prepared, workdir / "arm", cmsis_nn))
    return out


def _on_device(board: str, prepared: Sequence[Prepared], workdir: Path, cmsis_nn: Optional[Path]):
    """measure_on_device; a firmware that does not build (or QEMU that does not start) fails each layer's row."""
    from mcu_export.errors import McuExportError

    try:
        return measure_on_device(board, prepared, workdir, cmsis_nn)
    except McuExportError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return {p.layer.name: Measured(error=f"firmware: {type(e).__name__}: {first}") for p in prepared}


def _per_mac(instructions: Optional[int], layer: Layer) -> Optional[float]:
    return None if instructions is None else instructions / layer.macs


DTYPES = ("int8", "fp32")


def main(argv: Optional[Sequence[str]] = None, store=None) -> int:
    from mcu_export.bench_figures import FigureStore
    from mcu_export.firmware.cmsis_nn import installed

    parser = argparse.ArgumentParser(prog="python -m mcu_export.bench_kernels", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cmsis-nn", metavar="PATH", help="also measure Arm's CMSIS-NN source tree at PATH (int8)")
    parser.add_argument("--dtype", choices=(*DTYPES, "both"), default="both", help="the tables to measure")
    parser.add_argument("--boards", nargs="+", default=list(BOARDS), metavar="BOARD")
    parser.add_argument("--layers", nargs="+", default=None, metavar="NAME", help="default: all; see --list")
    parser.add_argument("--list", action="store_true", help="list the layers (name, MACs) and exit")
    parser.add_argument("--keep", metavar="DIR", help="build and run in DIR, kept (default: a temporary folder)")
    args = parser.parse_args(argv)
    if args.list:
        for layer in LAYERS + LAYERS_NHWC:
            print(f"{layer.name:<28} {layer.macs:>10,} MACs")
        return 0
    unknown = [n for n in args.layers or () if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown layer(s) {', '.join(unknown)} (see --list)")
    layers = [BY_NAME[n] for n in args.layers] if args.layers else list(LAYERS + LAYERS_NHWC)
    cmsis_nn = Path(args.cmsis_nn).expanduser().resolve() if args.cmsis_nn else None
    if cmsis_nn is not None:
        installed(cmsis_nn)  # a UsageError naming what is missing, before any build

    own = store is None
    store = store or FigureStore()
    errors = 0
    with tempfile.TemporaryDirectory(prefix="mcu-export-bench-kernels-") as scratch:
        tmp = Path(args.keep or scratch)
        for dtype in DTYPES if args.dtype == "both" else (args.dtype,):
            arm = cmsis_nn if dtype == "int8" else None
            mine = [layer for layer in layers if dtype == "fp32" or not layer.nhwc]  # channels-last: fp32 only
            errors += _table(store, dtype, args.boards, mine, tmp / dtype, arm)
    if own:
        store.save()
    if errors:
        say(f"{errors} layer run(s) failed (see the error lines)")
    return 1 if errors else 0


def _table(store, dtype: str, boards: Sequence[str], layers: Sequence[Layer], tmp: Path, cmsis_nn) -> int:
    """Measures and prints one table (`dtype`'s) on `boards`; the number of failed runs."""
    from mcu_export.bench_figures import Column
    from mcu_export.bench_kernels_fp32 import TABLE as FP32_TABLE

    figures = [
        Column("instr", width=15),
        Column("instr/MAC", ".3f", width=13),
        Column("code B", width=13),
    ]
    if cmsis_nn is not None:
        figures += [
            Column("Arm instr", width=15),
            Column("Arm instr/MAC", ".3f", width=13),
            Column("Arm code B", width=13),
            Column("instr ours/Arm", ".3f", width=13),
            Column("code ours/Arm", ".3f", width=13),
        ]
        print(f"int8 kernels per layer: ours against Arm's CMSIS-NN at {cmsis_nn}")
    elif dtype == "int8":
        print("int8 kernels per layer: ours only (Arm's columns need a CMSIS-NN tree: --cmsis-nn PATH)")
    else:
        print("fp32 kernels per layer (the portable kernels; CMSIS-NN has no fp32 ones to set beside them)")
    name = TABLE if dtype == "int8" else FP32_TABLE
    table = store.table(name, [Column("layer", width=26), Column("board", width=13)], figures)
    errors = 0
    for board in boards:
        results = run_board(board, layers, tmp / board, cmsis_nn, dtype)
        for layer in layers:
            mine = results.ours[layer.name]
            arm = results.arm.get(layer.name, Measured()) if cmsis_nn else Measured()
            values = {
                "instr": mine.instructions,
                "instr/MAC": _per_mac(mine.instructions, layer),
                "code B": mine.code_bytes,
            }
            if cmsis_nn is not None:
                values.update(
                    {
                        "Arm instr": arm.instructions,
                        "Arm instr/MAC": _per_mac(arm.instructions, layer),
                        "Arm code B": arm.code_bytes,
                        "instr ours/Arm": _ratio(mine.instructions, arm.instructions),
                        "code ours/Arm": _ratio(mine.code_bytes, arm.code_bytes),
                    }
                )
            table.row([layer.name, board], values)
            for who, m in (("ours", mine), ("Arm's", arm)):
                if m.error and not (who == "Arm's" and m.error == mine.error):  # an export error: once
                    errors += 1
                    print(f"  error ({who}): {m.error}", flush=True)
    keep_unmeasured(store, name)
    print()
    return errors


def keep_unmeasured(store, table: str = TABLE) -> None:
    """Rows this run did not measure (other boards or layers: `--boards`, `--layers`) keep their last figures, as
    tables not run do."""
    rows = store.new.setdefault(table, {})
    for key, figures in store.previous.get(table, {}).items():
        rows.setdefault(key, figures)


def _ratio(a: Optional[int], b: Optional[int]) -> Optional[float]:
    return None if a is None or not b else a / b


if __name__ == "__main__":
    sys.exit(main())
