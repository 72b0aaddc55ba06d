"""Where every model family stands, one row each: `python tests/support/family_status.py [name ...]`.

Columns: fp32 export; the fp32 host C runtime's max error against torch (max |diff| / max |torch|); the int8
(PT2E, calibrated) host output's cosine to fp32 torch, min over seeded inputs; "centred cos", the mean cosine of
what changes with the input (see model_families.CENTRED_COSINE_FLOOR); host C runtime == int8 reference
interpreter, bit for bit; int8 export with fallback=False: "ok", else the unsupported or refused ops (and, when
export with fallbacks allowed works, the ops that then stay fp32, on the line below). A long cell is written
out under its row; FAIL*: failed with the error of the int8 column. The same checks, as assertions, are
tests/test_model_families.py."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import numpy as np  # noqa: E402

from model_families import (  # noqa: E402
    COSINE_INPUTS,
    FAMILIES,
    batches,
    centred_cosines,
    cosine,
    export_fp32,
    export_int8,
    load,
    torch_out,
)


def _one_line(exc: BaseException) -> str:
    """The error in one line: for an unsupported-op or int8 refusal, the ops it names (and why, for int8)."""
    text = str(exc)
    unsupported = re.findall(r"operator (.+?) is not supported", text)
    if unsupported:
        return "unsupported: " + ", ".join(dict.fromkeys(unsupported))
    refused = re.findall(r"int8 ([a-z_]+[.:]\S+)(?: \((\d+) uses\))? .*? runs in fp32: ([^\n]*)", text)
    if refused:
        return "refused: " + "; ".join(f"{op} x{n or 1} ({why})" for op, n, why in refused)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return f"{type(exc).__name__}: {first}"


def _fp32(model, inputs: tuple, row: Dict[str, str]) -> None:
    try:
        artifact = export_fp32(model, inputs)
    except Exception as exc:
        row["fp32 export"] = _one_line(exc)
        return
    row["fp32 export"] = "ok"
    try:
        want = torch_out(model, inputs)
        got = artifact.run(*inputs)[0]
        row["fp32 host err"] = f"{np.abs(got - want).max() / max(np.abs(want).max(), 1e-12):.1e}"
    except Exception as exc:
        row["fp32 host err"] = _one_line(exc)


def _fallback_ops(model, inputs: tuple) -> str:
    try:
        artifact = export_int8(model, inputs, fallback=True)
    except Exception as exc:
        return f"(with fallback: {_one_line(exc)})"
    ops: Dict[str, int] = {}
    for fb in artifact.report["int8"]["fallbacks"]:
        ops[fb["op"]] = ops.get(fb["op"], 0) + 1
    return "with fallback, fp32: " + ", ".join(f"{op} x{n}" for op, n in sorted(ops.items()))


def _int8(model, inputs: tuple, row: Dict[str, str]) -> None:
    from mcu_export.int8.interpreter import run_reference

    try:
        artifact = export_int8(model, inputs, fallback=False)
    except Exception as exc:
        row["int8 (fallback=False)"] = _one_line(exc)
        row["fallbacks"] = _fallback_ops(model, inputs)
        return
    row["int8 (fallback=False)"] = "ok"
    try:
        got, want, same = [], [], True
        for x in batches(inputs, COSINE_INPUTS, 7):
            host = artifact.run(*x)
            got.append(host[0])
            want.append(torch_out(model, x))
            reference = run_reference(artifact.program, list(x))
            same &= all(_bits_equal(h, r) for h, r in zip(host, reference))
        cosines = [cosine(g, w) for g, w in zip(got, want)]
        row["int8 cosine"] = f"{min(cosines):.4f}"
        row["centred cos"] = f"{np.mean(centred_cosines(got, want)):.4f}"
        row["host==ref"] = "yes" if same else "NO"
    except Exception as exc:
        row["int8 cosine"] = _one_line(exc)


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8))


def status(names: List[str]) -> List[Dict[str, str]]:
    rows = []
    for name in names:
        row = {"family": name}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model, inputs = load(name)
            except Exception as exc:
                row["fp32 export"] = _one_line(exc)
            else:
                _fp32(model, inputs, row)
                _int8(model, inputs, row)
        rows.append(row)
        print(_format([row], header=not rows[:-1]), flush=True)
    return rows


COLUMNS = ["family", "fp32 export", "fp32 host err", "int8 (fallback=False)", "int8 cosine", "centred cos", "host==ref"]
WIDTHS = [18, 11, 13, 0, 11, 11, 9]  # 0: the rest of the line (int8 status, then the fallbacks under it)


def _format(rows: List[Dict[str, str]], header: bool) -> str:
    lines = []
    order = [0, 1, 2, 4, 5, 6, 3]  # the long int8 column last
    if header:
        lines.append("  ".join(COLUMNS[i].ljust(WIDTHS[i]) for i in order).rstrip())
    for row in rows:
        cells = []
        for i in order:
            text = row.get(COLUMNS[i], "-")
            short = text if WIDTHS[i] == 0 or len(text) <= WIDTHS[i] else "see below"
            if i != 3 and len(text) > WIDTHS[i] and text == row.get(COLUMNS[3]):
                short = "FAIL*"
            cells.append(short.ljust(WIDTHS[i]))
        lines.append("  ".join(cells).rstrip())
        for i in (1, 2, 4):
            text = row.get(COLUMNS[i], "-")
            if len(text) > WIDTHS[i] and text != row.get(COLUMNS[3]):
                lines.append(f"    {COLUMNS[i]}: {text}")
        if "fallbacks" in row and row["fallbacks"] != f"(with fallback: {row.get(COLUMNS[3])})":
            lines.append(f"    {row['fallbacks']}")
    return "\n".join(lines)


if __name__ == "__main__":
    wanted = sys.argv[1:] or sorted(FAMILIES)
    unknown = [n for n in wanted if n not in FAMILIES]
    if unknown:
        sys.exit(f"family_status: unknown family {', '.join(unknown)} (known: {', '.join(sorted(FAMILIES))})")
    status(wanted)
