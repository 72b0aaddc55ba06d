"""Serving firmware: the serial protocol (docs/serial-protocol.md) on a board's UART, with no model of its own.
The host loads models into it over the link (`mcu-export serial load`); `mcu-export build OUT --board B --serve`
renders and builds it into OUT/firmware/<board>-serial/, and `mcu-export sim` runs it under QEMU.

The project (next to the board part render_project writes):
    serve/serve_main.c         runtime_c/firmware/serve_main.c: mx_serial on the UART, per-op hooks to PROFILE
    serve/mx_serve.h           what serve_main takes from the rest (memory, the board's slot store)
    serve/mx_serve_memory.c    the work area and the slots' RAM copy, sized from the board file (serve_layout)
    serve/kernel_table.c       the linked operators: INFO lists them, and a model needing another is refused at
                               LOAD_END with that operator's name
    runtime/                   the runtime core, runtime/serial/, the linked kernels and their helpers
    cmsis_nn/                  the CMSIS-NN functions the int8 kernels call; every convolution variant, since
                               the models are not known when the firmware is built
    board/.../slot_store_*.c   the board's model slot store: a semihosting file on a simulated board
    npu/, runtime/backends/    on a board whose file describes its NPU (npu_base): the EthosUBackend delegate
                               kernel, the driver and the NPU platform, as model firmware links them
                               (mcu_export/firmware/npu.py), the backend in the kernel table; the work area and
                               the slots then sit where the NPU reaches them (it reads the .pte's weights in place
                               and the scratch in the work area's arenas); serve/serve_npu.c keeps the NPU
                               platform's report lines off the UART
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence, Union

from mcu_export.assets import asset_dir
from mcu_export.boards import Board, load_firmware_board
from mcu_export.errors import UsageError
from mcu_export.firmware import npu as npu_mod
from mcu_export.firmware.build import BuildResult, build_project, render_project
from mcu_export.firmware.cmsis_nn import calls_in
from mcu_export.firmware.model_project import (
    RUNTIME_DIR,
    _free_bytes,
    _remove_stale,
    kernel_project,
    model_ops,
    runtime_sources,
)
from mcu_export.templates import render

SERVE_DIR = "serve"
# Caps, so that a board with 32 MiB of DDR does not get a 16 MiB slot that every LOAD_BEGIN erases (the slot
# store writes a whole slot to its file) and the boot reads twice: the example models are well under both.
MAX_WORK_BYTES = 1 << 20
MAX_SLOT_BYTES = 1 << 20
MIN_BYTES = 64 * 1024
# The slot store of boards whose firmware runs on a simulator with semihosting (QEMU, FVP): a host file.
# A board whose file names a store over its flash ([flash].slot_store: pico2's) gets that one.
SEMIHOST_STORE = "cortex_m/slot_store_semihost.c"
_WRAPPERS = "kernels/cortex_m/util/mx_cm_conv_dispatch_wrappers.c"
# the sources that call what the wrappers define (mx_cm_conv_dispatch.h)
_DISPATCHED = ("util/mx_cm_conv2d.c", "util/mx_cm_depthwise_conv2d.c", "mx_k_cortex_m_quantized_linear_out.c")


@dataclass(frozen=True)
class ServeLayout:
    work_bytes: int
    work_region: str
    slot_bytes: int  # one slot: its 32-byte header and the image
    slot_region: str


def serve_layout(board: Board) -> ServeLayout:
    """From the board file: the work area in the board's first arena region (the one model firmware fills
    first: the fastest), as large as it leaves room for, up to MAX_WORK_BYTES; then the slots' RAM copy in the
    roomiest arena region that is left, half of it per slot, up to MAX_SLOT_BYTES. A store over the board's flash
    maps its slots in place and gets no RAM copy (0 bytes). On a board whose NPU the firmware drives, only the
    arena regions the NPU reaches count: a delegate's scratch is planned into the work area, and the NPU reads the
    weights from the slot the program runs in place from."""
    regions = board.sections.arenas
    if not regions:
        raise UsageError(f"board '{board.name}' declares no arena regions ([sections].arenas)")
    if npu_mod.drives_npu(board):
        regions = npu_mod.reachable(board, regions, "arena")
    free = _free_bytes(board)
    work_region = regions[0]
    work = min(MAX_WORK_BYTES, free[work_region]) // 16 * 16
    free[work_region] -= work
    if board.flash.slot_store is not None:
        if work < MIN_BYTES:
            raise UsageError(
                f"board '{board.name}' has no room for serving firmware: work area {work} bytes in {work_region} "
                f"(at least {MIN_BYTES})"
            )
        return ServeLayout(work, work_region, 0, work_region)
    slot_region = max(regions, key=lambda r: free[r])
    slot = min(MAX_SLOT_BYTES, free[slot_region] // 2) // 16 * 16
    if min(work, slot) < MIN_BYTES:
        raise UsageError(
            f"board '{board.name}' has no room for serving firmware: work area {work} bytes in {work_region}, "
            f"model slots 2 x {slot} bytes in {slot_region} (at least {MIN_BYTES} each)"
        )
    return ServeLayout(work, work_region, slot, slot_region)


def slot_store_source(board: Board) -> str:
    if board.flash.slot_store is not None:
        return board.flash.slot_store
    if board.qemu is None and board.fvp is None:
        raise UsageError(
            f"board '{board.name}' has no model slot store for serving firmware: its board file names none "
            "([flash].slot_store) and no simulator whose semihosting could hold the slots"
        )
    return SEMIHOST_STORE


def resolve_ops(spec: Optional[str], out_dir: Optional[Union[str, Path]] = None) -> list:
    """The op-table entries a serving firmware links, in op-table order, from `spec`: comma-separated items,
    each `all` (every kernel of the op table: the default), `model` (the operators of OUT/model.pte) or a
    qualified operator name (`aten::add.out`)."""
    from mcu_export.host_runtime import default_ops
    from mcu_export.ops.table import ALL_OPS, BY_QUALIFIED

    wanted: set = set()
    for item in [s.strip() for s in (spec or "all").split(",") if s.strip()]:
        if item == "all":
            wanted.update(op.qualified for op in default_ops())
        elif item == "model":
            from mcu_export.pte.reader import read_program_file

            path = Path(out_dir or ".") / "model.pte"
            if not path.is_file():
                raise UsageError(f"--ops model: {path} does not exist")
            wanted.update(op.qualified for op in model_ops(read_program_file(path).method("forward")))
        elif item in BY_QUALIFIED:
            wanted.add(item)
        else:
            raise UsageError(f"--ops: unknown operator '{item}' (see `mcu-export ops`; or all, model)")
    if not wanted:
        raise UsageError("--ops names no operator")
    return [op for op in ALL_OPS if op.qualified in wanted]


def serve_backends(board: Board) -> tuple:
    """The delegate backends serving firmware links: EthosUBackend where the firmware drives the board's NPU.
    A program whose delegates ExecuTorch wrote without the scratch argument needs a platform scratch, which serving
    firmware does not have (npu_platform.c's weak one gives none): the backend refuses it at LOAD_END
    (0x0202, which the host names: mcu_export.serial.refusal)."""
    from mcu_export.host_runtime import ETHOSU

    return (ETHOSU,) if npu_mod.drives_npu(board) else ()


def serve_project_dir(out_dir: Union[str, Path], board: Union[Board, str]) -> Path:
    name = board if isinstance(board, str) else board.name
    return Path(out_dir) / "firmware" / f"{name}-serial"


def serve_sources(board: Board, ops: Sequence, cmsis_nn=None) -> tuple:
    """(project path → source, include dirs) of the app part of a serving project."""
    from mcu_export import __version__
    from mcu_export.host_runtime import render_kernel_table

    layout = serve_layout(board)
    firmware = asset_dir("runtime_c") / "firmware"
    memory = render(
        "firmware/mx_serve_memory.c.j2",
        board=board,
        buffers=[
            ("mx_serve_work", layout.work_bytes, layout.work_region),
            ("mx_serve_slot_ram", 2 * layout.slot_bytes, layout.slot_region),
        ],
        work_bytes=layout.work_bytes,
        slot_bytes=layout.slot_bytes,
        firmware=f"mcu-export {__version__} serve",
    )
    files: Dict[str, Union[str, Path]] = {
        f"{SERVE_DIR}/serve_main.c": firmware / "serve_main.c",
        f"{SERVE_DIR}/mx_serve.h": firmware / "mx_serve.h",
        f"{SERVE_DIR}/mx_serve_memory.c": memory,
        f"{SERVE_DIR}/kernel_table.c": render_kernel_table(ops, serve_backends(board)),
    }
    files.update(runtime_sources())
    serial = asset_dir("runtime_c") / "serial"
    for path in sorted(serial.iterdir()):
        files[f"{RUNTIME_DIR}/serial/{path.name}"] = path
    # the convolutions pick their CMSIS-NN variant at run time, through the wrappers, as on the host
    wrappers = asset_dir("runtime_c") / _WRAPPERS
    kernels, include_dirs = kernel_project(ops, cmsis_nn, calls_in(wrappers.read_text()))
    if any(k.endswith(_DISPATCHED) for k in kernels):
        kernels[f"{RUNTIME_DIR}/{_WRAPPERS}"] = wrappers
    files.update(kernels)
    include = [f"{RUNTIME_DIR}/include", f"{RUNTIME_DIR}/serial", SERVE_DIR, *include_dirs]
    if npu_mod.drives_npu(board):
        files.update(npu_mod.project_files())
        files[f"{SERVE_DIR}/serve_npu.c"] = firmware / "serve_npu.c"  # the platform's report lines off the UART
        include += npu_mod.include_dirs()
    return files, include


def render_serve_project(board: Union[Board, str], out_dir: Union[str, Path], ops: Sequence, *, cmsis_nn=None) -> Path:
    board = load_firmware_board(board)
    store = slot_store_source(board)
    files, include_dirs = serve_sources(board, ops, cmsis_nn)
    project = serve_project_dir(out_dir, board)
    _remove_stale(project, files)
    npu = npu_mod.drives_npu(board)
    return render_project(
        board,
        project,
        files,
        include_dirs=include_dirs,
        board_sources=[store],
        defines=npu_mod.c_defines(board) if npu else None,
        source_defines=npu_mod.SOURCE_DEFINES if npu else None,
    )


def build_serve_firmware(
    out_dir: Union[str, Path], board: Union[Board, str], ops: Optional[Sequence] = None, *, cmsis_nn=None
) -> BuildResult:
    """Render and build the serving firmware for `board` linking `ops` (default: every kernel) into
    OUT/firmware/<board>-serial/; progress on stderr."""
    board = load_firmware_board(board)
    ops = resolve_ops(None) if ops is None else list(ops)
    print(f"mcu-export: build: rendering {serve_project_dir(out_dir, board)}", file=sys.stderr, flush=True)
    return build_project(render_serve_project(board, out_dir, ops, cmsis_nn=cmsis_nn))
