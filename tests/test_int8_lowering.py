"""int8 lowering: small models through quantize → cortex_m kernels → run_reference, against fp32 torch
(cosine) and against the fake-quantized torch model (the convert_pt2e output, within 1 LSB); the
programs' op names and argument counts against ExecuTorch's operators.yaml; fallbacks; layouts."""

import re
from pathlib import Path

import executorch
import numpy as np
import pytest
import torch
from torch import nn

from mcu_export.boards import load_board
from mcu_export.int8.interpreter import run_reference
from mcu_export.int8.interpreter_ops import dequantize_per_tensor, quantize_per_tensor
from mcu_export.int8.lower import match
from mcu_export.int8.pipeline import to_int8_program
from mcu_export.ops.table import BY_QUALIFIED

OPERATORS_YAML = Path(list(executorch.__path__)[0]) / "backends" / "cortex_m" / "ops" / "operators.yaml"


class ConvRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class Depthwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 8, 3, padding=1, groups=4)  # channel multiplier 2

    def forward(self, x):
        return nn.functional.relu6(self.dw(x))


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Add(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 4, 1)
        self.b = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.a(x) + self.b(x)) - self.a(x)


class AvgPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3)

    def forward(self, x):
        y = nn.functional.avg_pool2d(self.conv(x), 2, stride=2)
        return nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)


class MaxPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x):
        return nn.functional.max_pool2d(self.conv(x), 3, stride=2, padding=1)


class Softmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 12)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


class SigmoidMul(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 5, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return torch.sigmoid(y) * torch.tanh(y) + nn.functional.hardswish(y)


class PadCatPermute(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = nn.functional.pad(self.conv(x), (1, 1, 0, 2))
        z = torch.cat([y, y * 0.5], dim=1)
        return z.permute(0, 2, 3, 1)


class PoolFlattenLinear(nn.Module):
    """DS-CNN's head: global pooling to [N, C, 1, 1], flatten, linear."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        return self.fc(nn.functional.adaptive_avg_pool2d(torch.relu(self.conv(x)), 1).flatten(1))


CASES = {
    "conv_relu": (ConvRelu, (1, 3, 10, 10), "cortex_m::quantized_conv2d.out"),
    "depthwise": (Depthwise, (1, 4, 7, 7), "cortex_m::quantized_depthwise_conv2d.out"),
    "linear": (Linear, (3, 24), "cortex_m::quantized_linear.out"),
    "add": (Add, (1, 4, 6, 6), "cortex_m::quantized_add.out"),
    "avgpool": (AvgPool, (1, 3, 10, 10), "cortex_m::quantized_avg_pool2d.out"),
    "maxpool": (MaxPool, (1, 3, 9, 9), "cortex_m::quantized_max_pool2d.out"),
    "softmax": (Softmax, (2, 16), "cortex_m::softmax.out"),
    "sigmoid_lut": (SigmoidMul, (1, 3, 6, 6), "cortex_m::quantized_activation.out"),
    "pad_cat_permute": (PadCatPermute, (1, 3, 7, 7), "cortex_m::pad.out"),
    "pool_flatten_linear": (PoolFlattenLinear, (2, 3, 6, 6), "cortex_m::quantized_linear.out"),
}


def _data(shape, n, seed):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randn(shape, generator=gen),) for _ in range(n)]


def _output_scale(quantized) -> float:
    out = next(n for n in quantized.ep.graph_module.graph.nodes if n.op == "output").args[0][0]
    return match.qparams(out).scale


@pytest.fixture(scope="module", params=sorted(CASES))
def lowered(request):
    cls, shape, expected_op = CASES[request.param]
    torch.manual_seed(7)
    model = cls().eval()
    calib = _data(shape, 8, 1)
    program, info, plan, quantized = to_int8_program(model, calib[0], calibrate=calib)
    return request.param, model, program, info, quantized, shape, expected_op


def _ops(program):
    return [
        program.execution_plan[0].operators[i.op_index].qualified
        for i in program.execution_plan[0].chains[0].instructions
    ]


@pytest.mark.slow
def test_expected_int8_kernel_and_no_fallback(lowered):
    name, _model, program, info, _q, _shape, expected_op = lowered
    assert expected_op in _ops(program)
    assert info.fallbacks == []
    assert not any(
        op.startswith("aten::") and op not in ("aten::view_copy.out", "aten::cat.out") for op in _ops(program)
    ), _ops(program)


@pytest.mark.slow
def test_close_to_float_and_equal_to_fake_quant(lowered):
    name, model, program, _info, quantized, shape, _op = lowered
    scale = _output_scale(quantized)
    diffs, cosines = [], []
    for (x,) in _data(shape, 6, 2):
        ours = run_reference(program, [x])[0]
        fake = quantized.converted(x).detach().numpy()
        ref = model(x).detach().numpy()
        assert ours.shape == ref.shape and ours.dtype == np.float32
        diffs.append(np.abs(ours - fake).reshape(-1) / scale)
        cosines.append(float(np.dot(ours.ravel(), ref.ravel()) / (np.linalg.norm(ours) * np.linalg.norm(ref) + 1e-12)))
    lsb = np.concatenate(diffs)
    assert min(cosines) > 0.99, (name, cosines)
    assert np.mean(lsb <= 1.0 + 1e-3) > 0.99, (name, np.max(lsb))


@pytest.mark.slow
def test_host_c_runtime_equals_reference_bit_for_bit(lowered):
    from mcu_export.pte.writer import write_program
    from mcu_export.runners import run_program_bytes

    name, _model, program, _info, _q, shape, _op = lowered
    pte_bytes = write_program(program)
    for (x,) in _data(shape, 2, 9):
        ours = run_reference(program, [x])[0]
        theirs = run_program_bytes(pte_bytes, [x.numpy()], board="host")[0]
        assert np.array_equal(np.asarray(theirs).view(np.uint32), ours.view(np.uint32)), name


def _yaml_schemas():
    text = OPERATORS_YAML.read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r"- func: (cortex_m::\w+\.out)\((.*)\) -> ", text)}


@pytest.mark.slow
def test_op_names_and_argument_counts_follow_operators_yaml(lowered):
    _name, _model, program, _info, _q, _shape, _op = lowered
    schemas = _yaml_schemas()
    plan = program.execution_plan[0]
    for instr in plan.chains[0].instructions:
        op = plan.operators[instr.op_index].qualified
        if not op.startswith("cortex_m::"):
            continue
        assert op in schemas, op
        n_args = len([a for a in schemas[op].split(",") if a.strip() and a.strip() != "*"])
        assert len(instr.args) == n_args + 1, (op, len(instr.args), n_args)  # + the returned out


@pytest.mark.slow
def test_flatten_before_linear_is_no_copy():
    """quantized_linear reads the pooled [N, C, 1, 1] tensor as [N, C] rows: no view_copy, nor its kernel
    (the pool_flatten_linear case above checks the numbers, on the host C runtime too)."""
    torch.manual_seed(7)
    calib = _data((2, 3, 6, 6), 4, 1)
    program, info, _plan, _q = to_int8_program(PoolFlattenLinear().eval(), calib[0], calibrate=calib)
    plan = program.execution_plan[0]
    assert [op.qualified for op in plan.operators if op.qualified.startswith("aten::")] == []
    linear = next(
        i
        for i in plan.chains[0].instructions
        if plan.operators[i.op_index].qualified == "cortex_m::quantized_linear.out"
    )
    assert list(plan.values[linear.args[0]].sizes) == [2, 8, 1, 1]
    assert [i.index for i in info.instructions] == list(range(len(plan.chains[0].instructions)))


@pytest.mark.slow
def test_conv_activations_are_channels_last(lowered):
    name, _model, program, _info, _q, _shape, _op = lowered
    plan = program.execution_plan[0]
    for instr in plan.chains[0].instructions:
        op = plan.operators[instr.op_index].qualified
        if op in (
            "cortex_m::quantized_conv2d.out",
            "cortex_m::quantized_depthwise_conv2d.out",
            "cortex_m::quantized_max_pool2d.out",
            "cortex_m::quantized_avg_pool2d.out",
        ):
            for t in (plan.values[instr.args[0]], plan.values[instr.args[-1]]):
                # NHWC bytes: channels-last, or contiguous where that is the same bytes (C == 1, H == W == 1)
                nhwc = t.dim_order == [0, 2, 3, 1]
                same = t.dim_order == [0, 1, 2, 3] and (t.sizes[1] == 1 or t.sizes[2] == t.sizes[3] == 1)
                assert nhwc != same, (op, t.sizes, t.dim_order)  # contiguous exactly when no byte would move
    for i in plan.inputs + plan.outputs:
        assert plan.values[i].dim_order == list(range(len(plan.values[i].sizes)))


class WithChannelSoftmax(nn.Module):  # softmax over C of NCHW: the int8 kernel runs over the last dim only
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)

    def forward(self, x):
        return torch.softmax(self.conv(x), dim=1)


@pytest.mark.slow
def test_op_without_int8_kernel_falls_back_and_is_reported():
    model = WithChannelSoftmax().eval()
    calib = _data((1, 2, 5, 5), 4, 3)
    program, info, _plan, quantized = to_int8_program(model, calib[0], calibrate=calib)
    ops = _ops(program)
    assert "aten::_softmax.out" in ops and "cortex_m::quantized_conv2d.out" in ops
    reported = {f["op"] for f in info.fallbacks}
    assert "aten._softmax.default" in reported
    div = next(f for f in info.fallbacks if f["op"] == "aten._softmax.default")
    assert div["reason"] and div["location"] and "test_int8_lowering.py" in div["location"]
    x = _data((1, 2, 5, 5), 1, 4)[0][0]
    ours = run_reference(program, [x])[0]
    fake = quantized.converted(x).detach().numpy()
    assert np.mean(np.abs(ours - fake) <= _output_scale(quantized) * 1.001) > 0.99


@pytest.mark.slow
def test_per_channel_linear_option():
    torch.manual_seed(3)
    model = Linear().eval()
    calib = _data((3, 24), 4, 5)
    program, _info, _plan, quantized = to_int8_program(model, calib[0], calibrate=calib, per_channel_linear=True)
    plan = program.execution_plan[0]
    call = next(
        i
        for i in plan.chains[0].instructions
        if plan.operators[i.op_index].qualified == "cortex_m::quantized_linear.out"
    )
    assert len(plan.values[call.args[7]].items) == 10
    x = calib[1][0]
    ours = run_reference(program, [x])[0]
    assert np.max(np.abs(ours - quantized.converted(x).detach().numpy())) <= _output_scale(quantized) * 1.001


def test_boundary_quantize_dequantize_bit_exact_with_torch():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(4096, generator=gen) * 3
    scale, zp = 0.0237, -7
    want = torch.ops.quantized_decomposed.quantize_per_tensor(x, scale, zp, -128, 127, torch.int8)
    got = quantize_per_tensor(dict(input=x.numpy(), scale=scale, zero_point=zp, quant_min=-128, quant_max=127), None)
    assert np.array_equal(got, want.numpy())
    back = torch.ops.quantized_decomposed.dequantize_per_tensor(want, scale, zp, -128, 127, torch.int8)
    got_back = dequantize_per_tensor(dict(input=want.numpy(), scale=scale, zero_point=zp), None)
    assert np.array_equal(got_back, back.numpy())


@pytest.mark.slow
def test_scratch_sized_for_target():
    from mcu_export.int8.lower.scratch import conv_scratch, depthwise_scratch

    # arm_convolve_s8: 4 * round_up(kh*kw*c_in, 4) (DSP/scalar), 4 * round_up(kh*kw*c_in, 16) (MVE)
    assert conv_scratch("dsp", (1, 8, 8, 3), (8, 3, 3, 3), (1, 8, 8, 8), (1, 1), (1, 1), (1, 1)) == 4 * 28
    assert conv_scratch("mve", (1, 8, 8, 3), (8, 3, 3, 3), (1, 8, 8, 8), (1, 1), (1, 1), (1, 1)) == 4 * 32
    assert conv_scratch("mve", (1, 8, 8, 3), (8, 1, 1, 3), (1, 8, 8, 8), (1, 1), (0, 0), (1, 1)) == 0
    assert depthwise_scratch("dsp", (1, 8, 8, 16), (5, 5), (1, 8, 8, 16), (1, 1), (2, 2), (1, 1)) == 16 * 25 * 2
    model = ConvRelu().eval()
    calib = _data((1, 3, 10, 10), 2, 1)
    sizes = {}
    conv = BY_QUALIFIED["cortex_m::quantized_conv2d.out"]
    for board in ("corstone-300", "mps2-an505", None):  # MVE (M55), DSP (M33), every ISA
        program, *_ = to_int8_program(model, calib[0], calibrate=calib, board=board and load_board(board))
        plan = program.execution_plan[0]
        call = next(i for i in plan.chains[0].instructions if plan.operators[i.op_index].qualified == conv.qualified)
        sizes[board] = plan.values[call.args[conv.arg_index("scratch")]].sizes[0]
    assert sizes == {"corstone-300": 4 * 32, "mps2-an505": 4 * 28, None: 4 * 32}


class QatNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).flatten(1))


@pytest.mark.slow
def test_qat_convert_searches_only_the_convolutions_the_graph_has(monkeypatch):
    """torchao's QAT conv+BN folding traces 24 patterns per kind of convolution, four kinds (~10 s a kind);
    convert_qat searches the kinds the graph calls: conv2d here (graph and outputs otherwise as torchao's,
    measured: 85 s -> 18 s on a loaded 2-core machine)."""
    from torchao.quantization.pt2e import move_exported_model_to_eval, qat_utils

    from mcu_export.api import prepare_qat
    from mcu_export.int8.convert import convert_qat

    searched = []  # the search itself, stubbed: what matters here is which kinds it is asked for
    stub = lambda m, fn, *a, **k: searched.append(fn) or m  # noqa: E731
    monkeypatch.setattr(qat_utils, "_fold_conv_bn_qat_helper", stub)
    data = _data((2, 3, 6, 6), 1, 8)
    prepared = prepare_qat(QatNet().train(), data[0])
    move_exported_model_to_eval(prepared)
    convert_qat(prepared)
    assert searched == [torch.nn.functional.conv2d]
    assert qat_utils._fold_conv_bn_qat_helper is stub  # put back after the call


@pytest.mark.slow
def test_qat_prepare_train_export():
    from mcu_export.api import export_qat, prepare_qat

    torch.manual_seed(0)
    data = _data((2, 3, 6, 6), 6, 8)
    prepared = prepare_qat(QatNet().train(), data[0])
    opt = torch.optim.SGD(prepared.parameters(), lr=0.01)
    for (x,) in data:
        loss = prepared(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    artifact = export_qat(prepared, data[0])
    ops = set(artifact.report["ops"])
    assert {"cortex_m::quantized_conv2d.out", "cortex_m::quantized_linear.out"} <= ops
    assert artifact.report["int8"]["fallbacks"] == []
    x = data[1][0]
    ours = run_reference(artifact.program, [x])[0]
    fake = prepared(x).detach().numpy()  # converted in place: the fake-quantized model
    assert np.mean(np.abs(ours - fake) <= np.abs(fake).max() / 100 + 1e-6) > 0.99
