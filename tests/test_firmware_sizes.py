"""Firmware size accounting: map parsing (GNU ld and lld), the category split against arm-none-eabi-size,
fitting a model to a board before linking, and the runtime core's own flash size."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mcu_export.boards import load_board
from mcu_export.errors import UsageError
from mcu_export.firmware.build import build_project, render_project
from mcu_export.firmware.mapfile import parse_map
from mcu_export.firmware.sizes import (
    CATEGORIES,
    FirmwareTooLarge,
    check_fit,
    estimate_demands,
    object_code_bytes,
    object_sizes,
    size_report,
)
from mcu_export.firmware.stack import load_report as load_stack_report

HAVE_GCC = shutil.which("arm-none-eabi-gcc") is not None and shutil.which("arm-none-eabi-size") is not None
HAVE_CLANG = shutil.which("clang-16") is not None and shutil.which("ld.lld-16") is not None
needs_gcc = pytest.mark.skipif(not HAVE_GCC, reason="needs gcc-arm-none-eabi (arm-none-eabi-gcc, arm-none-eabi-size)")

# A kernel-like file so that every category has something in it; its long function name makes GNU ld wrap.
KERNEL_C = r"""
#include <stdint.h>
const float mx_k_probe_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
float mx_k_probe_kernel_with_a_rather_long_function_name_for_wrapping(uint32_t i)
{
    return mx_k_probe_table[i & 7u] * 2.0f;
}
"""
BOARDS = [
    pytest.param("corstone-300", marks=needs_gcc),
    pytest.param("mps2-an505", marks=needs_gcc),
    pytest.param(
        "corstone-320",
        marks=pytest.mark.skipif(
            not (HAVE_GCC and HAVE_CLANG),
            reason="corstone-320 needs clang-16 and lld-16 (apt-get install clang-16 lld-16)",
        ),
    ),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from mcu_export.bench_firmware import probe_sources

    cache = {}

    def get(board):
        if board not in cache:
            sources = dict(probe_sources(board))
            sources["runtime/kernels/portable/mx_k_probe.c"] = KERNEL_C
            # Nothing calls the kernel: a strong op-begin hook (linked through method_exec) refers to it.
            sources["model/keep.c"] = (
                "#include <stdint.h>\n"
                "float mx_k_probe_kernel_with_a_rather_long_function_name_for_wrapping(uint32_t);\n"
                "volatile float mx_keep;\n"
                "void mx_platform_op_begin(uint32_t i) {\n"
                "  mx_keep = mx_k_probe_kernel_with_a_rather_long_function_name_for_wrapping(i);\n}\n"
            )
            project = render_project(board, tmp_path_factory.mktemp(board), sources, include_dirs=["runtime/include"])
            cache[board] = build_project(project)
        return cache[board]

    return get


def berkeley(path):
    out = subprocess.run(["arm-none-eabi-size", "-B", "-d", str(path)], capture_output=True, text=True, check=True)
    text, data, bss = (int(v) for v in out.stdout.splitlines()[1].split()[:3])
    return text, data, bss


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("use_elf", [False, True], ids=["names", "elf-flags"])
@pytest.mark.slow
def test_categories_sum_to_what_size_reports(board, use_elf, built):
    result = built(board)
    info = parse_map(result.map)
    assert info.format == ("lld" if load_board(board).compiler.kind == "clang" else "gnu")
    report = size_report(info, board, elf=result.elf if use_elf else None)
    text, data, bss = berkeley(result.elf)
    flash, ram = report["flash"], report["ram"]
    assert flash["total"] == text + data == report["flash_bytes"]
    assert ram["total"] == data + bss == report["ram_bytes"]
    assert sum(flash["categories"].values()) == flash["total"]
    assert sum(ram["categories"].values()) == ram["total"]
    assert flash["text"] + flash["rodata"] + flash["data"] == flash["total"]
    assert ram["data"] + ram["bss"] + ram["arenas"] + ram["stack"] == ram["total"]
    assert set(flash["categories"]) == set(CATEGORIES)

    b = load_board(board)
    # the stack is the call-graph analysis' reservation (stack.json beside the ELF), the board's limit for clang
    analysis = load_stack_report(result.elf)
    reserved = analysis["reserved"] if b.compiler.kind == "gcc" else b.stack_size
    assert ram["categories"]["stack"] == ram["stack"] == reserved <= b.stack_size
    assert sum(ram["parts"].values()) == ram["total"]
    assert ram["parts"]["arena"] == ram["arenas"] and ram["parts"]["stack"] == ram["stack"]
    assert ram["categories"]["arenas"] == ram["arenas"] == 64
    pte_size = Path(result.elf).parent.parent / "model" / "model_pte.c"
    pte_bytes = int(re.search(r"mx_probe_pte_size = (\d+)u", pte_size.read_text()).group(1))
    assert flash["categories"]["model_data"] >= pte_bytes
    assert ram["categories"]["model_data"] >= 1024  # the metadata pool of model/main.c
    assert flash["categories"]["kernels"] >= 32 + 8  # the table and the function
    assert flash["categories"]["runtime"] > 2000
    assert flash["categories"]["startup_libc"] > 64  # the vector table and reset at least
    assert not report["outside_regions"]
    # Every allocated byte is in one region, data's in two (where it runs and where its values load from).
    used = {r["name"]: r["used"] for r in report["regions"]}
    assert sum(used.values()) == flash["total"] + ram["total"]
    for r in report["regions"]:
        assert r["free"] == r["length"] - r["used"] and r["percent"] == round(100 * r["used"] / r["length"], 2)
    assert used[b.sections.stack] >= reserved
    assert report["stack_used_bytes"] is None


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.slow
def test_runtime_category_matches_the_runtime_symbols(board, built):
    """The runtime objects' functions and data (from the ELF's symbol sizes) all fall in `runtime`."""
    from mcu_export.firmware.elf import Elf

    result = built(board)
    info = parse_map(result.map)
    runtime_pieces = [
        (o, i) for o, i in info.inputs() if "runtime/src/" in i.object and o.name in (".text", ".rodata", ".data")
    ]
    elf_syms = Elf(result.elf).symbols()
    for name in ("mx_program_init", "mx_method_load", "mx_method_execute"):
        sym = elf_syms[name]
        assert any(i.address <= sym.address < i.address + i.size for _, i in runtime_pieces), name
    report = size_report(info, board)
    # bytes covered, not sizes summed: a merged-string piece (.rodata.*.str1.1) is listed with its size
    # before merging, at the address of the piece that follows it
    covered = set()
    for _, i in runtime_pieces:
        covered.update(range(i.address, i.address + i.size))
    assert report["flash"]["categories"]["runtime"] >= len(covered)


GNU_SNIPPET = """\
Archive member included to satisfy reference by file (symbol)

/usr/lib/arm-none-eabi/lib/libc_nano.a(lib_a-memset.o)
                              CMakeFiles/firmware.elf.dir/runtime/program.c.obj (memset)
/usr/lib/gcc/libgcc.a(_dvmd_tls.o)  /usr/lib/gcc/libgcc.a(_aeabi_uldivmod.o) (__aeabi_ldiv0)

Discarded input sections

 .text          0x00000000        0x0 CMakeFiles/firmware.elf.dir/board/cortex_m/startup.c.obj
 .text.mx_platform_stack_used
                0x00000000       0x20 CMakeFiles/firmware.elf.dir/board/cortex_m/startup.c.obj

Memory Configuration

Name             Origin             Length             Attributes
code             0x00000000         0x00400000         xr
ram              0x20000000         0x00400000         xrw
*default*        0x00000000         0xffffffff

Linker script and memory map

LOAD CMakeFiles/firmware.elf.dir/runtime/program.c.obj
START GROUP
LOAD /usr/lib/arm-none-eabi/lib/libc_nano.a
END GROUP

.vectors        0x00000000       0x40
 *(.mx_vectors)
 .mx_vectors    0x00000000       0x40 CMakeFiles/firmware.elf.dir/board/cortex_m/startup.c.obj

.text           0x00000040       0x9c
 *(.text .text.*)
 .text.mx_a_function_with_a_long_name
                0x00000040       0x2a CMakeFiles/firmware.elf.dir/runtime/program.c.obj
                0x00000040                mx_a_function_with_a_long_name
 *fill*         0x0000006a        0x2 
 .text          0x0000006c       0x40 /usr/lib/arm-none-eabi/lib/libc_nano.a(lib_a-memset.o)
                0x0000006c                memset
 .text.k        0x000000ac       0x30 CMakeFiles/firmware.elf.dir/kernels/mx_k_aten_add_out.c.obj

.ARM.exidx
 *(.ARM.exidx* .gnu.linkonce.armexidx.*)

.rodata         0x000000dc       0x24
 .rodata.mx_fault_report.str1.1
                0x000000dc       0x14 CMakeFiles/firmware.elf.dir/board/cortex_m/fault.c.obj
                                 0x16 (size before relaxing)
 .rodata.mx_model
                0x000000f0       0x10 CMakeFiles/firmware.elf.dir/app/blob.S.obj

.data           0x20000000        0x8 load address 0x00000100
                0x20000000                        __mx_data_start = .
 .data.x        0x20000000        0x8 CMakeFiles/firmware.elf.dir/model/model.c.obj

.bss            0x20000008       0x18 load address 0x00000108
 .bss.pool      0x20000008        0x8 CMakeFiles/firmware.elf.dir/model/model.c.obj
 COMMON         0x20000010       0x10 CMakeFiles/firmware.elf.dir/app/main.c.obj
                0x20000010                common_thing

.mx_arena.ram_with_a_long_name
                0x20000020      0x100 load address 0x00000108
 .mx_arena.ram_with_a_long_name
                0x20000020      0x100 CMakeFiles/firmware.elf.dir/model/arenas.c.obj

.stack          0x20000120      0x400
                0x20000120                        __mx_stack_bottom = .
                0x20000520                        . = (. + 0x400)
 *fill*         0x20000120      0x400 
OUTPUT(firmware.elf elf32-littlearm)
LOAD linker stubs

.debug_info     0x00000000      0x100
 .debug_info    0x00000000      0x100 CMakeFiles/firmware.elf.dir/runtime/program.c.obj

Cross Reference Table

Symbol                                            File
memset                                            /usr/lib/arm-none-eabi/lib/libc_nano.a(lib_a-memset.o)
"""


def test_gnu_map_wrapped_lines_fill_common_archive_members_discarded():
    info = parse_map(GNU_SNIPPET)
    assert info.format == "gnu"
    assert [(r.name, r.origin, r.length) for r in info.memory] == [("code", 0, 0x400000), ("ram", 0x20000000, 0x400000)]
    assert [(d.name, d.size) for d in info.discarded] == [(".text", 0), (".text.mx_platform_stack_used", 0x20)]
    text = info.output(".text")
    assert (text.address, text.size) == (0x40, 0x9C)
    wrapped, fill, memset, kernel = text.inputs
    assert (wrapped.name, wrapped.address, wrapped.size) == (".text.mx_a_function_with_a_long_name", 0x40, 0x2A)
    assert wrapped.object.endswith("runtime/program.c.obj")
    assert fill.is_fill and (fill.address, fill.size, fill.object, fill.synthetic) == (0x6A, 2, "", False)
    assert memset.archive == "/usr/lib/arm-none-eabi/lib/libc_nano.a" and memset.member == "lib_a-memset.o"
    assert kernel.size == 0x30
    assert (info.output(".ARM.exidx").size, info.output(".ARM.exidx").inputs) == (0, [])
    assert [i.size for i in info.output(".rodata").inputs] == [0x14, 0x10]  # size after relaxing
    data = info.output(".data")
    assert (data.address, data.load_address) == (0x20000000, 0x100)
    assert [i.name for i in info.output(".bss").inputs] == [".bss.pool", "COMMON"]
    arena = info.output(".mx_arena.ram_with_a_long_name")
    assert (arena.address, arena.size, arena.load_address) == (0x20000020, 0x100, 0x108)
    assert arena.inputs[0].object.endswith("model/arenas.c.obj")
    assert info.output(".stack").inputs[0].is_fill
    assert [o.name for o in info.outputs][-1] == ".debug_info"  # nothing read from --cref's table

    report = size_report(info, "mps2-an386")  # code 0x0, ram 0x20000000: the same layout
    assert report["pulled_in"] == [
        {"member": "libc_nano.a(lib_a-memset.o)", "by": "runtime/program.c.obj", "symbol": "memset"},
        {"member": "libgcc.a(_dvmd_tls.o)", "by": "libgcc.a(_aeabi_uldivmod.o)", "symbol": "__aeabi_ldiv0"},
    ]
    flash, ram = report["flash"], report["ram"]
    assert flash["total"] == 0x40 + 0x9C + 0x24 + 0x8
    assert (flash["text"], flash["rodata"], flash["data"]) == (0x9C, 0x40 + 0x24, 0x8)
    # The padding before memset is memset's (it is there to align memset).
    assert flash["categories"] == {
        "runtime": 0x2A,
        "kernels": 0x30,
        "model_data": 0x10 + 0x8,
        "arenas": 0,
        "startup_libc": 0x40 + 2 + 0x40 + 0x14,
        "stack": 0,
        "other": 0,
    }
    assert ram["total"] == 0x8 + 0x18 + 0x100 + 0x400
    assert (ram["data"], ram["bss"], ram["arenas"], ram["stack"]) == (0x8, 0x18, 0x100, 0x400)
    assert ram["categories"] == {
        "runtime": 0,
        "kernels": 0,
        "model_data": 0x8 + 0x8,
        "arenas": 0x100,
        "startup_libc": 0,
        "stack": 0x400,
        "other": 0x10,
    }
    regions = {r["name"]: r for r in report["regions"]}
    assert regions["code"]["used"] == flash["total"] and regions["ram"]["used"] == ram["total"]


LLD_SNIPPET = """\
     VMA      LMA     Size Align Out     In      Symbol
12000000 12000000       60     8 .text
12000000 12000000       22     2         CMakeFiles/firmware.elf.dir/runtime/program.c.obj:(.text.mx_program_init)
12000001 12000001       22     1                 mx_program_init
12000024 12000024       20     4         /usr/lib/arm-none-eabi/newlib/thumb/v8-m.main+dp/hard/libc_nano.a(lib_a-memset.o):(.text)
12000044 12000044       1c     2         CMakeFiles/firmware.elf.dir/runtime/kernels/portable/k.c.obj:(.text.k)
12000060 12000060       10     4 .rodata
12000060 12000060       10     1         <internal>:(.rodata)
31000000 12000070        8     8 .data
31000000 12000070        0     1         __mx_data_start = .
31000000 12000070        8     4         CMakeFiles/firmware.elf.dir/model/model.c.obj:(.data.x)
31000008 12000078        0     1 __mx_data_load = LOADADDR ( .data )
30000000 30000000     4000     8 .stack
30000000 30000000        0     1         __mx_stack_bottom = .
30000000 30000000     4000     1         . += 0x4000
       0        0       54     1 .comment
       0        0       54     1         <internal>:(.comment)
"""


def test_lld_map_columns_gaps_and_internal_sections():
    info = parse_map(LLD_SNIPPET)
    assert info.format == "lld"
    text = info.output(".text")
    names = [(i.name, i.address, i.size, i.synthetic) for i in text.inputs]
    assert names == [
        (".text.mx_program_init", 0x12000000, 0x22, False),
        ("*fill*", 0x12000022, 2, True),
        (".text", 0x12000024, 0x20, False),
        (".text.k", 0x12000044, 0x1C, False),
    ]
    assert text.inputs[2].member == "lib_a-memset.o"
    data = info.output(".data")
    assert (data.address, data.load_address, data.size) == (0x31000000, 0x12000070, 8)
    assert [i.size for i in info.output(".stack").inputs] == [0x4000]  # the `. +=` is covered as fill
    report = size_report(info, "corstone-320")
    cats = report["flash"]["categories"]
    assert (cats["runtime"], cats["startup_libc"], cats["kernels"], cats["other"], cats["model_data"]) == (
        0x22,
        0x20 + 2,
        0x1C,
        0x10,
        8,
    )
    assert report["ram"]["categories"]["stack"] == 0x4000
    assert {r["name"]: r["used"] for r in report["regions"]} == {
        "brom": 0,
        "bram": 0x60 + 0x10 + 8,
        "dtcm": 0x4000,
        "sram": 8,
        "ddr": 0,
    }


def test_check_fit_message_and_arithmetic():
    check_fit("corstone-300", {"dtcm": 524288, "itcm": 10})  # exactly full fits
    with pytest.raises(FirmwareTooLarge) as err:
        check_fit("corstone-300", {"dtcm": 612345, "itcm": 10}, {"dtcm": "arena 579577 + stack 32768"})
    assert str(err.value) == (
        "model does not fit board 'corstone-300': region dtcm needs 612345 bytes "
        "(arena 579577 + stack 32768), has 524288: 88057 bytes over"
    )
    assert isinstance(err.value, UsageError) and "\n" not in str(err.value)
    assert err.value.overs == [("dtcm", 612345, 524288)]
    with pytest.raises(
        FirmwareTooLarge,
        match=r"^model does not fit board 'mps2-an505': region code needs 4194305 "
        r"bytes, has 4194304: 1 bytes over; region ram needs 4194404 bytes, "
        r"has 4194304: 100 bytes over$",
    ):
        check_fit("mps2-an505", {"code": 4194305, "ram": 4194404})
    with pytest.raises(UsageError, match="board 'mps2-an505' has no memory region 'dtcm' \\(regions: code, ram\\)"):
        check_fit("mps2-an505", {"dtcm": 1})


def test_estimate_demands_follows_each_boards_placement():
    d = estimate_demands(
        "corstone-300",
        pte_bytes=100_000,
        arena_bytes_per_region={"dtcm": 600_000, "ddr": 5},
        code_bytes_estimate=20_000,
    )
    assert dict(d) == {"bram": 100_000, "itcm": 20_000, "dtcm": 600_000 + 0x8000, "ddr": 5}
    with pytest.raises(FirmwareTooLarge) as err:
        check_fit("corstone-300", d)
    assert str(err.value) == (
        "model does not fit board 'corstone-300': region dtcm needs 632768 bytes "
        "(arena 600000 + stack 32768), has 524288: 108480 bytes over"
    )

    d = estimate_demands("mps2-an505", 1000, {"ram": 2000}, {"text": 300, "rodata": 40, "data": 8, "bss": 16})
    assert dict(d) == {"code": 1000 + 300 + 40 + 8, "ram": 2000 + 8 + 16 + 0x4000}
    assert d.parts["code"] == {"pte": 1000, "code": 300, "rodata": 40, "data": 8}
    check_fit("mps2-an505", d)

    # A model goes to the first of the board's model regions where it fits beside the code (bram, else ddr).
    d = estimate_demands("corstone-320", 1 << 20, {"sram": 1 << 20}, 4096)
    assert dict(d) == {"bram": (1 << 20) + 4096, "sram": 1 << 20, "dtcm": 0x4000}
    d = estimate_demands("corstone-320", 2 << 20, {"sram": 1 << 20}, 4096)
    assert dict(d) == {"bram": 4096, "ddr": 2 << 20, "sram": 1 << 20, "dtcm": 0x4000}
    assert estimate_demands("corstone-320", 10, {}, pte_region="ddr")["ddr"] == 10  # the generator's choice
    d = estimate_demands("corstone-320", 300 << 20, {"sram": 1 << 20})
    with pytest.raises(
        FirmwareTooLarge,
        match=r"region bram needs 314572800 bytes \(pte 314572800\), has 2097152: "
        r"312475648 bytes over$",
    ):
        check_fit("corstone-320", d)
    with pytest.raises(
        UsageError, match="board 'corstone-320' has no arena region 'dtcm' \\(arena regions: sram, ddr\\)"
    ):
        estimate_demands("corstone-320", 10, {"dtcm": 10})


@needs_gcc
@pytest.mark.slow
def test_object_code_bytes_agrees_with_size(built, tmp_path):
    objects = sorted(built("corstone-300").build_dir.rglob("*.obj"))  # the tree it was built in (staging.py)
    assert len(objects) > 10
    out = (
        subprocess.run(
            ["arm-none-eabi-size", "-B", "-d", "-t", *map(str, objects)], capture_output=True, text=True, check=True
        )
        .stdout.splitlines()[-1]
        .split()
    )
    text, data, bss = int(out[0]), int(out[1]), int(out[2])
    sizes = object_sizes(objects)
    assert (sizes["text"] + sizes["rodata"], sizes["data"], sizes["bss"]) == (text, data, bss)
    assert object_code_bytes(objects) == text + data
    archive = tmp_path / "libprobe.a"  # members with long names: a `//` table
    subprocess.run(["arm-none-eabi-ar", "rcs", str(archive), *map(str, objects)], check=True)
    assert object_sizes([archive]) == sizes
    with pytest.raises(UsageError, match="neither an ELF object nor an archive"):
        (tmp_path / "x.txt").write_text("hi")
        object_sizes([tmp_path / "x.txt"])


@needs_gcc
@pytest.mark.slow
def test_runtime_core_flash_without_kernels(tmp_path):
    from mcu_export.bench_firmware import runtime_core_flash
    from mcu_export.firmware.qemu import run_qemu

    r = runtime_core_flash("corstone-300", work_dir=tmp_path / "probe")
    print(
        f"\nruntime core flash on corstone-300 (Cortex-M55): {r['runtime_flash_bytes']} B; "
        f"startup+libc {r['startup_libc_flash_bytes']} B; whole firmware {r['flash_bytes']} B"
    )
    assert 0 < r["runtime_flash_bytes"] < 16 * 1024  # aim: < 6 KiB (bench_firmware.AIM_BYTES)
    assert r["categories"]["kernels"] == 0 and r["runtime_ram_bytes"] == 0
    assert 0 < r["startup_libc_flash_bytes"] < r["runtime_flash_bytes"]
    if shutil.which("qemu-system-arm"):  # the probe really loads and runs its method
        result = run_qemu("corstone-300", tmp_path / "probe" / "artifacts" / "firmware.elf", timeout=10)
        assert result.exit_code == 0
