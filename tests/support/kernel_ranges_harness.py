"""Call the int8 cortex_m kernels (and the portable ones) under ASan and UBSan, in a child Python.

The library holds every kernel with its CMSIS-NN functions (cmsis_nn_kernels/, the scalar path of the host)
and the loader's argument check, built with `-fsanitize=address,undefined,float-cast-overflow
-fno-sanitize-recover=all`: one undefined operation ends the process. ASan must be the first library in a
process, so the calls run in a child Python with LD_PRELOAD; the parent compares what it reports.

A case is a function of no arguments returning (qualified op name, kwargs by schema name; `_planned`: names of
tensor arguments to mark as arena tensors, MX_TENSOR_PLANNED): the child calls it
and runs the kernel, the parent calls it again to compute the reference. `run_cases` returns, per case name,
{"err": mx_error code, "arg": the argument a refusal names (or None), "out": the out tensor's values}.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, Tuple

import numpy as np
import torch

from kernel_harness import INCLUDE_DIR, KERNEL_DIR, ROOT, RUNTIME_SRC, KernelLib, MxTensor, Values, schema_args

CORTEX_M_DIR = ROOT / "runtime_c" / "kernels" / "cortex_m"
CMSIS_NN_DIR = ROOT / "cmsis_nn_kernels"
SANITIZE = ("-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")

Case = Callable[[], Tuple[str, dict]]


# The portable kernels these tests call (beside every cortex_m one): fewer sources to build with sanitizers.
PORTABLE_OPS = ("aten::full.out",)


def ops() -> list:
    """The op-table entries this library has kernels for, in its kernel-table order."""
    from mcu_export.ops.table import ALL_OPS

    kernels = ROOT / "runtime_c" / "kernels"
    return [
        op
        for op in ALL_OPS
        if (kernels / op.library / f"{op.kernel}.c").is_file()
        and (op.library == "cortex_m" or op.qualified in PORTABLE_OPS)
    ]


def build_library(out_dir: Path, sanitize: bool = True, cc: str = "cc") -> Path:
    from mcu_export.host_runtime import render_kernel_table

    lib = Path(out_dir) / "libmx_kernels_ranges.so"
    table = Path(out_dir) / "kernel_table.c"
    table.write_text(render_kernel_table(ops()))
    portable = [KERNEL_DIR / f"{op.kernel}.c" for op in ops() if op.library != "cortex_m"]
    sources = [
        *portable,
        *sorted((KERNEL_DIR / "util").glob("*.c")),
        *sorted(CORTEX_M_DIR.rglob("*.c")),
        *sorted(CMSIS_NN_DIR.glob("*.c")),
        RUNTIME_SRC / "kernel_check.c",
        RUNTIME_SRC / "dtype.c",
        table,
    ]
    includes = (INCLUDE_DIR, KERNEL_DIR, CORTEX_M_DIR, CMSIS_NN_DIR / "include")
    cmd = [cc, "-std=c11", "-shared", "-fPIC", "-O1", "-g", "-Wall", "-Wextra", "-Werror"]
    cmd += [f"-I{d}" for d in includes] + list(SANITIZE if sanitize else ())
    subprocess.run([*cmd, *map(str, sources), "-o", str(lib), "-lm"], check=True, capture_output=True, text=True)
    return lib


def asan_runtime(cc: str = "cc") -> str:
    return subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()


class RangesLib(KernelLib):
    def __init__(self, path: Path):
        super().__init__(path)
        self.index = {op.kernel: i for i, op in enumerate(ops())}


def call_case(lib: RangesLib, case: Case) -> dict:
    from mcu_export.ops.table import BY_QUALIFIED

    name, kwargs = case()
    op = BY_QUALIFIED[name]
    schema = op.schema()
    planned = kwargs.pop("_planned", ())
    args = schema_args(Values(), schema, kwargs)
    for i, a in enumerate(schema.arguments):
        if a.name in planned:  # mx_tensor.flags (after dtype, in MxTensor's padding): MX_TENSOR_PLANNED
            ctypes.c_uint8.from_address(ctypes.addressof(args[i].u.t.contents) + MxTensor.dtype.offset + 1).value = 1
    err = lib.raw(op.kernel, args)
    arg = lib.last_arg
    names = [a.name for a in schema.arguments]
    out = kwargs["out"]
    return dict(
        err=err,
        arg=names[arg] if err and arg is not None and arg < len(names) else None,
        out=out.flatten().tolist() if not err else None,
    )


def run_cases(lib: Path, module: str, cases: Dict[str, Case], timeout: float = 300.0) -> Dict[str, dict]:
    """Runs module.CASES (the same dict as `cases`) in a child under the sanitizers; a sanitizer report fails."""
    env = dict(os.environ)
    support, tests = Path(__file__).resolve().parent, Path(__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(tests), str(support), env.get("PYTHONPATH", "")])
    env["LD_PRELOAD"] = asan_runtime()
    env["ASAN_OPTIONS"] = "detect_leaks=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1"
    run = subprocess.run(
        [sys.executable, "-m", "kernel_ranges_harness", str(lib), module],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert run.returncode == 0 and "runtime error" not in run.stderr, run.stderr[-4000:]
    results = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(results) == set(cases)
    return results


def reference(case: Case) -> np.ndarray:
    """The Python reference's output (mcu_export.int8.interpreter_ops) for a case, flattened."""
    from mcu_export.ops.table import BY_QUALIFIED

    name, kwargs = case()
    mod, fn = BY_QUALIFIED[name].reference.split(":")
    named = {k: (v.numpy() if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
    return np.asarray(getattr(importlib.import_module(mod), fn)(named, tuple(kwargs["out"].shape))).flatten()


def _child(lib_path: str, module: str) -> None:
    lib = RangesLib(Path(lib_path))
    cases = importlib.import_module(module).CASES
    print(json.dumps({name: call_case(lib, case) for name, case in cases.items()}))


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
