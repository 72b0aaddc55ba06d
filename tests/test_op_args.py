"""The op table is the C calling convention: the committed argument positions (runtime_c/include/mx/op_args.h)
are what the table renders, every schema type has a loader kind, and the C dtype codes and element sizes are
the .pte schema's (mcu_export/pte/schema/scalar_type.fbs)."""

import re

import numpy as np

from cli_runner import ROOT
from mcu_export.host_runtime import render_kernel_table
from mcu_export.ops.c_args import HEADER_PATH, arg_kinds, build_ranges, c_stem, first_out, render_args_headers
from mcu_export.ops.table import ALL_OPS, ARG_RANGES, BY_QUALIFIED

VALUE_H = ROOT / "runtime_c" / "include" / "mx" / "value.h"
KERNEL_H = ROOT / "runtime_c" / "include" / "mx" / "kernel.h"
DTYPE_C = ROOT / "runtime_c" / "src" / "dtype.c"
SCALAR_TYPE_FBS = ROOT / "mcu_export" / "pte" / "schema" / "scalar_type.fbs"


def test_committed_headers_are_the_tables_rendering():
    rendered = render_args_headers()
    assert HEADER_PATH in rendered and len(rendered) > 2
    for path, text in rendered.items():
        assert (ROOT / path).read_text() == text, (
            f"{path} has drifted from the op table: run `python -m mcu_export.ops.c_args`"
        )


def test_header_names_every_argument_at_its_table_position():
    text = "".join((ROOT / path).read_text() for path in render_args_headers())
    values = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s*(MX_(?:ARG|NARGS)_\w+) = (\d+),", text, re.M)}
    for op in ALL_OPS:
        for name in op.arg_names():
            assert values[f"MX_ARG_{c_stem(op)}_{name}"] == op.arg_index(name)
        assert values[f"MX_NARGS_{c_stem(op)}"] == len(op.arg_names())


def test_kinds_follow_the_schema():
    kinds = set(re.findall(r"\b(MX_KIND_\w+)\b", KERNEL_H.read_text()))
    for op in ALL_OPS:
        k = arg_kinds(op)
        assert len(k) == len(op.arg_names()) and {x.split(" | ")[0] for x in k} <= kinds, op.qualified
        assert k[-1] == ("MX_KIND_RET" if len(op.schema().returns) == 1 else "MX_KIND_RET_LIST")
    linear = BY_QUALIFIED["cortex_m::quantized_linear.out"]
    assert arg_kinds(linear)[linear.arg_index("kernel_sum")] == "MX_KIND_OPT_TENSOR"
    bn = BY_QUALIFIED["aten::_native_batch_norm_legit_no_training.out"]
    assert first_out(bn) == bn.arg_index("out0")


def test_a_build_carries_the_value_ranges_of_its_ops():
    linear, relu = BY_QUALIFIED["cortex_m::quantized_linear.out"], BY_QUALIFIED["aten::relu.out"]
    ranges = build_ranges([relu, linear])
    assert ranges == ["offset", "int8", "int32", "shift"] and build_ranges([relu]) == []
    shifts = arg_kinds(linear, ranges)[linear.arg_index("requantize_shifts")]
    assert shifts == f"MX_KIND_INT_LIST | {ranges.index('shift') + 1} << 4"
    table = render_kernel_table([relu, linear])
    assert "{-31, 31},  /* shift */" in table and "mx_kernel_arg_bounds[4 + 1]" in table
    assert "mx_kernel_arg_bounds[0 + 1]" in render_kernel_table([relu])
    for op in ALL_OPS:
        for name, cls in op.ranges:
            assert cls in ARG_RANGES and str(op.schema().arguments[op.arg_index(name)].type) in ("int", "List[int]")


def test_no_kernel_indexes_its_arguments_by_number():
    """Kernels read args[...] only through the generated names (mx_arg_* readers take an MX_ARG_* index)."""
    for path in sorted((ROOT / "runtime_c" / "kernels").rglob("*.c")):
        text = path.read_text()
        assert not re.search(r"args\[\s*\d", text), path
        assert not re.search(r"mx_arg_\w+\(args,\s*\d", text), path


def _fbs_scalar_types():
    body = re.search(r"enum ScalarType\s*:\s*\w+\s*{(.*?)}", SCALAR_TYPE_FBS.read_text(), re.S).group(1)
    return {name: int(code) for name, code in re.findall(r"(\w+)\s*=\s*(\d+)", body)}


# C enum suffix -> (scalar_type.fbs name, numpy dtype)
C_DTYPES = {
    "U8": ("BYTE", np.uint8),
    "I8": ("CHAR", np.int8),
    "I16": ("SHORT", np.int16),
    "I32": ("INT", np.int32),
    "I64": ("LONG", np.int64),
    "F16": ("HALF", np.float16),
    "F32": ("FLOAT", np.float32),
    "F64": ("DOUBLE", np.float64),
    "BOOL": ("BOOL", np.bool_),
}


def test_c_dtype_codes_are_the_schemas():
    body = re.search(r"typedef enum mx_dtype {(.*?)} mx_dtype;", VALUE_H.read_text(), re.S).group(1)
    c = {name: int(code) for name, code in re.findall(r"MX_DTYPE_(\w+) = (\d+)", body)}
    fbs = _fbs_scalar_types()
    assert set(c) == set(C_DTYPES)
    for suffix, code in c.items():
        assert fbs[C_DTYPES[suffix][0]] == code, suffix


def test_one_element_size_table_and_it_is_numpys():
    sources = list((ROOT / "runtime_c").rglob("*.[ch]")) + list((ROOT / "codegen").rglob("*.j2"))
    definitions = [p for p in sources if re.search(r"^\w[\w\s\*]*\bmx_dtype_size\s*\([^;]*\)\s*{", p.read_text(), re.M)]
    assert definitions == [DTYPE_C]
    # no other switch over dtype codes that answers with byte counts
    for p in sources:
        if p != DTYPE_C:
            assert not re.search(r"case MX_DTYPE_\w+:[^\n]*return [1248];", p.read_text()), p
    sizes = {}
    for cases, n in re.findall(r"((?:case MX_DTYPE_\w+:\s*)+)return (\d+);", DTYPE_C.read_text()):
        for suffix in re.findall(r"MX_DTYPE_(\w+)", cases):
            sizes[suffix] = int(n)
    assert sizes == {s: np.dtype(npd).itemsize for s, (_, npd) in C_DTYPES.items()}
