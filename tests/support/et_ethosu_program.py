"""ExecuTorch's own Ethos-U program (ExecuTorch 1.5.1's Arm flow, EthosUPartitioner, as aot_arm_compiler.py runs it
for an Ethos-U target, its ReplaceQuantNodesPass included: the CPU's q/dq become cortex_m ops, which mcu-export's
runtime has). Its delegates are called without a scratch argument: the runtime's platform gives the scratch."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Tuple

import pytest


def executorch_ethosu_pte(
    model, inputs: tuple, accelerator: str = "ethos-u55-128", tosa_dir: Optional[Path] = None
) -> Tuple[bytes, List[bytes]]:
    """(the .pte, the TOSA flatbuffer of each delegate in order) of `model` through ExecuTorch's Arm flow; the TOSA
    graphs are those ExecuTorch dumps into `tosa_dir` (its compile spec's intermediates path); none without it."""
    pytest.importorskip("executorch.backends.arm", reason="needs executorch==1.5.1 (pip install -e .[interop])")
    from executorch.backends.arm.ethosu import EthosUCompileSpec
    from executorch.backends.cortex_m.passes.replace_quant_nodes_pass import ReplaceQuantNodesPass
    from executorch.exir import ExecutorchBackendConfig

    from mcu_export.bench_et_ethosu import _lower, _quantize, _quiet

    with _quiet():
        spec = EthosUCompileSpec(accelerator)
        if tosa_dir is not None:
            spec.dump_intermediate_artifacts_to(str(tosa_dir))
        edge, _, _ = _lower(_quantize(model, inputs, spec), spec, [])
        edge = edge.transform([ReplaceQuantNodesPass()])
        pte = edge.to_executorch(config=ExecutorchBackendConfig(extract_delegate_segments=False)).buffer
    graphs = sorted(Path(tosa_dir).rglob("*.tosa")) if tosa_dir is not None else []
    return pte, [g.read_bytes() for g in graphs]
