"""`python cli_no_torch.py ARGS...`: run `mcu-export ARGS...` with torch made unimportable. A command that
imports torch (or any torch.* module) stops with exit code 97 and the line of mcu_export that asked for it.
CLI_NO_IMPORT=numpy,jinja2 forbids those packages (and their submodules) too."""

import os
import sys
import traceback
from pathlib import Path

FORBIDDEN = ["torch", *filter(None, os.environ.get("CLI_NO_IMPORT", "").split(","))]


class _NoTorch:
    def find_spec(self, name, path=None, target=None):
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
            ours = [f for f in traceback.extract_stack() if "mcu_export" in f.filename]
            where = (
                " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(ours[-4:])) or "outside mcu_export"
            )
            print(f"cli_no_torch: {name} imported at {where}", file=sys.stderr)
            sys.stderr.flush()
            raise SystemExit(97)
        return None


sys.meta_path.insert(0, _NoTorch())

from mcu_export.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
