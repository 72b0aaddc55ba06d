"""The runtime core's own flash size: a firmware with the runtime and no kernels, measured from its map.

The firmware embeds a real .pte (one method, an identity over a planned tensor: no instructions, no
operators) and runs it through mx_program_init / mx_method_load / mx_method_execute, so the linker keeps
exactly what a model's firmware keeps of the core. Only the kernels are missing (the empty kernel table).

    python -m mcu_export.bench_firmware [BOARD ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Dict, Optional, Union

from mcu_export.assets import asset_dir
from mcu_export.boards import load_firmware_board
from mcu_export.firmware.build import Source, build_project, render_project
from mcu_export.firmware.mapfile import parse_map
from mcu_export.firmware.sizes import size_report
from mcu_export.pte import program as P
from mcu_export.pte.writer import write_program

DEFAULT_BOARDS = ("corstone-300", "mps2-an505", "mps2-an386")
AIM_BYTES = 6 * 1024  # the aim (issue 14): runtime core under 6 KiB on Cortex-M55

MAIN_C = r"""
/* Runtime-core size probe: load and run a method that has no instructions. Exit code 0 = ran. */
#include <stdint.h>
#include "mx/runtime.h"

extern const uint8_t mx_probe_pte[];
extern const uint32_t mx_probe_pte_size;
static uint8_t mx_probe_meta_pool[1024] __attribute__((aligned(16)));
static uint8_t mx_probe_arena[64] __attribute__((section(".mx_arena.ARENA_REGION"), aligned(16)));

int main(void)
{
    mx_program program;
    mx_method_meta meta;
    mx_method method;
    if (mx_program_init(&program, mx_probe_pte, mx_probe_pte_size) != MX_OK) return 10;
    if (mx_program_method_meta(&program, "forward", &meta) != MX_OK) return 11;
    if (meta.meta_pool_bytes > sizeof mx_probe_meta_pool || meta.arena_count != 2) return 12;
    const mx_span arenas[2] = {{0, 0}, {mx_probe_arena, sizeof mx_probe_arena}};
    const mx_method_config cfg = {mx_probe_meta_pool, sizeof mx_probe_meta_pool, arenas, 2, false, 0, 0};
    if (mx_method_load(&program, "forward", &cfg, &method) != MX_OK) return 13;
    mx_tensor *in = mx_method_input(&method, 0);
    if (in == 0 || mx_tensor_nbytes(in) != 16) return 14;
    ((float *)in->data)[0] = 1.5f;
    if (mx_method_execute(&method) != MX_OK) return 15;
    mx_tensor *out = mx_method_output(&method, 0);
    return out != 0 && ((const float *)out->data)[0] == 1.5f ? 0 : 16;
}
"""


def probe_pte() -> bytes:
    """One method: its input is its output (a float[4] planned in arena 1); no operators, no instructions."""
    t = P.Tensor(P.ScalarType.FLOAT, [4], [0], allocation_info=P.AllocationDetails(1, 0))
    plan = P.ExecutionPlan(
        name="forward",
        values=[t],
        inputs=[0],
        outputs=[0],
        chains=[P.Chain(inputs=[0], outputs=[0], instructions=[])],
        operators=[],
        non_const_buffer_sizes=[0, 16],
    )
    return write_program(P.Program(execution_plan=[plan]))


def _pte_source(data: bytes, section: str) -> str:
    rows = ",\n".join("  " + ", ".join(f"0x{b:02x}" for b in data[i : i + 16]) for i in range(0, len(data), 16))
    return (
        "#include <stdint.h>\n"
        f'__attribute__((section("{section}"), aligned(16)))\n'
        f"const uint8_t mx_probe_pte[{len(data)}] = {{\n{rows}\n}};\n"
        f"const uint32_t mx_probe_pte_size = {len(data)}u;\n"
    )


def probe_sources(board_name: str) -> Dict[str, Source]:
    """The probe's app sources in the model project's layout (model_project.py: runtime/src, runtime/include, model/)."""
    board = load_firmware_board(board_name)
    runtime = asset_dir("runtime_c")
    sources: Dict[str, Source] = {}
    for folder in ("src", "include"):
        for f in sorted((runtime / folder).rglob("*")):
            if f.is_file():
                sources[f"runtime/{f.relative_to(runtime)}"] = f
    sources["model/kernel_table.c"] = runtime / "host" / "kernel_table_empty.c"
    # Where firmware.ld puts a model: .mx_model.<first model region> (boards without that list: .mx_model).
    model_regions = getattr(board.sections, "model", ())
    section = f".mx_model.{model_regions[0]}" if model_regions else ".mx_model"
    sources["model/model_pte.c"] = _pte_source(probe_pte(), section)
    sources["model/main.c"] = MAIN_C.replace("ARENA_REGION", board.sections.arenas[0])
    return sources


def build_probe(board_name: str, work_dir: Union[str, Path]):
    project = render_project(board_name, Path(work_dir), probe_sources(board_name), include_dirs=["runtime/include"])
    return build_project(project)


def runtime_core_flash(board_name: str, work_dir: Optional[Union[str, Path]] = None) -> dict:
    """Flash bytes of the runtime core (category `runtime`) and of startup/libc in the probe firmware."""
    with tempfile.TemporaryDirectory(prefix="mx-core-") as tmp:
        result = build_probe(board_name, Path(work_dir) if work_dir is not None else Path(tmp) / board_name)
        report = size_report(parse_map(result.map), board_name, elf=result.elf)
    cats = report["flash"]["categories"]
    return {
        "board": board_name,
        "runtime_flash_bytes": cats["runtime"],
        "startup_libc_flash_bytes": cats["startup_libc"],
        "flash_bytes": report["flash_bytes"],
        "runtime_ram_bytes": report["ram"]["categories"]["runtime"],
        "categories": cats,
    }


def measure(artifact, out_dir: Path, board: str, inputs):
    """Save an export to out_dir, build its firmware for `board`, run it once on QEMU: (the run, the size
    report that the build wrote into report.json)."""
    import json

    from mcu_export.firmware.flow import build_for_board
    from mcu_export.runners import run_model_firmware

    out = artifact.save(out_dir)
    run = run_model_firmware(build_for_board(out, board), board, inputs)
    return run, json.loads((out / "report.json").read_text())["firmware"][board]


def main(argv=None, store=None) -> int:
    from mcu_export.bench_figures import Column, FigureStore

    boards = list(argv if argv is not None else sys.argv[1:]) or list(DEFAULT_BOARDS)
    own = store is None
    store = store or FigureStore()
    table = store.table(
        "runtime_core",
        [Column("board", width=14)],
        [Column("runtime B", width=13), Column("startup+libc B", width=14), Column("firmware flash B", width=16)],
    )
    for name in boards:
        r = runtime_core_flash(name)
        table.row(
            [name],
            {
                "runtime B": r["runtime_flash_bytes"],
                "startup+libc B": r["startup_libc_flash_bytes"],
                "firmware flash B": r["flash_bytes"],
            },
        )
    print(f"(aim: runtime core under {AIM_BYTES} B on Cortex-M55; ExecuTorch's bare-metal runtime is ~116 KB)")
    if own:
        store.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
