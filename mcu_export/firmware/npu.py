"""The NPU part of model firmware: what a program with EthosUBackend delegates adds to its project on a board whose
file describes its NPU (npu_base, npu_irq, npu_reachable; boards/README.md), and where its memory must go.

Added to the project (model_project.py):
    runtime/backends/ethosu/   the delegate kernel (runtime_c/backends/ethosu/), in the kernel table's backends
    npu/                       the driver (boards/ethosu/): ethosu_driver.c (+ ethosu_u85.c) with its PMU cycle
                               counter (ethosu_pmu.c), both register accesses
                               (ethosu_io_mmio.c for an NPU, ethosu_io_semihost.c for the host's over the seam) and
                               npu_platform.c, which picks one at run time by the NPU's ID register (one ELF for
                               QEMU, the FVP and silicon)
The two register-access files define the same seam functions; CMake compiles each under its own names
(SOURCE_DEFINES) and npu_platform.c forwards the seam to the one it picked.

Placement: the NPU reaches neither TCM, so the embedded .pte (payload and weights, used in place) goes to the first
of [sections].model the NPU reaches, and each arena holding a delegate call's tensors (the NPU scratch among them)
to the first of [sections].arenas it reaches.

Platform scratch: ExecuTorch's own programs call their delegates without the trailing scratch argument (the
runtime takes it from its temp allocator). For those the project gets one static, 16-byte aligned buffer
(mx_npu_scratch, model/mx_model_memory.c) as large as the largest such delegate's scratch_size, in the first arena
region the NPU reaches, with the mx_ethosu_platform_scratch that hands it out (replacing npu_platform.c's weak one,
which has none). A program whose delegates all carry the argument (mcu-export's) gets neither.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional, Sequence, Set, Tuple

from mcu_export.assets import asset_dir
from mcu_export.boards import Board
from mcu_export.errors import UsageError
from mcu_export.pte import program as P

BACKEND_ID = "EthosUBackend"
DRIVER_DIR = "npu"
BACKEND_DIR = "runtime/backends/ethosu"

# What the seam's register file reports: ID as Arm's headers reset it (U55 arch 1.1.0, U65 arch 1.0.6, U85 arch
# 2.0.0) and CONFIG as Vela writes it in the payload's OPTIMIZER_CONFIG for the configuration (product, log2 MACs;
# U55/U65: SHRAM KiB; U85: AXI port and weight decoder counts).
NPU_ID = {"ethos-u55": 0x10104201, "ethos-u65": 0x10066001, "ethos-u85": 0x20007001}
NPU_CONFIG = {
    "ethos-u55-32": 0x00001005,
    "ethos-u55-64": 0x00001006,
    "ethos-u55-128": 0x00001807,
    "ethos-u55-256": 0x00003008,
    "ethos-u65-256": 0x10003008,
    "ethos-u65-512": 0x10006009,
    "ethos-u85-128": 0x20000117,
    "ethos-u85-256": 0x20000118,
    "ethos-u85-512": 0x20001119,
    "ethos-u85-1024": 0x2000251A,
    "ethos-u85-2048": 0x2000261B,
}

_DRIVER_FILES = (
    "ethosu_driver.c",
    "ethosu_driver.h",
    "ethosu_u85.c",
    "ethosu_u85.h",
    "ethosu_pmu.c",
    "ethosu_pmu.h",
    "ethosu_regs.h",
    "ethosu_io.h",
    "ethosu_io_mmio.c",
    "ethosu_io_mmio.h",
    "ethosu_io_semihost.c",
    "ethosu_io_semihost.h",
    "ethosu_regfile.c",
    "ethosu_regfile.h",
    "npu_platform.c",
    "npu_irq.c",
    "npu_irq.h",
)
# Each register access under its own names (npu_platform.c declares them the same way).
SOURCE_DEFINES = {
    f"{DRIVER_DIR}/ethosu_io_mmio.c": {
        "mx_ethosu_io": "mx_ethosu_mmio_io",
        "mx_ethosu_io_read": "mx_ethosu_mmio_read",
        "mx_ethosu_io_write": "mx_ethosu_mmio_write",
    },
    f"{DRIVER_DIR}/ethosu_io_semihost.c": {
        "mx_ethosu_io": "mx_ethosu_semihost_io",
        "mx_ethosu_io_read": "mx_ethosu_semihost_read",
        "mx_ethosu_io_write": "mx_ethosu_semihost_write",
    },
}


def ethosu_calls(plan: P.ExecutionPlan) -> Tuple[Tuple[int, int], ...]:
    """(instruction, delegate index) of each DelegateCall to an EthosUBackend delegate, in order."""
    instructions = plan.chains[0].instructions if plan.chains else []
    return tuple(
        (i, ins.delegate_index)
        for i, ins in enumerate(instructions)
        if isinstance(ins, P.DelegateCall) and plan.delegates[ins.delegate_index].id == BACKEND_ID
    )


def delegate_data(program: P.Program, delegate: P.BackendDelegate) -> bytes:
    """The processed bytes of `delegate`, inline or in a segment."""
    ref = delegate.processed
    if ref.location == P.SEGMENT:
        seg = program.segments[ref.index]
        return bytes(program.segment_data[seg.offset : seg.offset + seg.size])
    return bytes(program.backend_delegate_data[ref.index])


def platform_scratch(program: P.Program, plan: P.ExecutionPlan) -> int:
    """Bytes of the platform scratch `plan` needs: the largest scratch_size of its EthosUBackend calls that pass
    no scratch argument (one argument per input and output record, as ExecuTorch writes them), else 0."""
    from mcu_export.ethosu import blob as B

    instructions = plan.chains[0].instructions if plan.chains else []
    need = 0
    for i, d in ethosu_calls(plan):
        ins = instructions[i]
        assert isinstance(ins, P.DelegateCall)
        blob = B.unpack(delegate_data(program, plan.delegates[d]))
        if len(ins.args) == len(blob.inputs) + len(blob.outputs):
            need = max(need, blob.scratch_size)
    return need


def drives_npu(board: Board) -> bool:
    """Whether firmware for `board` can run EthosUBackend delegates (its file says where its NPU is)."""
    return board.npu_base is not None


def linked_backends(board: Board, plan: P.ExecutionPlan) -> tuple:
    """The backends the firmware of `plan` links on `board` (host_runtime.LinkedBackend): EthosUBackend when the
    program calls it and the board drives its NPU, else none (the firmware stays as it was without delegates)."""
    from mcu_export.host_runtime import ETHOSU

    return (ETHOSU,) if ethosu_calls(plan) and drives_npu(board) else ()


PRODUCT_NAMES = ("Ethos-U55", "Ethos-U65", "Ethos-U85")  # CONFIG.product 0, 1, 2 (mx_ethosu_product_name's)


def _product_name(product: int) -> str:
    return PRODUCT_NAMES[product] if product < len(PRODUCT_NAMES) else "unknown Ethos-U product"


def check_products(board: Board, program: P.Program, plan: P.ExecutionPlan) -> None:
    """Refuses, naming both, a delegate compiled for another Ethos-U product than the board's NPU: its driver would
    refuse every run (MX_ETHOSU_E_OPT_PRODUCT; a U55/U65 and a U85 run different command streams), so the build
    says so first. Other configuration differences (MACs) are left to the driver's check at the run."""
    from mcu_export.ethosu import blob as B
    from mcu_export.ethosu.payload import parse

    assert board.npu is not None
    npu = NPU_CONFIG[board.npu] >> 28 if board.npu in NPU_CONFIG else None
    for _, d in ethosu_calls(plan):
        config = parse(B.unpack(delegate_data(program, plan.delegates[d])).cmd_data).config[0]
        if config and npu is not None and config >> 28 != npu:
            raise UsageError(
                f"delegate {d} (EthosUBackend) was compiled for an {_product_name(config >> 28)}, but board "
                f"'{board.name}' has an {_product_name(npu)} ({board.npu}): re-export with --board {board.name}"
            )


def npu_arenas(plan: P.ExecutionPlan) -> Set[int]:
    """Memory ids of the arenas that hold an EthosUBackend call's tensors: its scratch (which the NPU reads and
    writes) and its inputs and outputs (copied in and out by the CPU)."""
    instructions = plan.chains[0].instructions if plan.chains else []
    ids: Set[int] = set()
    for i, _ in ethosu_calls(plan):
        ins = instructions[i]
        assert isinstance(ins, P.DelegateCall)
        for arg in ins.args:
            value = plan.values[arg]
            if isinstance(value, P.Tensor) and value.allocation_info is not None:
                ids.add(value.allocation_info.memory_id)
    return ids


def reachable(board: Board, regions: Sequence[str], what: str) -> Tuple[str, ...]:
    """`regions` (a board's arena or model regions, in its order) that the NPU reaches."""
    out = tuple(r for r in regions if r in board.npu_reachable)
    if not out:  # the board loader refuses such a file; a Board built in code may still be one
        raise UsageError(
            f"board '{board.name}': none of its {what} regions ({', '.join(regions)}) is reachable by the NPU "
            f"(npu_reachable: {', '.join(board.npu_reachable) or 'none'})"
        )
    return out


def project_files() -> Dict[str, Path]:
    """Project path → source of the backend and the driver with both register accesses and the platform."""
    backend = asset_dir("runtime_c") / "backends" / "ethosu"
    driver = asset_dir("boards") / "ethosu"
    files = {f"{BACKEND_DIR}/{name}": backend / name for name in ("ethosu_backend.c", "ethosu_backend.h")}
    files.update({f"{DRIVER_DIR}/{name}": driver / name for name in _DRIVER_FILES})
    return files


def include_dirs() -> Tuple[str, ...]:
    return (BACKEND_DIR, DRIVER_DIR)


def c_defines(board: Board) -> Dict[str, str]:
    """What npu_platform.c needs: the NPU's address and the ID/CONFIG the seam's register file reports."""
    assert board.npu is not None and board.npu_base is not None  # the board loader holds them together
    family = board.npu.rsplit("-", 1)[0]
    if family not in NPU_ID or board.npu not in NPU_CONFIG:
        raise UsageError(f"board '{board.name}': the firmware's NPU driver does not know '{board.npu}'")
    defines = {
        "MX_NPU_BASE": f"0x{board.npu_base:08x}u",
        "MX_NPU_ID": f"0x{NPU_ID[family]:08x}u",
        "MX_NPU_CONFIG": f"0x{NPU_CONFIG[board.npu]:08x}u",
        "MX_NPU_IRQ": f"{board.npu_irq}u",
    }
    return defines


def delegate_manifest(plan: P.ExecutionPlan) -> Optional[list]:
    """model.json's "delegate_calls" (for the runner's error lines), or None for a program without delegates."""
    instructions = plan.chains[0].instructions if plan.chains else []
    calls = [
        {"index": i, "delegate": ins.delegate_index, "backend": plan.delegates[ins.delegate_index].id}
        for i, ins in enumerate(instructions)
        if isinstance(ins, P.DelegateCall)
    ]
    return calls or None
