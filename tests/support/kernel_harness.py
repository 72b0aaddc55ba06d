"""Call the portable C kernels from Python: build them into a shared library, mirror mx_value/mx_tensor
in ctypes and lay arguments out as ExecuTorch's emitter does (the out-variant schema's arguments in
order, then the return: the out tensor again, or one TensorList of the outs).

    lib = KernelLib(build_library(tmp_dir))
    out = torch.empty_like(x)
    err = lib.call(BY_QUALIFIED["aten::relu.out"], self=x, out=out)   # an mx_error code; out is filled

Out tensors are contiguous torch tensors the kernel writes into in place (a `Strided` tensor is copied
into its memory order first; read the result back from its `.mem`).
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import torch

ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = ROOT / "runtime_c" / "include"
KERNEL_DIR = ROOT / "runtime_c" / "kernels" / "portable"
RUNTIME_SRC = ROOT / "runtime_c" / "src"
ERRORS_DEF = INCLUDE_DIR / "mx" / "errors.def"
MAX_DIM = 8

TAG = dict(
    NONE=0,
    NULL=1,
    INT=2,
    BOOL=3,
    DOUBLE=4,
    TENSOR=5,
    STRING=6,
    INT_LIST=7,
    DOUBLE_LIST=8,
    BOOL_LIST=9,
    TENSOR_LIST=10,
    OPT_TENSOR_LIST=11,
)
DTYPE = {
    torch.uint8: 0,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 3,
    torch.int64: 4,
    torch.float16: 5,
    torch.float32: 6,
    torch.float64: 7,
    torch.bool: 11,
}


def error_codes() -> Dict[str, int]:
    """mx_error names to codes, read from errors.def (the one list the C side is built from)."""
    codes = {}
    for m in re.finditer(r"^X\((\w+),\s*(0x[0-9A-Fa-f]+|\d+),", ERRORS_DEF.read_text(), re.M):
        codes[m.group(1)] = int(m.group(2), 0)
    return codes


def kernel_sources() -> List[Path]:
    return sorted(KERNEL_DIR.rglob("*.c"))


def portable_ops() -> list:
    """The op-table entries whose kernels build_library compiles, in kernel-table order."""
    from mcu_export.ops.table import ALL_OPS

    return [op for op in ALL_OPS if (KERNEL_DIR / f"{op.kernel}.c").is_file()]


def build_library(out_dir: Path, cc: str = "cc") -> Path:
    """Compiles every portable kernel source into one shared library, with the loader's argument check
    (runtime_c/src/kernel_check.c) and a kernel table for them, so a call is checked as a load checks it.
    MX_KERNEL_CFLAGS adds flags, e.g. "-fsanitize=address,undefined" (then run python with
    LD_PRELOAD=$(cc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0). Built once per content of the
    sources, table and flags, in the host runtime's cache (every test module asks for it: 7 s each); out_dir
    holds the build until it is complete."""
    import hashlib

    from mcu_export.host_runtime import cache_root, render_kernel_table

    table_text = render_kernel_table(portable_ops())
    # fuse_hard_ramp.c: the table lists the loader fusion that ends in the hardswish/hardsigmoid kernels; it
    # compares op names with fb_reader.c's mx_str_eq
    runtime = [RUNTIME_SRC / n for n in ("kernel_check.c", "dtype.c", "fuse_hard_ramp.c", "fb_reader.c")]
    flags = [cc, "-std=c11", "-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE_DIR}"]
    flags += os.environ.get("MX_KERNEL_CFLAGS", "").split()
    digest = hashlib.sha256("\0".join([*flags, table_text]).encode())
    headers = sorted(p for d in (INCLUDE_DIR, KERNEL_DIR) for p in d.rglob("*.h"))
    for path in sorted(set(kernel_sources() + runtime)) + headers:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    final = cache_root() / "kernel-lib" / digest.hexdigest()[:20] / "libmx_portable_kernels.so"
    if final.is_file():
        return final
    lib = Path(out_dir) / "libmx_portable_kernels.so"
    table = Path(out_dir) / "kernel_table.c"
    table.write_text(table_text)
    cmd = [*flags, *map(str, kernel_sources() + runtime + [table]), "-o", str(lib), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f".{os.getpid()}.so")
    shutil.copy2(lib, tmp)
    os.replace(tmp, final)  # whole or absent: another worker may be building the same
    return final


# --- ctypes mirrors of runtime_c/include/mx/value.h -------------------------------------------------


class MxTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("sizes", ctypes.POINTER(ctypes.c_int32)),  # the runtime reads both in place from the program
        ("dim_order", ctypes.POINTER(ctypes.c_uint8)),
        ("dim", ctypes.c_uint8),
        ("dtype", ctypes.c_uint8),
        ("numel", ctypes.c_uint32),
    ]


class _Str(ctypes.Structure):
    _fields_ = [("chars", ctypes.c_char_p), ("len", ctypes.c_uint32)]


class _Ints(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(ctypes.c_int64)), ("len", ctypes.c_uint32)]


class _Doubles(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(ctypes.c_double)), ("len", ctypes.c_uint32)]


class _Bools(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(ctypes.c_uint8)), ("len", ctypes.c_uint32)]


class _Tensors(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(ctypes.POINTER(MxTensor))), ("len", ctypes.c_uint32)]


class _ValueUnion(ctypes.Union):
    # i and d fill the C union's two-word `bits` (an int64_t or a double, as mx_value_int/mx_value_double read it)
    _fields_ = [
        ("i", ctypes.c_int64),
        ("d", ctypes.c_double),
        ("b", ctypes.c_bool),
        ("t", ctypes.POINTER(MxTensor)),
        ("str", _Str),
        ("ints", _Ints),
        ("doubles", _Doubles),
        ("bools", _Bools),
        ("tensors", _Tensors),
    ]


class MxValue(ctypes.Structure):
    _fields_ = [("tag", ctypes.c_uint8), ("u", _ValueUnion)]


class Strided:
    """A tensor laid out in memory in the given dim order (e.g. (0, 2, 3, 1) = channels-last)."""

    def __init__(self, tensor: torch.Tensor, dim_order: Sequence[int]):
        self.tensor, self.dim_order = tensor, tuple(dim_order)
        self.mem: Optional[torch.Tensor] = None  # the memory the kernel saw, once built


class Values:
    """Builds mx_values and keeps every buffer they point to alive."""

    def __init__(self):
        self._keep: list = []

    def _hold(self, obj):
        self._keep.append(obj)
        return obj

    def tensor_struct(self, t, dim_order: Optional[Sequence[int]] = None) -> MxTensor:
        orig = t
        if isinstance(t, Strided):
            t, dim_order = t.tensor, t.dim_order
        order = tuple(range(t.dim())) if dim_order is None else tuple(dim_order)
        # The C kernel reads and writes this memory: for the default order it is the caller's own
        # (contiguous) tensor, so outs come back in place.
        mem = t if order == tuple(range(t.dim())) and t.is_contiguous() else t.permute(order).contiguous()
        self._hold(mem)
        if isinstance(orig, Strided):
            orig.mem = mem
        s = self._hold(MxTensor())
        s.data = mem.data_ptr() if mem.numel() else None
        s.sizes = self._hold((ctypes.c_int32 * MAX_DIM)(*t.shape))
        s.dim_order = self._hold((ctypes.c_uint8 * MAX_DIM)(*order))
        s.dim, s.dtype = t.dim(), DTYPE[t.dtype]
        s.numel = t.numel()
        return s

    def tensor(self, t, dim_order: Optional[Sequence[int]] = None) -> MxValue:
        v = self._hold(MxValue(tag=TAG["TENSOR"]))
        v.u.t = ctypes.pointer(self.tensor_struct(t, dim_order))
        return v

    def null(self) -> MxValue:
        return self._hold(MxValue(tag=TAG["NULL"]))

    def string(self, text: str = "x") -> MxValue:
        raw = self._hold(ctypes.create_string_buffer(text.encode()))
        v = self._hold(MxValue(tag=TAG["STRING"]))
        v.u.str.chars = ctypes.cast(raw, ctypes.c_char_p)
        v.u.str.len = len(text)
        return v

    def int_(self, i: int) -> MxValue:
        v = self._hold(MxValue(tag=TAG["INT"]))
        v.u.i = int(i)
        return v

    def bool_(self, b: bool) -> MxValue:
        v = self._hold(MxValue(tag=TAG["BOOL"]))
        v.u.b = bool(b)
        return v

    def double(self, d: float) -> MxValue:
        v = self._hold(MxValue(tag=TAG["DOUBLE"]))
        v.u.d = float(d)
        return v

    def scalar(self, x) -> MxValue:
        if isinstance(x, bool):
            return self.bool_(x)
        return self.int_(x) if isinstance(x, int) else self.double(x)

    def int_list(self, items: Sequence[int]) -> MxValue:
        arr = self._hold((ctypes.c_int64 * max(len(items), 1))(*items))
        v = self._hold(MxValue(tag=TAG["INT_LIST"]))
        v.u.ints.items = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int64))
        v.u.ints.len = len(items)
        return v

    def double_list(self, items: Sequence[float]) -> MxValue:
        arr = self._hold((ctypes.c_double * max(len(items), 1))(*items))
        v = self._hold(MxValue(tag=TAG["DOUBLE_LIST"]))
        v.u.doubles.items = ctypes.cast(arr, ctypes.POINTER(ctypes.c_double))
        v.u.doubles.len = len(items)
        return v

    def tensor_list(self, tensors: Sequence[MxValue]) -> MxValue:
        """A TensorList naming the tensors of these (Tensor) values, as the loader resolves one."""
        arr = self._hold((ctypes.POINTER(MxTensor) * max(len(tensors), 1))(*[t.u.t for t in tensors]))
        v = self._hold(MxValue(tag=TAG["TENSOR_LIST"]))
        v.u.tensors.items = ctypes.cast(arr, ctypes.POINTER(ctypes.POINTER(MxTensor)))
        v.u.tensors.len = len(tensors)
        return v

    def tensor_list_of(self, listed: MxValue) -> MxValue:
        """A second TensorList naming the tensors another one names (the emitter's return of a list out)."""
        n = listed.u.tensors.len
        arr = self._hold((ctypes.POINTER(MxTensor) * max(n, 1))(*[listed.u.tensors.items[i] for i in range(n)]))
        v = self._hold(MxValue(tag=TAG["TENSOR_LIST"]))
        v.u.tensors.items = ctypes.cast(arr, ctypes.POINTER(ctypes.POINTER(MxTensor)))
        v.u.tensors.len = n
        return v

    def from_schema_type(self, type_str: str, x) -> MxValue:
        """One argument as the emitter would write it for a schema type (str(torch.Argument.type))."""
        if type_str.startswith("Optional["):
            return self.null() if x is None else self.from_schema_type(type_str[len("Optional[") : -1], x)
        if type_str == "Tensor":
            return self.tensor(x)
        if type_str == "List[Tensor]":
            return self.tensor_list([self.tensor(t) for t in x])
        if type_str == "List[int]":
            return self.int_list(list(x))
        if type_str == "List[float]":
            return self.double_list(list(x))
        if type_str == "str":
            return self.string(x)
        if type_str == "bool":
            return self.bool_(x)
        if type_str == "int":
            return self.int_(x)
        if type_str == "float":
            return self.double(x)
        if type_str == "number":
            return self.scalar(x)
        raise ValueError(f"no mx_value mapping for schema type {type_str}")


def schema_args(values: Values, schema: torch.FunctionSchema, kwargs: dict) -> List[MxValue]:
    """The kernel-call argument list for an out-variant schema: arguments (defaults filled in), then
    the return — the out tensor's value again, or one TensorList of all outs."""
    args, outs = [], []
    unknown = set(kwargs) - {a.name for a in schema.arguments}
    if unknown:
        raise TypeError(f"{schema.name}: unknown arguments {sorted(unknown)}")
    for a in schema.arguments:
        if a.name in kwargs:
            x = kwargs[a.name]
        elif a.has_default_value():
            x = a.default_value
        else:
            raise TypeError(f"{schema.name}: missing argument {a.name}")
        v = values.from_schema_type(str(a.type), x)
        args.append(v)
        if a.alias_info is not None and a.alias_info.is_write:
            outs.append(v)
    if len(schema.returns) == 1:
        args.append(outs[0])
    elif len(outs) == 1 and outs[0].tag == TAG["TENSOR_LIST"]:  # `Tensor(a!)[] out`: the return lists its tensors
        args.append(values.tensor_list_of(outs[0]))
    else:
        args.append(values.tensor_list(outs))
    return args


def _load_error(a: Optional[MxValue], tensor_check) -> int:
    """What loading would refuse of a hand-built value: a missing value, tensor or list (MX_ERR_BAD_ARG_TYPE),
    a malformed tensor (mx_tensor_check's code)."""
    bad_type = error_codes()["MX_ERR_BAD_ARG_TYPE"]
    if a is None:
        return bad_type
    if a.tag == TAG["TENSOR"]:
        return tensor_check(a.u.t) if a.u.t else bad_type
    if a.tag == TAG["TENSOR_LIST"]:
        if a.u.tensors.len and not a.u.tensors.items:
            return bad_type
        for j in range(a.u.tensors.len):
            t = a.u.tensors.items[j]
            err = tensor_check(t) if t else bad_type
            if err:
                return err
    if a.tag == TAG["INT_LIST"] and a.u.ints.len and not a.u.ints.items:
        return bad_type
    return 0


class MxKernelCtx(ctypes.Structure):
    _fields_ = [("instruction", ctypes.c_uint32)]


class KernelLib:
    def __init__(self, path: Path):
        self.cdll = ctypes.CDLL(str(path))
        self.index = {op.kernel: i for i, op in enumerate(portable_ops())}
        self.check_call = self.cdll.mx_kernel_check_call
        self.check_call.restype = ctypes.c_uint32
        self.check_call.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(MxValue)), ctypes.c_uint32]
        self.cdll.mx_tensor_check.restype = ctypes.c_int
        self.cdll.mx_tensor_check.argtypes = [ctypes.POINTER(MxTensor)]
        self.last_arg: Optional[int] = None  # the argument a refused call named (None: none in particular)

    def _entry(self, symbol: str) -> int:
        # mx_kernel_entry: six pointers (name, overload, fn, check, sig, overlap)
        size = 6 * ctypes.sizeof(ctypes.c_void_p)
        return ctypes.addressof(ctypes.c_char.in_dll(self.cdll, "mx_kernel_table")) + self.index[symbol] * size

    def raw(self, symbol: str, args: Sequence[Optional[MxValue]]) -> int:
        """Checks a call as the loader does (count, tags, the kernel's own check), then runs the kernel when
        that passes (None becomes a NULL mx_value pointer). Returns the mx_error code."""
        arr = (ctypes.POINTER(MxValue) * max(len(args), 1))(
            *[ctypes.pointer(a) if a is not None else ctypes.POINTER(MxValue)() for a in args]
        )
        # The loader builds only set values with well-formed tensors (value_load.c, tensor_load.c); these are
        # built by hand, so check them as a load would.
        for i, a in enumerate(args):
            err = _load_error(a, self.cdll.mx_tensor_check)
            if err:
                self.last_arg = i
                return err
        refusal = self.check_call(self._entry(symbol), arr, len(args))
        # mx_arg_error: the code in the low 11 bits, argument + 1 above (kernel.h MX_ERROR_CODE / MX_ERROR_ARG)
        self.last_arg = (refusal >> 11) - 1 if refusal >> 11 else None
        if refusal != 0:
            return refusal & 0x7FF
        fn = getattr(self.cdll, symbol)
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.POINTER(MxKernelCtx), ctypes.POINTER(ctypes.POINTER(MxValue))]
        return fn(ctypes.byref(MxKernelCtx(0)), arr)

    def call(self, op, /, **kwargs) -> int:
        """Calls op's kernel (op: an OpDef, or (symbol, schema)) with schema-ordered arguments."""
        symbol, schema = (op.kernel, op.schema()) if hasattr(op, "kernel") else op
        values = Values()
        return self.raw(symbol, schema_args(values, schema, kwargs))
