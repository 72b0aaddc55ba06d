"""The `mcu-export` command: export, run, inspect. Every failure is one line on stderr and exit code 2."""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from mcu_export.errors import McuExportError, UsageError

PROG = "mcu-export"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage dump is noise: one line, like every other error
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _build_parser() -> argparse.ArgumentParser:
    from mcu_export import __version__

    parser = _Parser(prog=PROG, description="PyTorch models to .pte programs and firmware for microcontrollers.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("export", help="capture, plan and write OUT/model.pte and OUT/report.json")
    p.add_argument("model", metavar="MODEL_SPEC", help="path/file.py:factory; factory() returns (module, inputs)")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="output folder")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("run", help="run a .pte on a board (host: the C runtime on this machine)")
    p.add_argument("program", metavar="OUT|FILE.pte", help="an export folder or a .pte file")
    p.add_argument("--board", default="host", help="where to run it (default: host)")
    p.add_argument("--input", action="append", default=[], metavar="X.npy", help="one per model input, in order")
    p.add_argument("--output", metavar="OUT.npz", help="write outputs here (keys output_0, output_1, ...)")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("boards", help="list the boards with their CPU, memory and simulators")
    p.set_defaults(func=_cmd_boards)

    p = sub.add_parser("inspect", help="print a .pte's operators, tensors, memory plan and delegates")
    p.add_argument("program", metavar="FILE.pte")
    p.set_defaults(func=_cmd_inspect)
    return parser


def _cmd_export(args) -> int:
    from mcu_export.api import export_spec

    artifact = export_spec(args.model, progress=_progress)
    out = artifact.save(args.output)
    mem = artifact.report["memory"]
    print(f"wrote {out / 'model.pte'} ({artifact.report['pte_bytes']} bytes) and {out / 'report.json'}")
    print(f"arena {mem['arena_bytes']} bytes (lower bound {mem['lower_bound_bytes']}), "
          f"{sum(artifact.report['ops'].values())} kernel calls, {len(artifact.report['ops'])} distinct ops")
    return 0


def _cmd_run(args) -> int:
    from mcu_export.run import run_command

    return run_command(args.program, board=args.board, input_paths=args.input, output_path=args.output)


def _cmd_boards(args) -> int:
    from mcu_export.boards_cmd import format_boards

    print(format_boards(), end="")
    return 0


def _cmd_inspect(args) -> int:
    from mcu_export.pte.inspect import format_program
    from mcu_export.pte.reader import read_program_file

    print(format_program(read_program_file(args.program)), end="")
    return 0


def _progress(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    try:
        args = _build_parser().parse_args(argv)
        return args.func(args)
    except McuExportError as exc:
        print(f"{PROG}: error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: still one line, the traceback only on request
        if os.environ.get("MCU_EXPORT_DEBUG"):
            raise
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc} (set MCU_EXPORT_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
