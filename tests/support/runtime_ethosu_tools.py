"""Shared by test_runtime_ethosu.py and test_runtime_ethosu_errors.py: the two-input, two-output model both export
for an Ethos-U, the exported program (one export per accelerator a session), the DelegateCall's place in a plan
and the error lines init's refusals print."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import torch

from mcu_export.pte import program as P

ERR_DATA = "a delegate's processed data is malformed or not what its backend runs"
SITE = "(method forward, delegate 0 EthosUBackend)"  # where init's refusals point


class TwoInTwoOut(torch.nn.Module):
    """One NPU subgraph with two inputs and two outputs (Vela places an output over an input's bytes)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(16, 12), torch.nn.Linear(8, 12)

    def forward(self, x, y):
        h = self.a(x) + self.b(y)
        return torch.relu(h), h * 2


def model_and_inputs():
    torch.manual_seed(0)
    model = TwoInTwoOut().eval()
    return model, (torch.randn(2, 16), torch.randn(2, 8))


@dataclasses.dataclass
class Exported:
    program: P.Program
    pte: bytes
    path: Path


@functools.lru_cache(maxsize=None)
def _export(accelerator: str):
    import mcu_export

    model, inputs = model_and_inputs()
    artifact = mcu_export.export(model, inputs, quantize="int8", backend=accelerator)
    return artifact.program, artifact.pte


def export_for(accelerator: str, workdir: Path) -> Exported:
    """The int8 export of TwoInTwoOut for `accelerator` (exported once a session), written to workdir."""
    program, pte = _export(accelerator)
    path = workdir / f"{accelerator}.pte"
    path.write_bytes(pte)
    return Exported(program, pte, path)


def delegate_call(plan: P.ExecutionPlan):
    (index,) = [i for i, ins in enumerate(plan.chains[0].instructions) if isinstance(ins, P.DelegateCall)]
    return index, plan.chains[0].instructions[index]
