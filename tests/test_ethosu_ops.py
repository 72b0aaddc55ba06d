"""Every operator the NPU path lowers, over random shapes (hypothesis): the one-operator model goes to the NPU
(or stays on the CPU with a reason the capability checks give), and its program with the delegate on TOSA's
reference model equals the CPU-only program bit for bit on random and saturating inputs."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn

from ethosu_flow import calibration, inputs_for, lower, run_both  # tests/support
from mcu_export.int8.prepare import quantize

pytest.importorskip("tosa_serializer")
pytestmark = pytest.mark.slow
ACCELERATORS = st.sampled_from(["ethos-u55-128", "ethos-u65-256", "ethos-u85-256"])
# Four shapes a test a run (each is a quantize, two lowerings and four simulator runs, ~4 s): the draws differ from
# run to run, so CI covers more of the space over time than any one run's six did (263 s of the suite).
EXAMPLES = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Fn(nn.Module):
    """A model of one function of its inputs (and the modules it is given)."""

    def __init__(self, fn, **modules):
        super().__init__()
        self.fn = fn
        for name, module in modules.items():
            setattr(self, name, module)

    def forward(self, *xs):
        return self.fn(self, *xs)


def check(model, shapes, accelerator):
    inputs = tuple(torch.randn(s, generator=torch.Generator().manual_seed(1)) for s in shapes)
    quantized = quantize(model.eval(), inputs, calibration(inputs, batches=2))
    cpu, _ = lower(quantized, "cortex-m")
    program, info = lower(quantized, accelerator)
    parts = info.partitions
    kept = [c for c in parts["cpu"] if not c["op"].startswith(("cortex_m::quantize_per", "cortex_m::dequantize"))]
    assert all(c["reason"] for c in kept)
    for seed, kind in enumerate(("random", "saturating")):
        run_both(cpu, program, info.npu_graphs, inputs_for(cpu, [list(s) for s in shapes], kind, seed))
    return parts, kept


def _on_npu(parts, kept, op):
    assert not kept, kept
    assert any(op in s["operators"] for s in parts["subgraphs"]), parts


@st.composite
def windows(draw, max_kernel=4):
    h, w = draw(st.integers(3, 12)), draw(st.integers(3, 12))
    kh, kw = draw(st.integers(1, min(max_kernel, h))), draw(st.integers(1, min(max_kernel, w)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    pad = (draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2)))
    return h, w, (kh, kw), stride, pad


@EXAMPLES
@given(windows(), st.integers(1, 8), st.integers(1, 8), st.booleans(), st.sampled_from([1, 2]), ACCELERATORS)
def test_conv(window, c_in, c_out, relu, dilation, accelerator):
    h, w, kernel, stride, pad = window
    if (kernel[0] - 1) * dilation + 1 > h + 2 * pad[0] or (kernel[1] - 1) * dilation + 1 > w + 2 * pad[1]:
        dilation = 1
    conv = nn.Conv2d(c_in, c_out, kernel, stride, pad, dilation=dilation)
    model = Fn(lambda m, x: F.relu(m.conv(x)) if relu else m.conv(x), conv=conv)
    parts, kept = check(model, [(1, c_in, h, w)], accelerator)
    _on_npu(parts, kept, "cortex_m::quantized_conv2d.out")


@EXAMPLES
@given(windows(), st.integers(2, 8), st.sampled_from([1, 2]), ACCELERATORS)
def test_depthwise(window, channels, multiplier, accelerator):
    h, w, kernel, stride, pad = window
    conv = nn.Conv2d(channels, channels * multiplier, kernel, stride, pad, groups=channels)
    parts, kept = check(Fn(lambda m, x: F.relu6(m.conv(x)), conv=conv), [(1, channels, h, w)], accelerator)
    _on_npu(parts, kept, "cortex_m::quantized_depthwise_conv2d.out")


@EXAMPLES
@given(st.integers(1, 64), st.integers(1, 32), st.booleans(), ACCELERATORS)
def test_linear(depth, out, bias, accelerator):
    fc = nn.Linear(depth, out, bias=bias)
    parts, kept = check(Fn(lambda m, x: m.fc(x), fc=fc), [(1, depth)], accelerator)
    _on_npu(parts, kept, "cortex_m::quantized_linear.out")


@EXAMPLES
@given(windows(max_kernel=3), st.integers(1, 8), st.sampled_from(["max", "avg"]), ACCELERATORS)
def test_pool(window, channels, kind, accelerator):
    h, w, kernel, stride, pad = window
    if kind == "max":
        pool = nn.MaxPool2d(kernel, stride, pad)
    else:
        pool = nn.AvgPool2d(kernel, stride, pad, count_include_pad=False)
    conv = nn.Conv2d(channels, channels, 1)  # gives the pool a channels-last int8 input, as in a network
    parts, kept = check(Fn(lambda m, x: m.pool(m.conv(x)), conv=conv, pool=pool), [(1, channels, h, w)], accelerator)
    _on_npu(parts, kept, f"cortex_m::quantized_{kind}_pool2d.out")


@EXAMPLES
@given(st.lists(st.integers(1, 6), min_size=2, max_size=4), st.sampled_from(["add", "sub", "mul"]), ACCELERATORS)
def test_elementwise(shape, kind, accelerator):
    fn = {"add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b}[kind]
    parts, kept = check(Fn(fn), [tuple(shape), tuple(shape)], accelerator)
    _on_npu(parts, kept, "cortex_m::quantized_mul.out" if kind == "mul" else "cortex_m::quantized_add.out")


@EXAMPLES
@given(st.lists(st.integers(1, 6), min_size=2, max_size=4), st.sampled_from(["sigmoid", "tanh", "hardswish"]),
       ACCELERATORS)  # fmt: skip
def test_lookup_table_activation(shape, kind, accelerator):
    fn = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "hardswish": F.hardswish}[kind]
    conv = nn.Linear(shape[-1], shape[-1])  # an int8 producer, so that the activation is a table between int8 values
    parts, kept = check(Fn(lambda m, x: fn(m.fc(x)), fc=conv), [tuple(shape)], accelerator)
    _on_npu(parts, kept, "cortex_m::quantized_activation.out")


@EXAMPLES
@given(st.integers(1, 6), st.integers(2, 8), st.integers(2, 8), st.lists(st.integers(0, 2), min_size=4, max_size=4),
       ACCELERATORS)  # fmt: skip
def test_pad(c, h, w, amounts, accelerator):
    conv = nn.Conv2d(c, c, 1)
    model = Fn(lambda m, x: m.conv(F.pad(m.conv(x), tuple(amounts))), conv=conv)
    parts, kept = check(model, [(1, c, h, w)], accelerator)
    _on_npu(parts, kept, "cortex_m::pad.out")


@EXAMPLES
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(0, 2), ACCELERATORS)
def test_cat_and_permute(a, b, c, dim, accelerator):
    fc = nn.Linear(c, c)
    model = Fn(lambda m, x, y: torch.cat([m.fc(x), m.fc(y)], dim).permute(2, 0, 1), fc=fc)
    parts, kept = check(model, [(a, b, c), (a, b, c)], accelerator)
    _on_npu(parts, kept, "aten::cat.out")


@EXAMPLES
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.integers(1, 40), ACCELERATORS)
def test_softmax(outer, row, accelerator):
    fc = nn.Linear(row, row)
    parts, kept = check(Fn(lambda m, x: torch.softmax(m.fc(x), dim=-1), fc=fc), [(*outer, row)], accelerator)
    _on_npu(parts, kept, "cortex_m::softmax.out")
