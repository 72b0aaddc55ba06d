"""`python -m mcu_export_explorer.launch MODEL.pte [--host H] [--port P] [--no-browser]`: Model Explorer's server
with the .pte opened through McuExportPteAdapter (what `mcu-export explore OUT` runs)."""

from __future__ import annotations

import argparse

import model_explorer
from mcu_export_explorer.main import ADAPTER_ID


def main() -> None:
    p = argparse.ArgumentParser(prog="mcu_export_explorer.launch")
    p.add_argument("pte")
    p.add_argument("--host", default="localhost")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--no-browser", action="store_true")
    args = p.parse_args()
    config = model_explorer.config().add_model_from_path(args.pte, adapterId=ADAPTER_ID)
    model_explorer.visualize_from_config(
        config,
        host=args.host,
        port=args.port,
        extensions=["mcu_export_explorer"],
        no_open_in_browser=args.no_browser,
    )


if __name__ == "__main__":
    main()
