"""Firmware for an exported model: render a self-contained CMake project at OUT/firmware/<board>/ and build it.

The project (codegen/model/ templates, runtime_c/firmware/main.c + render_project's board part) holds:
    model/model.json           I/O layout and the op of each instruction, for the host side of a run
    model/model.pte            the program, assembled into `.mx_model.<region>` (16-byte aligned, used in place;
                               the first of the board's [sections].model regions where it fits)
    model/mx_model_data.c      the `.incbin` of model.pte
    model/mx_model_memory.c    each planned arena (exact size, `.mx_arena.<region>`) and the metadata pool
    model/kernel_table.c       the kernels this model uses, and no others
    model/mx_model_cmsis_nn.c  the CMSIS-NN convolution variants this model's convolutions run (chosen
                               ahead of time as the wrappers choose), so that no other variant is linked
    model/mx_model_hooks.c     per-op instruction-count markers, the running instruction for fault reports
    model/main.c               inputs in<i>.bin → execute → outputs out<i>.bin, one result line on the UART
    runtime/                   copies of runtime_c's core and of the used kernels with their util helpers
    cmsis_nn/                  for int8 (cortex_m) kernels: the CMSIS-NN headers and only the functions they
                               call, from cmsis_nn_kernels/ or an installed CMSIS-NN (`cmsis_nn=PATH`)
    npu/, runtime/backends/    for a program with EthosUBackend delegates on a board whose firmware drives its
                               NPU: the driver, its register accesses and platform, the delegate kernel
                               (mcu_export/firmware/npu.py); the .pte and those delegates' arenas then sit in
                               memory the NPU reaches, as does the platform scratch mx_model_memory.c adds for
                               delegates called without a scratch argument (ExecuTorch's)
Only the used kernels are copied and compiled, and `--gc-sections` drops every unused function, so the
ELF's `mx_k_*` symbols are exactly the model's kernels.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Collection, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from mcu_export.assets import asset_dir
from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import UsageError
from mcu_export.firmware import fingerprint
from mcu_export.firmware import npu as npu_mod
from mcu_export.firmware.build import BuildResult, build_project, render_project
from mcu_export.firmware.cmsis_nn import calls_in
from mcu_export.firmware.conv_dispatch import render_conv_dispatch
from mcu_export.firmware.meta_counts import pool_counts
from mcu_export.pte import program as P
from mcu_export.templates import render

if TYPE_CHECKING:
    from mcu_export.api import Artifact  # api imports this module

MODEL_DIR = "model"
RUNTIME_DIR = "runtime"
METHOD = "forward"
MAX_INSTRUCTIONS = 32766  # icount tags are instruction + 1 and must stay below MX_ICOUNT_MAX_TAGS (32768)
# Placement only (the real fit check is the map-based size check): room kept in an arena region for
# whatever else the board puts there.
DATA_RESERVE = 16 * 1024
CODE_RESERVE = 128 * 1024

ModelSource = Union["Artifact", bytes, str, Path]


@dataclass(frozen=True)
class ArenaPlacement:
    memory_id: int
    size: int
    region: str


def program_and_bytes(model: ModelSource) -> Tuple[P.Program, bytes]:
    """(Program, .pte bytes) of an api.Artifact (its own Program), .pte bytes, or a .pte path / export folder."""
    from mcu_export.pte.reader import read_program

    if isinstance(model, (bytes, bytearray)):
        pte = bytes(model)
    elif isinstance(model, (str, Path)):
        path = Path(model)
        path = path / "model.pte" if path.is_dir() else path
        if not path.is_file():
            raise UsageError(f"program not found: {path}")
        pte = path.read_bytes()
    else:
        return model.program, model.pte
    return read_program(pte), pte


def model_ops(plan: P.ExecutionPlan) -> list:
    """The op-table entries of the plan's operators, in op-table order; unknown ops fail here. An op the .pte
    writes as others (hardswish) comes along when the plan has all of those: the loader may fuse them into it."""
    from mcu_export.ops.table import ALL_OPS

    wanted = {op.qualified for op in plan.operators}
    known = {op.qualified for op in ALL_OPS}
    missing = sorted(wanted - known)
    if missing:
        raise UsageError(f"the program uses operators with no kernel in mcu-export: {', '.join(missing)}")
    return [op for op in ALL_OPS if op.qualified in wanted or (op.written_as and set(op.written_as) <= wanted)]


def _free_bytes(board: Board) -> Dict[str, int]:
    """Room per region before the model's own data, keeping an estimate for what the board puts there."""
    s = board.sections
    free = {}
    for r in board.memory:
        used = board.stack_size if r.name == s.stack else 0
        used += DATA_RESERVE if r.name in (s.data, s.bss, s.data_load) else 0
        used += CODE_RESERVE if r.name in (s.text, s.vectors, s.rodata) else 0
        free[r.name] = r.length - used
    return free


def _first_fit(regions: Sequence[str], free: Dict[str, int], size: int) -> str:
    """The first region with room; one that fits nowhere goes to the roomiest, for the size check to report."""
    return next((r for r in regions if free[r] >= size), max(regions, key=lambda r: free[r]))


def place_model(board: Board, pte_size: int, free: Optional[Dict[str, int]] = None, *, npu: bool = False) -> str:
    """The region of the embedded .pte: the first of the board's [sections].model where it fits (`npu`: of those
    the board's NPU reaches, for a program whose delegates it runs: their payload and weights are used in place)."""
    free = _free_bytes(board) if free is None else free
    regions = npu_mod.reachable(board, board.sections.model, "model") if npu else board.sections.model
    region = _first_fit(regions, free, pte_size)
    free[region] -= pte_size
    return region


def place_arenas(
    board: Board,
    sizes: Sequence[int],
    pte_size: int,
    free: Optional[Dict[str, int]] = None,
    *,
    npu_arenas: Collection[int] = (),
) -> List[ArenaPlacement]:
    """Arena i (memory_id i, sizes[0] being the reserved entry) goes to the first of the board's arena
    regions where it still fits, after the .pte has taken its place; an arena of `npu_arenas` (holding what the
    board's NPU reads and writes) to the first of those the NPU reaches."""
    regions = board.sections.arenas
    if not regions:
        raise UsageError(f"board '{board.name}' declares no arena regions ([sections].arenas)")
    if free is None:
        free = _free_bytes(board)
        place_model(board, pte_size, free, npu=bool(npu_arenas))
    placed = []
    for memory_id, size in enumerate(sizes[1:], start=1):
        own = npu_mod.reachable(board, regions, "arena") if memory_id in npu_arenas else regions
        region = _first_fit(own, free, size)
        free[region] -= (size + 15) // 16 * 16
        placed.append(ArenaPlacement(memory_id=memory_id, size=size, region=region))
    return placed


def place_program(
    board: Board, plan: P.ExecutionPlan, pte_size: int, *, npu_scratch: int = 0
) -> Tuple[str, List[ArenaPlacement]]:
    """(model region, arena placements) of a program on `board`: in memory the board's NPU reaches where the
    firmware runs EthosUBackend delegates on it, else as for any program. `npu_scratch` (npu.platform_scratch's
    bytes, when the firmware runs them): the platform scratch, placed after the arenas as one more placement
    (memory_id 0) in an arena region the NPU reaches."""
    npu = bool(npu_mod.linked_backends(board, plan))
    free = _free_bytes(board)
    model_region = place_model(board, pte_size, free, npu=npu)
    arenas = place_arenas(
        board, plan.non_const_buffer_sizes, pte_size, free, npu_arenas=npu_mod.npu_arenas(plan) if npu else ()
    )
    if npu and npu_scratch:
        region = _first_fit(npu_mod.reachable(board, board.sections.arenas, "arena"), free, npu_scratch)
        free[region] -= (npu_scratch + 15) // 16 * 16
        arenas.append(ArenaPlacement(memory_id=0, size=npu_scratch, region=region))
    return model_region, arenas


_UTIL_INCLUDE = re.compile(r'#include\s+"(?:util/)?(mx_[a-z0-9_]+)\.h"')
CortexM = Optional[Union[str, Path]]


def kernel_sources(
    ops: Sequence, variants: Optional[Dict] = None, optional: Optional[AbstractSet[str]] = None
) -> Dict[str, Path]:
    """Project path → source for the used kernels (runtime_c/kernels/<library>/; for an op in `variants`, the
    kernel that runs it instead: mcu_export.firmware.kernel_variants) and the util helpers they include,
    transitively, and those defining their overlap rules (the kernel table names them): a helper is looked up
    in its includer's library util/, then in portable/util/. The ops' optional helpers (kernel_variants.
    OPTIONAL_HELPERS, reached through weak symbols) come too: all of them, or those in `optional`."""
    from mcu_export.firmware.kernel_variants import OPTIONAL_HELPERS
    from mcu_export.ops.overlap import overlap_rule

    kernels = asset_dir("runtime_c") / "kernels"
    portable_util = kernels / "portable" / "util"
    files: Dict[str, Path] = {}
    pending: List[Path] = []
    for op in ops:
        runs = (variants or {}).get(op.qualified, op)
        src = kernels / runs.library / f"{runs.kernel}.c"
        if not src.is_file():
            raise UsageError(f"no {op.library} kernel source for {op.qualified} ({src.name})")
        pending.append(src)
        for helper in sorted(OPTIONAL_HELPERS.get(op.qualified, ())):
            if optional is None or helper in optional:
                pending.append(kernels / helper)
        rule = overlap_rule(op)
        if rule is not None:
            folder = next(
                f for f in (kernels / op.library / "util", portable_util) if (f / f"{rule.c_util}.c").is_file()
            )
            pending.append(folder / f"{rule.c_util}.c")
    seen = set()
    while pending:
        src = pending.pop()
        if src in seen:
            continue
        seen.add(src)
        rel = src.relative_to(kernels)
        files[f"{RUNTIME_DIR}/kernels/{rel.as_posix()}"] = src
        own_util = kernels / rel.parts[0] / "util"
        for name in _UTIL_INCLUDE.findall(src.read_text()):
            for folder in (own_util, portable_util):
                if (folder / f"{name}.h").is_file():
                    pending.extend(p for p in (folder / f"{name}.h", folder / f"{name}.c") if p.is_file())
                    break
    return files


def kernel_project(
    ops: Sequence,
    cmsis_nn: CortexM = None,
    extra_roots: Sequence[str] = (),
    variants: Optional[Dict] = None,
    optional: Optional[AbstractSet[str]] = None,
) -> Tuple[Dict[str, Path], List[str]]:
    """(project path → source, include dirs) of the kernels `ops` need: their runtime kernels and helpers,
    and for the cortex_m ones the CMSIS-NN functions they call (and `extra_roots`, called by generated
    model code), from cmsis_nn_kernels/ or from the installed CMSIS-NN at `cmsis_nn` (see
    mcu_export.firmware.cmsis_nn), and nothing else."""
    from mcu_export.firmware import cmsis_nn as cm

    files = kernel_sources(ops, variants, optional)
    cortex_m = [src for rel, src in files.items() if rel.startswith(f"{RUNTIME_DIR}/kernels/cortex_m/")]
    if not cortex_m:
        if cmsis_nn is not None:
            cm.installed(cmsis_nn)  # a wrong path is reported even when this model needs no int8 kernel
        return files, []
    nn_files, nn_includes = cm.project_files(cortex_m, cmsis_nn, extra_roots)
    files.update(nn_files)
    # the cortex_m kernels reach the portable helpers as "util/mx_args.h"; generated model code reaches
    # the cortex_m ones (mx_cm_conv_dispatch.h) by name
    return files, [f"{RUNTIME_DIR}/kernels/portable", f"{RUNTIME_DIR}/kernels/cortex_m/util", *nn_includes]


def runtime_sources() -> Dict[str, Path]:
    runtime = asset_dir("runtime_c")
    files = {}
    for folder in ("include", "src"):
        for path in sorted((runtime / folder).rglob("*")):
            if path.is_file():
                files[f"{RUNTIME_DIR}/{path.relative_to(runtime)}"] = path
    return files


def _tensor_io(plan: P.ExecutionPlan, indices: Sequence[int], what: str) -> List[P.Tensor]:
    out = []
    for i, v in enumerate(indices):
        t = plan.values[v]
        if not isinstance(t, P.Tensor):
            raise UsageError(
                f"model {what} {i} is a {type(t).__name__}, not a tensor: firmware supports tensor I/O only"
            )
        out.append(t)
    return out


def tensor_manifest(t: P.Tensor) -> Dict:
    return {"dtype": int(t.scalar_type), "shape": list(t.sizes), "dim_order": list(t.dim_order), "nbytes": t.nbytes}


def manifest(plan: P.ExecutionPlan, inputs: Sequence[P.Tensor], outputs: Sequence[P.Tensor]) -> Dict:
    """model/model.json: what the host side of a run needs (I/O layout, the op of each instruction),
    so running never has to parse the .pte again."""
    instructions = []
    for i, ins in enumerate(plan.chains[0].instructions):
        if isinstance(ins, P.KernelCall):
            instructions.append({"index": i, "op": plan.operators[ins.op_index].qualified})
    out = {
        "method": METHOD,
        "inputs": [tensor_manifest(t) for t in inputs],
        "outputs": [tensor_manifest(t) for t in outputs],
        "kernel_calls": instructions,
    }
    delegate_calls = npu_mod.delegate_manifest(plan)
    if delegate_calls is not None:
        out["delegate_calls"] = delegate_calls
    return out


def model_sources(
    program: P.Program,
    pte: bytes,
    board: Board,
    *,
    model_name: str = "model",
    fault_at_instruction: Optional[int] = None,
    cmsis_nn: CortexM = None,
) -> Tuple[Dict[str, Union[str, bytes, Path]], List[str]]:
    """Every app file of the project (model/, runtime/, cmsis_nn/), keyed by project path, and the include
    dirs beyond runtime/include and model/ that they need."""
    from mcu_export.firmware.kernel_variants import kernel_variants, optional_helpers
    from mcu_export.host_runtime import render_kernel_table

    plan = program.method(METHOD)
    if len(plan.chains) != 1:
        raise UsageError(f"method '{METHOD}' has {len(plan.chains)} chains; firmware runs exactly one")
    instructions = plan.chains[0].instructions
    if len(instructions) > MAX_INSTRUCTIONS:
        raise UsageError(
            f"method '{METHOD}' has {len(instructions)} instructions; per-op markers allow at most {MAX_INSTRUCTIONS}"
        )
    if fault_at_instruction is not None and not 0 <= fault_at_instruction < len(instructions):
        raise UsageError(f"fault_at_instruction {fault_at_instruction} is not an instruction of the method")
    ops = model_ops(plan)
    backends = npu_mod.linked_backends(board, plan)
    if backends:
        npu_mod.check_products(board, program, plan)
    inputs, outputs = _tensor_io(plan, plan.inputs, "input"), _tensor_io(plan, plan.outputs, "output")
    pool = pool_counts(plan, backends)
    scratch = npu_mod.platform_scratch(program, plan) if backends else 0
    model_region, arenas = place_program(board, plan, len(pte), npu_scratch=scratch)
    npu_scratch = arenas.pop() if scratch else None
    context = dict(
        board=board,
        model_name=model_name,
        method=METHOD,
        inputs=inputs,
        outputs=outputs,
        pte_size=len(pte),
        pte_sha256=hashlib.sha256(pte).hexdigest(),
        pool=asdict(pool),
        model_region=model_region,
        arenas=arenas,
        npu_scratch=npu_scratch,
        fault_at=fault_at_instruction,
    )
    files: Dict[str, Union[str, bytes, Path]] = {
        f"{MODEL_DIR}/model.pte": pte,
        f"{MODEL_DIR}/model.json": json.dumps(manifest(plan, inputs, outputs), indent=1) + "\n",
    }
    for name in ("mx_model.h", "mx_model_data.c", "mx_model_memory.c", "mx_model_hooks.c"):
        files[f"{MODEL_DIR}/{name}"] = render(f"model/{name}.j2", **context)
    files[f"{MODEL_DIR}/main.c"] = asset_dir("runtime_c") / "firmware" / "main.c"
    variants = kernel_variants(plan)
    files[f"{MODEL_DIR}/kernel_table.c"] = render_kernel_table(ops, backends, variants)
    files.update(runtime_sources())
    dispatch = render_conv_dispatch(plan, board, ours=cmsis_nn is None)
    if dispatch is not None:
        files[f"{MODEL_DIR}/mx_model_cmsis_nn.c"] = dispatch
    kernel_files, include_dirs = kernel_project(
        ops, cmsis_nn, calls_in(dispatch) if dispatch else (), variants, optional_helpers(plan, board.cpu.isa)
    )
    files.update(kernel_files)
    if backends:
        files.update(npu_mod.project_files())
        include_dirs = [*include_dirs, *npu_mod.include_dirs()]
    return files, include_dirs


def project_dir(out_dir: Union[str, Path], board: Union[Board, str]) -> Path:
    name = board if isinstance(board, str) else board.name
    return Path(out_dir) / "firmware" / name


def render_model_project(
    model: ModelSource,
    board: Union[Board, str],
    out_dir: Union[str, Path],
    *,
    model_name: str = "model",
    fault_at_instruction: Optional[int] = None,
    cmsis_nn: CortexM = None,
) -> Path:
    """Write the firmware project for `model` (an api.Artifact, .pte bytes, or a .pte path / export folder)
    into OUT/firmware/<board>/ and return that folder. `fault_at_instruction` is a test hook: the
    firmware executes an undefined instruction when that instruction's kernel is about to run.
    `cmsis_nn`: an installed CMSIS-NN (source tree or pack folder) for the int8 kernels to call instead
    of cmsis_nn_kernels/."""
    board = load_firmware_board(board)
    program, pte = program_and_bytes(model)
    files, include_dirs = model_sources(
        program, pte, board, model_name=model_name, fault_at_instruction=fault_at_instruction, cmsis_nn=cmsis_nn
    )
    project = project_dir(out_dir, board)
    _remove_stale(project, files)
    plan = program.method(METHOD)
    npu = bool(npu_mod.linked_backends(board, plan))
    return render_project(
        board,
        project,
        files,
        include_dirs=[f"{RUNTIME_DIR}/include", MODEL_DIR, *include_dirs],
        defines=npu_mod.c_defines(board) if npu else None,
        source_defines=npu_mod.SOURCE_DEFINES if npu else None,
    )


def _remove_stale(project: Path, files: Mapping[str, object]) -> None:
    """Files a previous render wrote for another model (e.g. a kernel it used): the folder must hold
    exactly what this model needs, since users copy it whole."""
    for folder in (MODEL_DIR, RUNTIME_DIR, "cmsis_nn", npu_mod.DRIVER_DIR):
        for path in sorted((project / folder).rglob("*"), reverse=True) if (project / folder).is_dir() else []:
            rel = path.relative_to(project).as_posix()
            if path.is_file() and rel not in files:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        if (project / folder).is_dir() and not any((project / folder).iterdir()):
            (project / folder).rmdir()  # a folder this model needs nothing from (npu/, cmsis_nn/)


def build_model_firmware(
    out_dir: Union[str, Path],
    board: Union[Board, str],
    *,
    model: Optional[ModelSource] = None,
    fault_at_instruction: Optional[int] = None,
    cmsis_nn: CortexM = None,
) -> BuildResult:
    """Render and build the firmware for the export in `out_dir` (its model.pte, unless `model` is given);
    progress lines go to stderr. Returns the ELF (and .bin/.uf2 when the board wants them) and the map.
    `cmsis_nn`: build the int8 kernels against this installed CMSIS-NN instead of cmsis_nn_kernels/."""
    board = load_firmware_board(board)
    out_dir = Path(out_dir)
    source = model if model is not None else out_dir / "model.pte"
    print(f"mcu-export: build: rendering {project_dir(out_dir, board)}", file=sys.stderr, flush=True)
    project = render_model_project(
        source,
        board,
        out_dir,
        model_name=out_dir.resolve().name,
        fault_at_instruction=fault_at_instruction,
        cmsis_nn=cmsis_nn,
    )
    result = build_project(project)
    fingerprint.record(Path(result.elf).parent)
    return result


def project_of(build: BuildResult) -> Path:
    """The project folder a build came from (its ELF is in <project>/artifacts/ or <project>/build/)."""
    project = Path(build.elf).resolve().parent.parent
    if not (project / MODEL_DIR / "model.json").is_file():
        raise UsageError(f"{build.elf} is not the output of a model firmware project (no {MODEL_DIR}/model.json)")
    return project
