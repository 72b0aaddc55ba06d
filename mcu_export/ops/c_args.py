"""The op table as the C calling convention: argument indices for the kernels, argument kinds for the loader.

Two renderings, one source (the op schemas of table.py):

- `render_args_headers()` are runtime_c/include/mx/op_args*.h (one per kernel library, the portable
  element-moving kernels apart; op_args.h includes them), constants per op naming each KernelCall argument's
  position (`MX_ARG_<ns>_<name>_<arg>`) and the count (`MX_NARGS_<ns>_<name>`). It is committed rather than
  rendered per build because every C consumer compiles kernels from the source tree as is (the host CMake
  build, the test harnesses' shared libraries, firmware projects, an installed wheel), none of which runs
  Python first; tests/test_op_args.py fails when a committed file drifts from the table.
- `arg_kinds(op)` and `build_ranges(ops)` feed codegen/kernel_table.c.j2: the schema type of each argument as an
  mx_arg_kind, with the value range the op declares for it (ARG_RANGES), which the loader checks every
  KernelCall against. It is rendered with the kernel table, so a build carries the
  kinds of the ops it links and no others.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Sequence, Tuple

from mcu_export.ops.signatures import signature
from mcu_export.ops.table import ALL_OPS, ANY_DTYPE, ARG_RANGES, OpDef

HEADER_DIR = "runtime_c/include/mx"
HEADER_PATH = f"{HEADER_DIR}/op_args.h"

# Schema types (str(torch.Argument.type)) to mx_arg_kind (runtime_c/include/mx/kernel.h). ScalarType prints
# as int: the .pte writes it as an Int.
_KINDS = {
    "Tensor": "MX_KIND_TENSOR",
    "Optional[Tensor]": "MX_KIND_OPT_TENSOR",
    "int": "MX_KIND_INT",
    "Optional[int]": "MX_KIND_OPT_INT",
    "List[int]": "MX_KIND_INT_LIST",
    "Optional[List[int]]": "MX_KIND_OPT_INT_LIST",
    "float": "MX_KIND_FLOAT",
    "bool": "MX_KIND_BOOL",
    "number": "MX_KIND_SCALAR",
    "Optional[number]": "MX_KIND_OPT_SCALAR",
    "List[Tensor]": "MX_KIND_TENSOR_LIST",
    "str": "MX_KIND_STRING",
    "Optional[List[float]]": "MX_KIND_OPT_FLOAT_LIST",
}


def c_stem(op: OpDef) -> str:
    """<namespace>_<name> without the name's leading underscores, as in the kernel symbol; an op whose name
    several overloads share adds its overload without the `_out`, unless that overload is `out` (gt.Scalar_out:
    aten_gt_Scalar; clamp.out: aten_clamp, clamp.Tensor_out: aten_clamp_Tensor)."""
    ns, base = op.name.split("::")
    stem = f"{ns}_{base.lstrip('_')}"
    if op.overload != "out" and sum(other.name == op.name for other in ALL_OPS) > 1:
        stem += "_" + op.overload.removesuffix("_out")
    return stem


def build_ranges(ops: Iterable[OpDef]) -> List[str]:
    """The ARG_RANGES classes that `ops` declare, in first-use order: a build's table of bounds, indexed from 1
    by the high nibble of a kind (0: no range), so a build carries the bounds of its own ops only."""
    used: List[str] = []
    for op in ops:
        for _, cls in op.ranges:
            if cls not in used:
                used.append(cls)
    if len(used) > 15:
        raise ValueError("more than 15 value ranges in one build: widen the kind byte")
    return used


def arg_kinds(op: OpDef, ranges: Sequence[str] = tuple(ARG_RANGES)) -> List[str]:
    """mx_arg_kind of each KernelCall argument, with (1 + the index in `ranges` of) the value range the op
    declares for it in the high nibble: the schema's arguments, then the return (MX_KIND_RET repeats the out
    tensor, MX_KIND_RET_LIST lists the outs)."""
    sig = signature(op)
    declared = dict(op.ranges)
    kinds = []
    for a in sig.args:
        t = a.type
        if t not in _KINDS:
            raise ValueError(f"{op.qualified}: argument {a.name} has schema type {t}, which the runtime cannot check")
        kind = _KINDS[t]
        if a.name in declared:
            if kind not in ("MX_KIND_INT", "MX_KIND_INT_LIST"):
                raise ValueError(f"{op.qualified}: a range on {a.name}, which is not an int or int[]")
            kind = f"{kind} | {list(ranges).index(declared[a.name]) + 1} << 4"
        kinds.append(kind)
    kinds.append("MX_KIND_RET" if sig.returns == 1 else "MX_KIND_RET_LIST")
    return kinds


def c_bounds(cls: str) -> Tuple[str, str]:
    """(lo, hi) of a range class as C int32 literals."""
    lo, hi = ("(-2147483647 - 1)" if v == -(1 << 31) else str(v) for v in ARG_RANGES[cls])
    return lo, hi


def first_out(op: OpDef) -> int:
    """Index of the first out argument (the ones the return repeats): the outs are the schema's last."""
    args = signature(op).args
    outs = [i for i, a in enumerate(args) if a.out]
    if not outs or outs != list(range(outs[0], len(args))):
        raise ValueError(f"{op.qualified}: out arguments must close the schema")
    return outs[0]


def _enum(op: OpDef) -> List[str]:
    stem = c_stem(op)
    names = op.arg_names()
    lines = [f"  /* {op.qualified} */"]
    lines += [f"  MX_ARG_{stem}_{name} = {i}," for i, name in enumerate(names)]
    return lines + [f"  MX_NARGS_{stem} = {len(names)},"]


def _library_header(library: str, ops: List[OpDef]) -> str:
    guard = f"MX_OP_ARGS_{library.upper()}_H"
    out = [
        f"#ifndef {guard}",
        f"#define {guard}",
        "/* Generated from the op table (mcu_export/ops/c_args.py); do not edit: tests/test_op_args.py",
        " * fails when this file and the table disagree. Regenerate: python -m mcu_export.ops.c_args",
        f" * KernelCall argument positions of the {library} kernels: the schema's",
        " * arguments in order, then `ret`. Enumeration constants are ints, so kernels sharing a body compare",
        " * positions in _Static_asserts across ops. */",
        "",
        f"enum mx_op_arg_{library} {{",
    ]
    for i, op in enumerate(ops):
        out += ([""] if i else []) + _enum(op)
    out += ["};", "", "#endif"]
    return "\n".join(out) + "\n"


def _header_group(op: OpDef) -> str:
    """The kernel library, with the portable kernels that only move elements (any dtype) on their own."""
    return "portable_moves" if op.library == "portable" and op.dtypes == ANY_DTYPE else op.library


def render_args_headers(ops: Iterable[OpDef] = ALL_OPS) -> Dict[str, str]:
    """Repository path -> text: one header per kernel library, and op_args.h, which includes them all."""
    by_library: Dict[str, List[OpDef]] = {}
    seen = set()
    for op in ops:
        stem = c_stem(op)
        if stem in seen:
            raise ValueError(f"two ops render as MX_ARG_{stem}_*: add the overload to the C names")
        seen.add(stem)
        by_library.setdefault(_header_group(op), []).append(op)
    headers = {f"{HEADER_DIR}/op_args_{lib}.h": _library_header(lib, lib_ops) for lib, lib_ops in by_library.items()}
    umbrella = [
        "#ifndef MX_OP_ARGS_H",
        "#define MX_OP_ARGS_H",
        "/* Generated from the op table (mcu_export/ops/c_args.py): MX_ARG_<ns>_<op>_<arg> and MX_NARGS_*, one",
        " * header per kernel library. */",
        *(f'#include "mx/{path.rsplit("/", 1)[1]}"' for path in headers),
        "",
        "#endif",
    ]
    headers[HEADER_PATH] = "\n".join(umbrella) + "\n"
    return headers


def main() -> int:
    from mcu_export.assets import asset_dir

    root = asset_dir("runtime_c").parent
    for path, text in render_args_headers().items():
        (root / path).write_text(text)
        print(f"wrote {root / path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
