"""What `mcu-export build OUT --board B` does for a firmware board (the CLI parses arguments and calls
these; `mcu-export run` is mcu_export.runners.command for every board)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from mcu_export.boards import Board, load_firmware_board
from mcu_export.firmware import fingerprint
from mcu_export.firmware.build import BuildResult
from mcu_export.firmware.flow import export_dir
from mcu_export.firmware.model_project import MODEL_DIR, project_dir


def current_build(out_dir: Union[str, Path], board: Union[Board, str]) -> Optional[BuildResult]:
    """The firmware already built for OUT's model.pte on `board` by this mcu-export's sources, or None when absent
    or stale."""
    board = load_firmware_board(board)
    project = project_dir(out_dir, board)
    art = project / "artifacts"
    embedded = project / MODEL_DIR / "model.pte"
    if not (art / "firmware.elf").is_file() or not embedded.is_file():
        return None
    if embedded.read_bytes() != (Path(out_dir) / "model.pte").read_bytes() or not fingerprint.matches(art):
        return None
    optional = {name: art / f"firmware.{name}" for name in ("bin", "uf2")}
    return BuildResult(
        elf=art / "firmware.elf",
        map=art / "firmware.map",
        **{k: p if p.is_file() else None for k, p in optional.items()},
    )


def build_command(out_dir: Union[str, Path], *, board: str, cmsis_nn=None) -> int:
    from mcu_export.firmware.flow import build_for_board

    out = export_dir(out_dir)
    result = build_for_board(out, board, cmsis_nn=cmsis_nn)
    for path in (result.elf, result.bin, result.uf2, result.map):
        if path is not None:
            print(f"wrote {path}")
    return 0
