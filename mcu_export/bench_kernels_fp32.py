"""The fp32 half of `make bench-kernels` (table `kernels_fp32`): the same layers as the int8 table
(mcu_export/bench_kernels_layers.py), exported in fp32 (float32 in and out, so the program is the layer's portable
kernel, aten::convolution.out or aten::addmm.out, and at most a layout copy), measured as the int8 ones are: the
kernel call's instructions from the profile, outputs equal to the host runtime's bit for bit. Code bytes count the
kernel and the fp32 convolution and matrix-product helpers it reaches (runtime_c/kernels/portable/util). No Arm
columns: CMSIS-NN has no fp32 kernels."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mcu_export.bench_kernels_layers import Layer

TABLE = "kernels_fp32"
# The kernel's own code: the portable kernel and the util files it calls for the product (conv, matmul). The walk
# stops at the runtime core (argument and tensor helpers) and libc, which every kernel shares.
CODE_PREFIXES = ("mx_k_aten_", "mx_conv", "mx_matmul")
_COMPUTE = ("aten::convolution.out", "aten::addmm.out", "aten::mm.out", "aten::linear.out")


def kernel_op(pte: bytes):
    """The op-table entry of the program's one fp32 compute kernel (convolution, or the linear layer's product)."""
    from mcu_export.ops.table import BY_QUALIFIED
    from mcu_export.pte.reader import read_program

    names = [o.qualified for o in read_program(pte).execution_plan[0].operators]
    found = [n for n in names if n in _COMPUTE]
    if len(found) != 1:
        raise RuntimeError(f"expected one fp32 convolution or linear kernel, the program calls {names}")
    return BY_QUALIFIED[found[0]]


def conv_channels_last(pte: bytes) -> bool:
    """Whether the program's convolution reads and writes channels-last tensors."""
    from mcu_export.lower.channels_last import CHANNELS_LAST
    from mcu_export.pte import program
    from mcu_export.pte.reader import read_program

    plan = read_program(pte).execution_plan[0]
    for chain in plan.chains:
        for instr in chain.instructions:
            if isinstance(instr, program.KernelCall) and plan.operators[instr.op_index].qualified == _COMPUTE[0]:
                x, y = plan.values[instr.args[0]], plan.values[instr.args[-1]]
                return [list(getattr(v, "dim_order", [])) for v in (x, y)] == [CHANNELS_LAST] * 2
    return False


def prepare(layer: Layer, board: str, workdir: Path, seed: int = 0):
    """Exports `layer` in fp32 for `board` (tensors planned apart, as the int8 table's are), draws float32 inputs
    (normal, so that every sign and magnitude of product occurs) and runs the .pte with the host runtime."""
    from mcu_export.api import export
    from mcu_export.bench_kernels import Prepared
    from mcu_export.runners.host import run_pte

    # overlap on only for the channels-last rows: the layout pass runs with it (tensors then may share bytes)
    artifact = export(layer.module(), (layer.example(),), board=board, overlap=layer.nhwc)
    if layer.nhwc and not conv_channels_last(artifact.pte):
        raise RuntimeError(f"{layer.name}: the export left the convolution's input NCHW")
    rng = np.random.default_rng(seed)
    inputs = [rng.standard_normal(size=layer.input_shape).astype(np.float32)]
    path = workdir / f"{board}-{layer.name}-fp32.pte"
    path.write_bytes(artifact.pte)
    want = run_pte(path, inputs)
    return Prepared(layer, artifact.pte, kernel_op(artifact.pte), inputs, want, CODE_PREFIXES)
