"""Conv1d (plain, strided, padded, dilated, grouped, depthwise) and 1-D pooling in int8 without fp32
fallback, as the 2-D cortex_m kernels at H = 1: host C runtime == reference interpreter bit for bit, both
close to fp32 torch; a TC-ResNet block and its .pte smaller than fp32's."""

import numpy as np
import pytest
import torch
from torch import nn

from int8_export_check import check_int8
from mcu_export.api import export

CONV, DW = "cortex_m::quantized_conv2d.out", "cortex_m::quantized_depthwise_conv2d.out"


class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = nn.Conv1d(4, 8, 3)
        self.strided = nn.Conv1d(8, 8, 5, stride=2, padding=2)
        self.dilated = nn.Conv1d(8, 6, 3, padding=2, dilation=2, bias=False)
        self.depthwise = nn.Conv1d(6, 6, 3, padding=1, groups=6)
        self.grouped = nn.Conv1d(6, 4, 1, groups=2)

    def forward(self, x):
        y = torch.relu(self.plain(x))
        y = torch.relu(self.strided(y))
        return self.grouped(torch.relu(self.depthwise(self.dilated(y))))


class Pools(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 8, 3, padding=1)
        self.mp, self.ap, self.aap = nn.MaxPool1d(2), nn.AvgPool1d(3, stride=2), nn.AdaptiveAvgPool1d(1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.aap(self.ap(self.mp(y))), self.mp(x)


class TCResBlock(nn.Module):  # TC-ResNet: MFCC channels in, 1-D convolutions over time, BN folded
    def __init__(self, c_in=10, c=16, classes=6):
        super().__init__()
        self.stem = nn.Conv1d(c_in, c, 3, padding=1, bias=False)
        self.a = nn.Sequential(
            nn.Conv1d(c, 2 * c, 9, stride=2, padding=4, bias=False), nn.BatchNorm1d(2 * c), nn.ReLU()
        )
        self.b = nn.Sequential(nn.Conv1d(2 * c, 2 * c, 9, padding=4, bias=False), nn.BatchNorm1d(2 * c))
        self.short = nn.Sequential(nn.Conv1d(c, 2 * c, 1, stride=2, bias=False), nn.BatchNorm1d(2 * c), nn.ReLU())
        self.fc = nn.Linear(2 * c, classes)

    def forward(self, x):
        y = self.stem(x)
        y = torch.relu(self.b(self.a(y)) + self.short(y))
        return self.fc(y.mean(-1))


def _randomize_bn(model):
    torch.manual_seed(0)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.3, 0.3)
    return model


def _calls(artifact, qualified):
    plan = artifact.program.method("forward")
    return sum(plan.operators[i.op_index].qualified == qualified for i in plan.chains[0].instructions)


@pytest.mark.slow  # the TC-ResNet block below is the fast tier's case
def test_conv1d_variants():
    artifact = check_int8(Convs(), [(1, 4, 40)], ops=[CONV, DW])
    # the layers pass channels-last [N, C, 1, L] twins: one layout copy in (C_in > 1) and one out, none between
    assert _calls(artifact, "dim_order_ops::_to_dim_order_copy.out") == 2


@pytest.mark.slow  # the TC-ResNet block below is the fast tier's case
def test_pools_1d():
    check_int8(Pools(), [(1, 3, 32)], ops=[CONV, "cortex_m::quantized_max_pool2d.out"])


@pytest.mark.slow
def test_tc_resnet_block_runs_int8_and_is_smaller():
    model = _randomize_bn(TCResBlock()).eval()
    artifact = check_int8(model, [(1, 10, 49)], ops=[CONV])
    fp32 = export(model, (torch.randn(1, 10, 49),))
    assert len(artifact.pte) < len(fp32.pte)


class QatNet1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.fc = nn.Conv1d(4, 6, 3, padding=1), nn.Linear(6, 3)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean(-1))


@pytest.mark.slow
def test_qat_conv1d():
    from mcu_export.api import export_qat, prepare_qat
    from mcu_export.int8.interpreter import run_reference

    torch.manual_seed(0)
    data = [(torch.randn(2, 4, 16),) for _ in range(6)]
    prepared = prepare_qat(QatNet1d().train(), data[0])
    opt = torch.optim.SGD(prepared.parameters(), lr=0.01)
    for (x,) in data:
        loss = prepared(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    artifact = export_qat(prepared, data[0])
    assert CONV in set(artifact.report["ops"]) and artifact.report["int8"]["fallbacks"] == []
    x = data[1][0]
    ours = run_reference(artifact.program, [x])[0]
    assert np.array_equal(artifact.run(x)[0], ours)
    fake = prepared(x).detach().numpy()  # converted in place: the fake-quantized model
    assert np.mean(np.abs(ours - fake) <= np.abs(fake).max() / 100 + 1e-6) > 0.99
