"""Ethos-U delegates run on TOSA's reference model: the oracle of what the NPU computes for each subgraph.

`tosa_delegate(graphs)` is a delegate reference for the int8 interpreter (mcu_export.int8.interpreter):
delegate k runs `graphs[k]`, the TOSA graph Vela compiled into it (Artifact.npu_graphs, OUT/npu/), on the
bytes of its input tensors, and writes its outputs; the trailing NPU scratch argument is not read.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from mcu_export.ethosu.blob import BACKEND_ID, unpack
from mcu_export.ethosu.tosa import run_reference


def tosa_delegate(graphs: Sequence[bytes]):
    def run(index: int, delegate, processed: bytes, arrays: List[Optional[np.ndarray]]) -> Dict[int, np.ndarray]:
        if delegate.id != BACKEND_ID:
            raise ValueError(f"delegate {index} is {delegate.id}, not {BACKEND_ID}")
        blob = unpack(processed)
        count = len(blob.inputs)
        inputs = [np.ascontiguousarray(a) for a in arrays[:count] if a is not None]
        outputs = run_reference(graphs[index], inputs)
        return {count + k: out for k, out in enumerate(outputs)}

    return run
