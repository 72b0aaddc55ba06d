"""Runtime error codes: one list (errors.def), distinct texts, documented ranges, a fixed unknown text."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from mcu_export.assets import asset_dir

RUNTIME = asset_dir("runtime_c")
ERRORS_DEF = RUNTIME / "include" / "mx" / "errors.def"
# errors.def's header: 0x00 ok · 0x01xx program format · 0x02xx loading/memory · 0x03xx execution/kernels ·
# 0x04xx platform I/O
RANGES = {0x01: "program format", 0x02: "loading/memory", 0x03: "execution/kernels", 0x04: "platform I/O"}

PROBE_C = r"""
#include <stdio.h>
#include "mx/errors.h"
int main(void) {
#define X(name, code, text) printf("%d\t%s\t%s\n", (int)(code), #name, mx_error_to_string(name));
#include "mx/errors.def"
#undef X
  printf("unknown\t%s\n", mx_error_to_string((mx_error)0x7777));
  printf("unknown\t%s\n", mx_error_to_string((mx_error)-1));
  printf("unknown\t%s\n", mx_error_to_string((mx_error)0x0100));
  return 0;
}
"""


def _def_entries():
    pattern = re.compile(r'^X\((\w+),\s*(0x[0-9A-Fa-f]+),\s*"([^"]*)"\)\s*$')
    entries = []
    for line in ERRORS_DEF.read_text().splitlines():
        m = pattern.match(line)
        if m:
            entries.append((m.group(1), int(m.group(2), 16), m.group(3)))
        else:
            assert not line.startswith("X("), f"unparsable errors.def line: {line}"
    return entries


@pytest.fixture(scope="module")
def probe_output(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no host C compiler (cc/gcc) on PATH")
    d = tmp_path_factory.mktemp("errors")
    (d / "probe.c").write_text(PROBE_C)
    exe = d / "probe"
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-I",
            str(RUNTIME / "include"),
            str(d / "probe.c"),
            str(RUNTIME / "src" / "error.c"),
            "-o",
            str(exe),
        ],
        check=True,
    )
    return subprocess.run([str(exe)], check=True, stdout=subprocess.PIPE, text=True).stdout.splitlines()


def test_codes_are_distinct_and_in_their_ranges():
    entries = _def_entries()
    assert entries[0] == ("MX_OK", 0, "ok")
    names = [n for n, _, _ in entries]
    codes = [c for _, c, _ in entries]
    assert len(set(names)) == len(names)
    assert len(set(codes)) == len(codes)
    for name, code, _ in entries[1:]:
        assert name.startswith("MX_ERR_"), name
        assert code >> 8 in RANGES, f"{name} = {code:#06x} lies outside the documented ranges"
        assert code & 0xFF != 0, f"{name}: the low byte 0 of a range is not a code"
    # each range is used, and codes within a range are listed in ascending order
    assert {c >> 8 for c in codes[1:]} == set(RANGES)
    assert codes == sorted(codes)


def test_every_code_has_a_distinct_text(probe_output):
    rows = [line.split("\t") for line in probe_output if not line.startswith("unknown")]
    entries = _def_entries()
    assert [(name, int(code)) for code, name, _ in rows] == [(n, c) for n, c, _ in entries]
    texts = [text for _, _, text in rows]
    assert all(t.strip() for t in texts)
    assert len(set(texts)) == len(texts)
    assert texts == [t for _, _, t in entries]


def test_unknown_codes_map_to_one_fixed_text(probe_output):
    unknown = {line.split("\t")[1] for line in probe_output if line.startswith("unknown")}
    known = {line.split("\t")[2] for line in probe_output if not line.startswith("unknown")}
    assert unknown == {"unknown runtime error"}
    assert not unknown & known


@pytest.mark.slow
def test_mx_run_lists_the_same_errors(probe_output):
    from mcu_export.host_runtime import build_host_runner

    runner = build_host_runner(ops=[])
    listed = subprocess.run(
        [str(runner), "--list-errors"], check=True, stdout=subprocess.PIPE, text=True
    ).stdout.splitlines()
    expected = [
        f"0x{int(code):04x} {name} {text}"
        for code, name, text in (line.split("\t") for line in probe_output if not line.startswith("unknown"))
    ]
    assert listed == expected
