"""`make demo`: export the keyword-spotting example, run it on the host C runtime, compare with torch."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

from mcu_export.api import export
from mcu_export.errors import McuExportError
from mcu_export.examples import spec
from mcu_export.model_spec import load_model

OUT = Path("out/kws_dscnn")


def _say(message: str) -> None:
    print(f"demo: {message}", flush=True)


def main() -> int:
    model, inputs = load_model(spec("kws_dscnn"))
    artifact = export(model, inputs, progress=_say)
    artifact.save(OUT)
    _say(f"wrote {OUT}/model.pte ({len(artifact.pte)} bytes) and {OUT}/report.json")

    got = artifact.run(*inputs)[0]
    with torch.no_grad():
        want = model(*inputs).numpy()
    err = float(np.max(np.abs(got - want)))
    mem = artifact.report["memory"]
    print()
    print("keyword spotting DS-CNN, fp32, host C runtime")
    print(f"  ops             {', '.join(f'{k} x{v}' for k, v in artifact.report['ops'].items())}")
    print(f"  output          {np.array2string(got.ravel(), precision=4, max_line_width=120)}")
    print(f"  torch           {np.array2string(want.ravel(), precision=4, max_line_width=120)}")
    print(f"  max |error|     {err:.3g}  (top-1 {int(got.argmax())} vs torch {int(want.argmax())})")
    print(f"  arena           {mem['arena_bytes']} bytes, lower bound {mem['lower_bound_bytes']} bytes "
          f"({mem['arena_over_lower_bound']:.3f}x), {mem['planned_tensors']} planned tensors")
    print(f"  weights         {mem['constant_bytes']} bytes; model.pte {artifact.report['pte_bytes']} bytes; "
          f"export {artifact.report['export_seconds']:.2f} s")
    ok = err <= 1e-4
    print("demo: OK" if ok else "demo: FAILED (error above 1e-4)")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except McuExportError as exc:
        print(f"demo: error: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
