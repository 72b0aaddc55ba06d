"""The layout pass (mcu_export/lower/channels_last.py): which fp32 tensors go channels-last, and which stay NCHW."""

import pytest
import torch
from torch import nn

import mcu_export.api
from mcu_export.pte import program as P

NHWC = [0, 2, 3, 1]


def _orders(model, *shapes, overlap=True):
    """Per op call: (op, [dim order of each tensor argument]); and the method's input/output orders."""
    torch.manual_seed(0)
    xs = tuple(torch.randn(s) for s in shapes)
    plan = mcu_export.api.export(model.eval(), xs, overlap=overlap).program.method()
    calls = []
    for ins in plan.chains[0].instructions:
        op = plan.operators[ins.op_index].qualified
        ts = [a for a in ins.args[:-1] if isinstance(plan.values[a], P.Tensor) and not plan.values[a].data_buffer_idx]
        calls.append((op, [list(plan.values[a].dim_order) for a in ts]))
    io = [list(plan.values[i].dim_order) for i in [*plan.inputs, *plan.outputs]]
    return calls, io


class Chain(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.c = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = torch.relu(self.a(x))
        y = self.c(torch.sigmoid(self.b(y)) * y)
        return y.mean(dim=(2, 3))


def test_activations_between_convolutions_go_channels_last():
    calls, io = _orders(Chain(), (1, 3, 6, 5))
    assert io == [[0, 1, 2, 3], [0, 1]]  # the caller's NCHW in, [N, C] out
    convs = [orders for op, orders in calls if op == "aten::convolution.out"]
    assert convs[0] == [[0, 1, 2, 3], NHWC]  # reads the method's NCHW input, writes NHWC
    assert convs[1] == [NHWC, NHWC] and convs[2] == [NHWC, NHWC]
    unary = [orders for op, orders in calls if op in ("aten::relu.out", "aten::sigmoid.out")]
    assert unary and all(o == [NHWC, NHWC] for o in unary)
    mean = [orders for op, orders in calls if op == "aten::mean.out"]
    assert mean == [[NHWC, [0, 1]]]


class ThroughView(nn.Module):
    """A view between the convolutions: its kernel takes NCHW only, so the tensors it touches stay NCHW."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(2, 4, 3, padding=1), nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        y = self.a(x).reshape(1, 4, 5, 6)
        return self.b(y) + 1.0


def test_tensors_a_layout_blind_kernel_touches_stay_nchw():
    calls, _ = _orders(ThroughView(), (1, 2, 6, 5))
    convs = [orders for op, orders in calls if op == "aten::convolution.out"]
    assert convs[0] == [[0, 1, 2, 3], [0, 1, 2, 3]]  # its out feeds the view
    assert convs[1] == [[0, 1, 2, 3], NHWC]  # its out feeds only the add (the method's output is the add's)


def test_no_overlap_keeps_every_tensor_nchw():
    calls, _ = _orders(Chain(), (1, 3, 6, 5), overlap=False)
    assert all(o == list(range(len(o))) for _, orders in calls for o in orders)


def test_transposed_convolution_stays_nchw():
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.ConvTranspose2d(4, 4, 2, stride=2), nn.ReLU())
    calls, _ = _orders(model, (1, 3, 4, 4))
    assert all(o == [0, 1, 2, 3] for op, orders in calls for o in orders if op != "aten::convolution.out" or o)
    transposed = [orders for op, orders in calls if op == "aten::convolution.out"][1]
    assert transposed == [[0, 1, 2, 3], [0, 1, 2, 3]]


@pytest.mark.slow
def test_report_counts_the_channels_last_tensors():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 6, 5)
    on = mcu_export.api.export(Chain().eval(), (x,)).report["memory"]["channels_last_tensors"]
    off = mcu_export.api.export(Chain().eval(), (x,), overlap=False).report["memory"]["channels_last_tensors"]
    assert (on, off) == (6, 0)  # each conv's out, relu's, sigmoid's, the product's
