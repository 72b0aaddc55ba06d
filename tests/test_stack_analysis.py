"""The stack sized by call-graph analysis (mcu_export/firmware/stack.py): a hand-written image whose deepest path
is known, recursion and dynamic frames refused, indirect calls resolved by prototype; in firmware, the
reservation is the analysis plus its margin, RAM's parts sum to its total, and a run above the analysis fails.

The examples' fp32 firmware on corstone-300 and mps2-an505 (tests/test_firmware_models.py) and their int8
firmware on all three QEMU boards (tests/test_int8_firmware.py) assert measured <= analysed on every run; here
the fp32 firmware on mps2-an386 completes the set."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mcu_export import api, examples
from mcu_export.boards import load_board
from mcu_export.firmware import callgraph
from mcu_export.firmware.flow import build_for_board
from mcu_export.firmware.stack import (
    STACK_JSON,
    Graph,
    StackAnalysisError,
    StackOverflowMeasured,
    analyse,
    load_report,
)
from mcu_export.model_spec import load_model
from mcu_export.runners import run_model_firmware

HAVE_GCC = shutil.which("arm-none-eabi-gcc") is not None
needs_gcc = pytest.mark.skipif(not HAVE_GCC, reason="needs arm-none-eabi-gcc (apt-get install gcc-arm-none-eabi)")
needs_qemu = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
)

LINKER_SCRIPT = """ENTRY(reset)
SECTIONS {
  .vectors ORIGIN : { KEEP(*(.vectors)) }
  .text : { *(.text .text.*) }
  .rodata : { *(.rodata .rodata.*) }
  .data 0x20000000 : { *(.data .data.*) }
  .bss : { *(.bss .bss.*) }
}
"""

# main -> work -> leaf is the deepest direct path; main also calls through an int(int) table, whose only member
# `through_table` has a larger frame than leaf's chain below it, and `decoy` (void(void), address taken, huge
# frame) that no int(int) call may reach.
GRAPH_C = r"""
typedef int (*op_fn)(int);
typedef void (*other_fn)(void);
int through_table(int x) { volatile char buf[96]; buf[x & 63] = (char)x; return buf[(x + 1) & 63]; }
void decoy(void) { volatile char big[2048]; big[5] = 1; (void)big[7]; }
op_fn table[1] = {through_table};
volatile other_fn keep = decoy;
__attribute__((noinline)) int leaf(int x) { volatile char buf[200]; buf[x & 127] = 1; return buf[3]; }
__attribute__((noinline)) int work(int x) { volatile int a[10]; a[x & 7] = leaf(x); return a[2]; }
__attribute__((noinline)) int main(void) { volatile int v = 3; return work(v) + table[0](v); }
__attribute__((noreturn)) void reset(void) { main(); for (;;) {} }
void fault(void) { for (;;) {} }
__attribute__((section(".vectors"), used)) void (*const vectors[4])(void) = {(void (*)(void))0x20001000, reset, fault, fault};
"""

RECURSIVE_C = r"""
__attribute__((noinline)) int odd(int n);
__attribute__((noinline)) int even(int n) { volatile int k = n; return k == 0 ? 1 : odd(k - 1); }
__attribute__((noinline)) int odd(int n) { volatile int k = n; return k == 0 ? 0 : even(k - 1); }
__attribute__((noreturn)) void reset(void) { even(7); for (;;) {} }
__attribute__((section(".vectors"), used)) void (*const vectors[2])(void) = {(void (*)(void))0x20001000, reset};
"""

VLA_C = r"""
__attribute__((noinline)) int vla(int n) { volatile char buf[n]; buf[0] = 1; return buf[0]; }
__attribute__((noreturn)) void reset(void) { vla(40); for (;;) {} }
__attribute__((section(".vectors"), used)) void (*const vectors[2])(void) = {(void (*)(void))0x20001000, reset};
"""


def _image(tmp_path: Path, source: str, origin: int = 0):
    """Compile `source` for a Cortex-M4 as the firmware is compiled (GCC's .ci beside the object), link it bare
    with its code at `origin` (objdump lays out 8-digit addresses differently: mps2-an505's code is at 0x10000000)."""
    (tmp_path / "g.c").write_text(source)
    (tmp_path / "g.ld").write_text(LINKER_SCRIPT.replace("ORIGIN", hex(origin)))
    flags = ["-mcpu=cortex-m4", "-mthumb", "-Os", "-g", "-ffunction-sections", "-fcallgraph-info=su"]
    subprocess.run(["arm-none-eabi-gcc", *flags, "-c", "g.c", "-o", "g.o"], cwd=tmp_path, check=True)
    subprocess.run(
        ["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-nostdlib", "-T", "g.ld", "g.o", "-o", "g.elf"],
        cwd=tmp_path,
        check=True,
    )
    return tmp_path / "g.elf", [tmp_path / "g.ci"]


def _frames(ci):
    return {n.name: n.frame for n in callgraph.read_ci(ci[0])}


@needs_gcc
@pytest.mark.parametrize("origin", [0, 0x10000000])
def test_worst_path_is_the_sum_of_gcc_frames_along_it(tmp_path, origin):
    elf, ci = _image(tmp_path, GRAPH_C, origin)
    frames = _frames(ci)
    g = Graph(elf, ci)
    by_name = {f.name: f for f in g.funcs.values()}
    assert {g.funcs[a].name for a in g.taken} == {"through_table", "decoy"}
    # the prologue's figure and GCC's agree on these plain functions
    assert all(by_name[n].frame == frames[n] for n in ("main", "work", "leaf", "through_table"))
    depth, path = g.depth(by_name["main"].address)
    direct = frames["main"] + frames["work"] + frames["leaf"]
    via_table = frames["main"] + frames["through_table"]
    assert depth == max(direct, via_table) and depth < frames["decoy"]  # decoy's prototype is not int(int)
    assert [n for n, _ in path][0] == "main" and sum(f for _, f in path) == depth

    report = analyse(elf, ci, limit=4096)
    assert report.thread == frames["reset"] + depth
    assert report.fault == frames["fault"] + 108 and report.interrupt == 0
    assert report.worst == report.thread + report.fault
    assert report.reserved == (report.worst + report.margin + 7) // 8 * 8
    with pytest.raises(StackAnalysisError, match="more than the board's stack_size limit of 64"):
        analyse(elf, ci, limit=64)


@needs_gcc
def test_unknown_prototype_reaches_every_address_taken_function(tmp_path):
    elf, _ = _image(tmp_path, GRAPH_C)
    g = Graph(elf, [])  # no .ci: no call site's prototype is known
    main = next(f for f in g.funcs.values() if f.name == "main")
    assert {g.funcs[a].name for a in main.calls} >= {"work", "through_table", "decoy"}


@needs_gcc
def test_recursion_is_refused_naming_the_cycle(tmp_path):
    elf, ci = _image(tmp_path, RECURSIVE_C)
    with pytest.raises(
        StackAnalysisError, match=r"recursion in the firmware's call graph: (even -> odd -> even|odd -> even -> odd)"
    ):
        analyse(elf, ci, limit=4096)


@needs_gcc
def test_dynamic_frame_is_refused(tmp_path):
    elf, ci = _image(tmp_path, VLA_C)
    with pytest.raises(StackAnalysisError, match="vla has a dynamic stack frame"):
        analyse(elf, ci, limit=4096)


@pytest.fixture(scope="module")
def kws_int8(tmp_path_factory):
    model, inputs = load_model(examples.spec("kws_dscnn"))
    calib = [(inputs[0] * k,) for k in (0.5, 1.0, 1.5)]
    artifact = api.export(
        model, inputs, quantize="int8", calibrate=lambda: iter(calib), board="corstone-300", backend="cortex-m"
    )
    out = artifact.save(tmp_path_factory.mktemp("kws8"))
    return out, inputs[0].numpy()


@needs_qemu
@pytest.mark.slow
def test_kws_int8_reserves_the_analysis_and_ram_adds_up(kws_int8):
    out, x = kws_int8
    build = build_for_board(out, "corstone-300")
    analysis = load_report(build.elf)
    board = load_board("corstone-300")
    text = (build.elf.parent.parent / "stack.ld").read_text()
    assert f"__mx_stack_size = 0x{analysis['reserved']:x};" in text
    assert analysis["worst"] + analysis["margin"] <= analysis["reserved"] < board.stack_size
    run = run_model_firmware(build, "corstone-300", [x])
    assert 0 < run.stack_used <= analysis["worst"]

    entry = json.loads((out / "report.json").read_text())["firmware"]["corstone-300"]
    ram = entry["ram"]
    assert sum(ram["parts"].values()) == ram["total"] == entry["ram_bytes"]
    assert ram["parts"]["stack"] == analysis["reserved"] == entry["stack_reserved_bytes"]
    assert entry["stack_analysed_bytes"] == analysis["worst"]
    assert ram["parts"]["runtime_metadata"] >= run.meta_pool_bytes
    assert entry["ram_over_arena"] == round(ram["total"] / ram["arenas"], 3)

    # A run above what the analysis says fails, naming both figures.
    doctored = dict(analysis, worst=run.stack_used - 8)
    (build.elf.parent / STACK_JSON).write_text(json.dumps(doctored))
    try:
        with pytest.raises(StackOverflowMeasured, match=rf"used {run.stack_used} bytes of stack, more than"):
            run_model_firmware(build, "corstone-300", [x])
    finally:
        (build.elf.parent / STACK_JSON).write_text(json.dumps(analysis))


@needs_qemu
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(examples.EXAMPLES))
def test_fp32_examples_on_mps2_an386_stay_within_the_analysis(name, tmp_path):
    model, inputs = load_model(examples.spec(name))
    out = api.export(model, inputs).save(tmp_path / name)
    build = build_for_board(out, "mps2-an386")
    run = run_model_firmware(build, "mps2-an386", [x.numpy() for x in inputs])
    assert 0 < run.stack_used <= load_report(build.elf)["worst"]
