"""The `mcu-export` command: export, run, inspect. Every failure is one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, List, Optional

from mcu_export import cli_export
from mcu_export.errors import McuExportError, UsageError
from mcu_export.progress import Printer
from mcu_export.server import cli as server_cli

PROG = "mcu-export"
_INPUT_HELP = (
    "one .npy per model input, in order; or one .npz holding them all (keys input_0, input_1, ... or arr_0, ... "
    "as np.savez(a, b) names them, by number; any other names in the order they were saved)"
)
# Set by the warm server's worker: work that is not the command's result, done after its exit code is sent.
AFTER_EXIT: Optional[List[Callable[[], None]]] = None
_CHART_HELP = "write per-op time and the arena timeline as an HTML page and OUT.png (needs the charts extra)"


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
    p.add_argument(
        "--board",
        default="host",
        help="also build firmware for this board into OUT/firmware/BOARD (see `mcu-export boards`)",
    )
    cli_export.add_export_options(p)
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("build", help="build firmware for a board from an export folder (OUT/firmware/BOARD)")
    p.add_argument("program", metavar="OUT", help="an export folder (holding model.pte)")
    p.add_argument("--board", required=True, help="a board from `mcu-export boards`")
    p.add_argument(
        "--cmsis-nn",
        metavar="PATH",
        nargs="?",
        const="auto",
        default=None,
        help="link an installed CMSIS-NN (source tree or pack folder; without PATH: find a CMSIS pack) "
        "instead of mcu-export's own cmsis_nn_kernels",
    )
    p.add_argument(
        "--serve",
        action="store_true",
        help="build serving firmware instead (OUT/firmware/BOARD-serial): no model of its own, the serial "
        "protocol on the board's UART to load one (`mcu-export serial load`); OUT need not hold a model",
    )
    p.add_argument(
        "--ops",
        metavar="OPS",
        help="with --serve: the operators to link, comma-separated: all (default), model (those of OUT/model.pte) "
        "or names such as aten::add.out; a model needing another is refused with its name",
    )
    p.set_defaults(func=_cmd_build)

    p = sub.add_parser("sim", help="run a board's serving firmware under QEMU with its UART at a socket or pty")
    p.add_argument("program", metavar="OUT", help="the folder of `mcu-export build OUT --board B --serve`")
    p.add_argument("--board", required=True, help="a board with a QEMU machine (see `mcu-export boards`)")
    p.add_argument(
        "--serial",
        required=True,
        metavar="ENDPOINT",
        help="socket://127.0.0.1:PORT (QEMU listens there) or pty (its path is printed)",
    )
    p.set_defaults(func=_cmd_sim)

    p = sub.add_parser("run", help="run a model on a board: host (C runtime here) or a board's simulator")
    p.add_argument(
        "program",
        metavar="OUT|FILE.pte|MODEL_SPEC",
        help="an export folder (a .pte file for --board host), or path/file.py:factory: exported into --out "
        "first, unless the export there is of the same model and options (OUT/export.sha256)",
    )
    p.add_argument(
        "--out", metavar="OUT", help="with MODEL_SPEC: the export folder (default: out/<file>-<board>[-int8])"
    )
    cli_export.add_export_options(p)
    p.add_argument("--board", default="host", help="a board from `mcu-export boards` (default: host)")
    p.add_argument(
        "--sim",
        "--target",
        dest="sim",
        default=None,
        metavar="TARGET",
        help="what runs it: qemu or fvp for a firmware board (default: qemu when the board has it), or serial "
        "for a board on a serial link (with --port)",
    )
    p.add_argument("--port", help="with --sim serial: a device path or a pyserial URL (socket://host:port)")
    p.add_argument("--baud", type=int, default=115200, help="with --sim serial: baud rate (default 115200)")
    p.add_argument("--input", action="append", default=[], metavar="X.npy|X.npz", help=_INPUT_HELP)
    p.add_argument("--output", metavar="OUT.npz", help="write outputs here (keys output_0, output_1, ...)")
    p.add_argument(
        "--json",
        metavar="RUN.json",
        help="write what the run measured (instruction counts per inference and per op on a simulator)",
    )
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="run timeout in seconds")
    p.add_argument("--chart", metavar="OUT.html", help=_CHART_HELP)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("flash", help="put a built firmware on a board: UF2 boot drive, picotool or a pyocd probe")
    p.add_argument(
        "program", metavar="OUT", help="an export folder (OUT/firmware/BOARD), a firmware project, or the file"
    )
    p.add_argument("--board", required=True, help="a board from `mcu-export boards`")
    p.add_argument(
        "--with",
        dest="way",
        metavar="WAY",
        help="drive, picotool or pyocd (default: the board's [flash] method; for a UF2 board the boot drive, or "
        "picotool when no drive is mounted and picotool is on PATH)",
    )
    p.add_argument("--drive", metavar="PATH", help="the mounted UF2 boot drive (default: found by its INFO_UF2.TXT)")
    p.add_argument("--probe", metavar="UID", help="with pyocd: the debug probe's unique id (default: the first)")
    p.set_defaults(func=_cmd_flash)

    p = sub.add_parser("boards", help="list the boards with their CPU, memory and simulators")
    p.set_defaults(func=_cmd_boards)

    p = sub.add_parser("ops", help="list every supported operator with its kernel and dtypes")
    p.add_argument(
        "--args",
        action="store_true",
        help="list each operator's kernel-call arguments instead: position, name and schema type",
    )
    p.set_defaults(func=_cmd_ops)

    p = sub.add_parser("serial", help="talk to a board over its serial link: info, load a model, invoke, profile")
    ssub = p.add_subparsers(dest="serial_command", required=True, parser_class=_Parser)
    for name, text in (
        ("info", "what the device says about itself: board, firmware, operators, memory, active model"),
        ("load", "load a model into the inactive slot; it becomes active once it checks and loads"),
        ("invoke", "set the inputs, run the active model once, read the outputs"),
        ("profile", "per-op ticks of the last invoke (with --input: invoke on them first)"),
    ):
        q = ssub.add_parser(name, help=text)
        q.add_argument("--port", required=True, help="a device path or a pyserial URL (socket://host:port, rfc2217://)")
        q.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
        q.add_argument("--timeout", type=float, default=1.0, metavar="S", help="seconds before a request is resent")
        if name == "load":
            q.add_argument("program", metavar="OUT|FILE.pte", help="an export folder or a .pte file")
        if name in ("invoke", "profile"):
            q.add_argument("--input", action="append", default=[], metavar="X.npy|X.npz", help=_INPUT_HELP)
        if name == "profile":
            q.add_argument("--chart", metavar="OUT.html", help=_CHART_HELP)
            q.add_argument("--program", metavar="OUT|FILE.pte", help="with --chart: the loaded model, for its arena")
        if name == "invoke":
            q.add_argument("--output", metavar="OUT.npz", help="write outputs here (keys output_0, output_1, ...)")
    p.set_defaults(func=_cmd_serial)

    p = sub.add_parser("report", help="write OUT/report.html: memory timeline, per-op profile, sizes, graph")
    p.add_argument("program", metavar="OUT", help="an export folder (also written at the end of export and run)")
    p.add_argument("--png", action="store_true", help="also each figure as OUT/report-<figure>.png (needs matplotlib)")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("inspect", help="print a .pte's operators, tensors, memory plan and delegates")
    p.add_argument("program", metavar="FILE.pte")
    p.set_defaults(func=_cmd_inspect)

    p = sub.add_parser("explore", help="open an export in Model Explorer, each node with its source line")
    p.add_argument("program", metavar="OUT|FILE.pte")
    p.add_argument("--host", default="localhost")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--no-browser", action="store_true", help="start the server only (print its address)")
    p.set_defaults(func=_cmd_explore)

    server_cli.add_parser(sub, _Parser)
    return parser


def _cmd_export(args) -> int:
    from mcu_export.api import export_spec
    from mcu_export.boards import load_board

    board = load_board(args.board)  # before the (slow) export, so a typo fails at once
    options = cli_export.export_options(args, board.name)
    calibrate = None
    if options.calibrate:
        from mcu_export.int8.calibrate import load_calibration

        calibrate = load_calibration(options.calibrate)
    # int8 scratch is sized for a firmware board's ISA (DSP/MVE); for a host board, for every ISA (api._board)
    with _warnings_as_lines():
        artifact = export_spec(
            args.model,
            progress=_progress,
            quantize=options.quantize,
            calibrate=calibrate,
            board=board,
            backend=options.backend,
            fallback=options.fallback,
            overlap=options.overlap,
            io=options.io,
            linear_weights=options.linear_weights,
        )
    out = artifact.save(args.output)
    cli_export.print_export(artifact, out)
    code = _build(out, board.name) if board.firmware else 0
    _report(out)
    return code


def _build(out, board: str, cmsis_nn=None) -> int:
    from mcu_export.firmware.model_cli import build_command

    return build_command(out, board=board, cmsis_nn=cmsis_nn)


def _cmsis_nn_path(value):
    if value != "auto":
        return value
    from mcu_export.firmware.cmsis_nn import find_cmsis_nn

    found = find_cmsis_nn()
    if found is None:
        raise UsageError(
            "no CMSIS-NN pack found (looked in $CMSIS_PACK_ROOT, ~/.cache/arm/packs and "
            "cmsis-pack-manager's cache): pass --cmsis-nn PATH"
        )
    return found


def _cmd_build(args) -> int:
    from mcu_export.boards import load_board

    if not load_board(args.board).firmware:
        raise UsageError(f"board '{args.board}' needs no firmware build: use `mcu-export run OUT --board {args.board}`")
    cmsis_nn = _cmsis_nn_path(args.cmsis_nn) if args.cmsis_nn else None
    if args.serve:
        from mcu_export.firmware.serve_cli import build_serve_command

        return build_serve_command(args.program, board=args.board, ops=args.ops, cmsis_nn=cmsis_nn)
    if args.ops:
        raise UsageError("--ops goes with --serve")
    return _build(args.program, args.board, cmsis_nn)


def _cmd_sim(args) -> int:
    from mcu_export.firmware.serve_cli import sim_command

    return sim_command(args.program, board=args.board, serial=args.serial)


def _cmd_run(args) -> int:
    from mcu_export.runners.command import run_command

    program = args.program
    if cli_export.is_model_spec(program):
        from mcu_export.boards import load_board
        from mcu_export.loop import export_if_changed
        from mcu_export.model_spec import parse_spec

        board = load_board(args.board)
        options = cli_export.export_options(args, board.name)
        out = Path(args.out or f"out/{parse_spec(program)[0].stem}-{board.name}" + ("-int8" if args.quantize else ""))
        with _warnings_as_lines():
            artifact = export_if_changed(program, out, options, _progress)
        if artifact is not None:
            cli_export.print_export(artifact, out)
        program = str(out)
    elif args.out or cli_export.export_flags_given(args):
        raise UsageError("--out and the export options go with a MODEL_SPEC (path/file.py:factory), not an export")
    code = run_command(
        program,
        board=args.board,
        target=args.sim,
        input_paths=args.input,
        output_path=args.output,
        json_path=args.json,
        chart_path=args.chart,
        timeout=args.timeout,
        port=args.port,
        baud=args.baud,
    )
    if Path(program, "model.pte").is_file():  # an export folder (a bare .pte has no report.json to report)
        _report(program)
    return code


def _cmd_flash(args) -> int:
    from mcu_export.flash import flash_command

    return flash_command(args.program, board=args.board, way=args.way, drive_path=args.drive, probe=args.probe)


def _cmd_boards(args) -> int:
    from mcu_export.boards_cmd import format_boards

    print(format_boards(), end="")
    return 0


def _cmd_ops(args) -> int:
    from mcu_export.ops.listing import format_op_args, format_ops

    print(format_op_args() if args.args else format_ops(), end="")
    return 0


def _cmd_serial(args) -> int:
    from mcu_export.serial import command

    link = (args.port, args.baud, args.timeout)
    if args.serial_command == "info":
        return command.info_command(*link)
    if args.serial_command == "load":
        return command.load_command(*link, args.program)
    if args.serial_command == "invoke":
        return command.invoke_command(*link, args.input, args.output)
    return command.profile_command(*link, args.input, args.chart, args.program)


def _cmd_report(args) -> int:
    from mcu_export.report import write_report

    for path in write_report(args.program, png=args.png):
        print(f"wrote {path}")
    return 0


def _report(out) -> None:
    """OUT/report.html after export and run; a failure of it is a warning line, never the command's. In a warm
    server's worker (AFTER_EXIT set), after the command has returned its result (mcu_export/server/worker.py)."""
    from mcu_export.report import report_after

    if AFTER_EXIT is not None:
        _progress(f"{Path(out) / 'report.html'} follows in a second or two (the warm server writes it)")
        AFTER_EXIT.append(lambda: report_after(out, say=print, warn=print))
        return
    _progress("writing report.html")
    report_after(out, say=print, warn=lambda text: print(f"{PROG}: warning: {text}", file=sys.stderr))


def _cmd_inspect(args) -> int:
    from mcu_export.pte import debug_map
    from mcu_export.pte.inspect import format_program
    from mcu_export.pte.reader import read_program_file

    prog = read_program_file(args.program)
    forward = [plan for plan in prog.execution_plan if plan.name == "forward"]
    # report.json's map when it sits beside the .pte (torch ops, Class.forward), else the .pte's stacktrace
    sources = debug_map.load(Path(args.program), forward[0]) if forward else None
    print(format_program(prog, sources), end="")
    return 0


def _cmd_explore(args) -> int:
    from mcu_export.explore import explore

    return explore(Path(args.program), args.host, args.port, args.no_browser)


_WARNED: set = set()  # warnings printed: a progress line with the same text is not printed again


_PRINTER = Printer(f"{PROG}: ")  # steps of long work as a bar on a terminal, a few lines elsewhere


def _progress(message: str) -> None:
    if message not in _WARNED:
        _PRINTER(message)


@contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """mcu-export's own warnings (McuExportWarning) as one `mcu-export: warning:` line each, printed when
    raised and once, not as Python's two-line warning (nor again as a progress line); others as usual."""
    from mcu_export.errors import McuExportWarning

    def show(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, McuExportWarning):
            return default(message, category, filename, lineno, file, line)
        text = str(message)
        if text not in _WARNED:
            _WARNED.add(text)
            print(f"{PROG}: warning: {text}", file=sys.stderr, flush=True)

    with warnings.catch_warnings():
        warnings.simplefilter("always", McuExportWarning)
        default = warnings.showwarning
        warnings.showwarning = show
        yield


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _build_parser().parse_args(argv)
        code = server_cli.in_server(args, argv)
        if code is None:
            code = args.func(args)
            server_cli.after(args, code)
        return code
    except McuExportError as exc:
        print(f"{PROG}: error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: still one line, the traceback only on request
        if os.environ.get("MCU_EXPORT_DEBUG"):
            raise
        print(
            f"{PROG}: internal error: {type(exc).__name__}: {exc} (set MCU_EXPORT_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
