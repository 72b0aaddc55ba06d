"""The server's part of the command line: `mcu-export server start|stop|status`, handing `export MODEL_SPEC` and
`run MODEL_SPEC` to a warm server, and starting one after a command that found none."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from mcu_export.server import where

PROG = "mcu-export"
_ENVIRON = dict(os.environ)  # as the command started: the server's key and environment (see client.spawn)
_NOTE = (
    f"{PROG}: started a warm server for the next export and run (`{PROG} server status`; it exits after "
    "{idle:.0f} min idle; --no-server or {env}=off: none)"
)


def add_parser(sub, parser_class) -> None:
    p = sub.add_parser("server", help="the warm server that runs export and run MODEL_SPEC with torch already loaded")
    ssub = p.add_subparsers(dest="server_command", required=True, parser_class=parser_class)
    ssub.add_parser("start", help="start one for this mcu-export and environment; wait until it is warm")
    ssub.add_parser("status", help="list the running servers")
    ssub.add_parser("stop", help="stop every running server")
    p.set_defaults(func=command)


def add_option(p) -> None:
    p.add_argument(
        "--no-server",
        action="store_true",
        help=f"run in this process, not in a warm server (also: {where.ENV}=off)",
    )


def _eligible(args) -> bool:
    if getattr(args, "no_server", True) or not where.enabled():
        return False
    if args.command == "run":
        from mcu_export.cli_export import is_model_spec

        return is_model_spec(args.program)
    return args.command == "export"


def in_server(args, argv: List[str]) -> Optional[int]:
    """The exit code of `argv` run by a warm server, or None: run it here."""
    if not _eligible(args):
        return None
    from mcu_export.server.client import run_in_server

    return run_in_server(argv)


def after(args, code: int) -> None:
    """After a command that ran here: start a server for the next one (not in CI unless asked)."""
    if code != 0 or not _eligible(args) or not where.autostart():
        return
    from mcu_export.server.client import spawn

    try:
        started = spawn(_ENVIRON)
    except OSError as exc:  # a convenience: never the command's failure
        print(f"{PROG}: warning: no warm server: {exc}", file=sys.stderr)
        return
    if started:
        print(_NOTE.format(idle=where.idle_seconds() / 60, env=where.ENV), file=sys.stderr)


def command(args) -> int:
    from mcu_export.server import client

    if args.server_command == "start":
        client.spawn()
        status = client.wait_ready()
        if status is None:
            from mcu_export.errors import ToolchainError

            raise ToolchainError(f"the server did not come up: see {where.folder()}/{where.key()}.log")
        print(f"server {status['key']} (pid {status['pid']}) on {status['socket']}")
        return 0
    if args.server_command == "stop":
        stopped = client.stop_all()
        print(f"stopped {len(stopped)} server(s)")
        return 0
    servers = client.servers()
    if not servers:
        print(f"no server running (in {where.folder()})")
    for s in servers:
        state = "current" if s["current"] else "stale (another mcu-export or environment)"
        print(
            f"server {s['key']} pid {s['pid']}: {state}, {s['served']} command(s), {s['running']} running, "
            f"up {s['up_s']:.0f} s, idle {s['idle_s']:.0f} s"
        )
    return 0
