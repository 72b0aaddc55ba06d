"""The QEMU instruction-count plugin: builds with the host compiler, counts exactly, separates regions."""

import pytest

from mcu_export.firmware.build import build_project, render_project
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.icount import build_plugin, parse_icount, plugin_args
from mcu_export.firmware.qemu import run_qemu
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

needs_tools = NEEDS_ARM_QEMU

N = 1000
# spin() runs exactly two instructions per iteration (subs, bne); region k spins k*N times,
# region 0 wraps the three, region 9 is entered three times.
APP = r"""
#include <stdint.h>
#include "mx_platform.h"

__attribute__((noinline)) static void spin(uint32_t n)
{
    __asm volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

int main(void)
{
    mx_icount_begin(0);
    for (uint32_t k = 1; k <= 3; k++) {
        mx_icount_begin(k);
        spin(N * k);
        mx_icount_end(k);
    }
    mx_icount_end(0);
    for (int i = 0; i < 3; i++) {
        mx_icount_begin(9);
        spin(N);
        mx_icount_end(9);
    }
    return 0;
}
"""


def test_plugin_builds_and_is_cached(tmp_path):
    first = build_plugin(tmp_path)
    assert first.read_bytes()[:4] == b"\x7fELF"
    assert build_plugin(tmp_path) == first


def test_parse_icount():
    text = "noise\nmx-icount total 1234\nmx-icount region 3 2 400\nmx-icount region 0 1 900\n"
    report = parse_icount(text)
    assert report.total == 1234
    assert report.regions[3].entries == 2 and report.regions[3].instructions == 400
    assert sorted(report.regions) == [0, 3]


@needs_tools
@pytest.mark.parametrize("board", ["mps2-an505", "corstone-300"])
def test_counts_are_exact_and_regions_separate(board, tmp_path):
    elf = build_project(render_project(board, tmp_path / "p", {"app/main.c": APP}, defines={"N": f"{N}u"})).elf
    args = plugin_args(elf)
    hit = Elf(elf).symbols()["mx_icount_hit"]
    assert int(args["lo"], 16) == hit.address and int(args["hi"], 16) == hit.address + hit.size

    result = run_qemu(board, elf, plugin=True, timeout=10)
    assert result.exit_code == 0
    counts = result.instructions
    r1, r2, r3 = (counts.regions[k].instructions for k in (1, 2, 3))
    # Linear in N with exactly two instructions per iteration; the constant is the marker overhead.
    assert r2 - r1 == 2 * N and r3 - r2 == 2 * N
    overhead = r1 - 2 * N
    assert 0 < overhead < 20
    assert counts.regions[9].entries == 3 and counts.regions[9].instructions == 3 * r1
    assert counts.regions[0].entries == 1 and r1 + r2 + r3 < counts.regions[0].instructions < r1 + r2 + r3 + 100
    assert counts.total > counts.regions[0].instructions + counts.regions[9].instructions

    again = run_qemu(board, elf, plugin=True, timeout=10)
    assert again.instructions == counts  # deterministic


def test_the_load_region_tag_is_the_firmware_s():
    """LOAD_TAG names the region main.c brackets mx_method_load with: MX_ICOUNT_TAG_LOAD, the last tag."""
    import re

    from mcu_export.assets import asset_dir
    from mcu_export.firmware.icount import LOAD_TAG

    header = (asset_dir("boards") / "include" / "mx_platform.h").read_text()
    tags = int(re.search(r"#define MX_ICOUNT_MAX_TAGS (\d+)u", header).group(1))
    assert "#define MX_ICOUNT_TAG_LOAD (MX_ICOUNT_MAX_TAGS - 1u)" in header
    assert LOAD_TAG == tags - 1
