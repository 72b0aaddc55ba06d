"""The backend interface, proven with a toy delegate backend defined here: it claims aten.relu, turns
each run of contiguous relus into one DelegateCall, and the C host runtime executes it through the
test delegate linked into mx_run (runtime_c/host/, id MxTestDelegate). Everything else stays on the
portable backend, and every node the toy refused is reported with its reason."""

import struct

import numpy as np
import pytest
import torch
from torch import nn

from mcu_export.capture import capture
from mcu_export.errors import UnsupportedOpError
from mcu_export.lower.backend import DelegateBackend, KernelBackend, bind_outputs, lower_graph
from mcu_export.lower.portable import PortableBackend
from mcu_export.passes import run_passes
from mcu_export.planner import plan_memory
from mcu_export.pte import program as pte
from mcu_export.pte.reader import read_program
from mcu_export.pte.writer import write_program
from mcu_export.runners.host import run_pte

RELU = torch.ops.aten.relu.default
TEST_DELEGATE_RELU = b"MXTD" + struct.pack("<I", 1)  # the test delegate's blob: opcode 1, out = max(in, 0)


class ToyReluBackend(DelegateBackend):
    name = "toy"

    def refuses(self, builder, node):
        return None if node.target == RELU else f"toy takes relu only, not {node.target}"

    def lower_partition(self, builder, nodes, inputs, outputs):
        assert len(inputs) == 1 and len(outputs) == 1, "the test delegate maps one tensor to one"
        args = [builder.tensor(inputs[0])] + bind_outputs(builder, outputs)
        builder.delegate_call("MxTestDelegate", TEST_DELEGATE_RELU, args, nodes[0])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(torch.relu(self.fc1(x)))  # two contiguous relus: one partition
        return torch.sigmoid(self.fc2(h)) - 0.5, torch.relu(x)


def _lowered(backends):
    torch.manual_seed(0)
    model, x = Net().eval(), torch.randn(2, 8)
    ep = run_passes(capture(model, (x,)))
    program, info = lower_graph(ep, backends)
    info.memory = plan_memory(program)
    return model, x, program, info


def test_toy_delegate_partitions_and_runs_on_the_host_runtime(tmp_path):
    model, x, program, info = _lowered([ToyReluBackend(), PortableBackend()])
    plan = program.method()
    calls = [i for i in plan.chains[0].instructions if isinstance(i, pte.DelegateCall)]
    assert len(calls) == 2  # relu∘relu is one partition; the output relu another
    assert [d.id for d in plan.delegates] == ["MxTestDelegate", "MxTestDelegate"]
    assert program.backend_delegate_data == [TEST_DELEGATE_RELU] * 2
    assert info.op_counts["delegate:MxTestDelegate"] == 2
    refused = {f["node"]: f for f in info.fallbacks}
    assert all(f["backend"] == "portable" and f["reason"].startswith("toy takes relu only") for f in refused.values())
    assert len(refused) == sum(1 for i in plan.chains[0].instructions if isinstance(i, pte.KernelCall))

    pte_bytes = write_program(program)
    assert read_program(pte_bytes).method().delegates[0].id == "MxTestDelegate"
    path = tmp_path / "model.pte"
    path.write_bytes(pte_bytes)
    got = run_pte(path, [x.numpy()])
    with torch.no_grad():
        want = model(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-6)


def test_a_node_every_backend_refuses_names_the_op_and_each_reason():
    class OnlyRelu(KernelBackend):
        name = "only-relu"

        def take(self, builder, node):
            return "relu only"

    with pytest.raises(
        UnsupportedOpError,
        match=r"aten\.addmm\.default is not supported \(toy: toy takes relu "
        r"only, not aten\.addmm\.default; only-relu: relu only\)",
    ):
        _lowered([ToyReluBackend(), OnlyRelu()])


def test_same_program_without_the_toy_backend_has_no_delegates():
    _, _, program, info = _lowered([PortableBackend()])
    assert program.method().delegates == [] and info.fallbacks == []
    assert info.op_counts["aten::relu.out"] == 3
