"""Partition decisions on models built to break the graph: an operator the NPU lacks in the middle, an
NPU-generation limit, an int16 tensor. Each names what stays on the CPU and why, and the program still
computes what the CPU-only program computes (NPU -> CPU -> NPU), bit for bit."""

import pytest
import torch
from torch import nn

from ethosu_flow import calibration, inputs_for, lower, run_both  # tests/support
from mcu_export.int8.prepare import quantize

pytest.importorskip("tosa_serializer")
pytestmark = pytest.mark.slow


class FloatOpInTheMiddle(nn.Module):
    """A softmax over channels: no int8 kernel takes it (cortex_m's runs over the last axis), so it runs in fp32
    between a dequantize and a quantize, and no NPU computes floats."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(4, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return self.b(torch.softmax(torch.relu(self.a(x)), dim=1))


class Int16InTheMiddle(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(4, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        y = (self.a(x) * 64).to(torch.int16).to(torch.float32) / 64
        return self.b(y)


class PaddedAvgPool9x9(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(4, 8, 3, padding=1), nn.Conv2d(8, 8, 1)
        # U55/U65 average-pool with padding up to 8x8 only; U85 takes it
        self.pool = nn.AvgPool2d(9, stride=1, padding=4, count_include_pad=False)

    def forward(self, x):
        return self.b(self.pool(torch.relu(self.a(x))))


def _partitioned(model, accelerator):
    x = (torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(3)),)
    quantized = quantize(model.eval(), x, calibration(x))
    cpu, _ = lower(quantized, "cortex-m")
    program, info = lower(quantized, accelerator)
    for seed, kind in enumerate(("random", "saturating", "ties")):
        run_both(cpu, program, info.npu_graphs, inputs_for(cpu, [[1, 4, 8, 8]], kind, seed))
    return info.partitions


def _kept(parts, op):
    return [c["reason"] for c in parts["cpu"] if c["op"] == op]


@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u85-256"])
def test_an_operator_the_npu_lacks_splits_the_graph(accelerator):
    parts = _partitioned(FloatOpInTheMiddle(), accelerator)
    assert len(parts["subgraphs"]) == 2
    (reason,) = _kept(parts, "aten::_softmax.out")
    assert "no NPU lowering" in reason and "float32" in reason
    for subgraph in parts["subgraphs"]:  # a convolution each (with layout changes and requantization around it)
        assert subgraph["operators"].count("cortex_m::quantized_conv2d.out") == 1


def test_an_int16_tensor_stays_on_the_cpu():
    parts = _partitioned(Int16InTheMiddle(), "ethos-u55-128")
    assert len(parts["subgraphs"]) == 2
    reasons = _kept(parts, "dim_order_ops::_to_dim_order_copy.out")
    assert reasons and all("int16" in r and "int8 only" in r for r in reasons)


def test_a_kernel_size_limit_is_named_with_the_value_and_the_generation():
    u55 = _partitioned(PaddedAvgPool9x9(), "ethos-u55-128")
    (reason,) = _kept(u55, "cortex_m::quantized_avg_pool2d.out")
    assert "9x9" in reason and "8x8" in reason and "U55" in reason, reason
    assert len(u55["subgraphs"]) == 2
    u85 = _partitioned(PaddedAvgPool9x9(), "ethos-u85-256")
    assert len(u85["subgraphs"]) == 1 and u85["operators_on_npu"] == u85["operators"]


class CpuBranch(nn.Module):
    """Two convolutions on the input and a float softmax (CPU) on a third branch, traced between them."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(4, 4, 3, padding=1), nn.Conv2d(4, 4, 1)

    def forward(self, x):
        a = self.a(x)
        s = torch.softmax(x, dim=1)
        b = self.b(x)
        return torch.cat([a, b, s], dim=1)


def test_independent_branches_are_scheduled_so_that_the_npu_calls_stay_together():
    parts = _partitioned(CpuBranch(), "ethos-u55-128")
    (subgraph,) = parts["subgraphs"]  # graph order would cut it in two around the softmax
    assert subgraph["operators"].count("cortex_m::quantized_conv2d.out") == 2
    assert _kept(parts, "aten::_softmax.out")
