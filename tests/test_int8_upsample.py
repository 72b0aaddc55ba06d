"""int8 nearest upsampling: the portable kernel moves the quantized bytes (the output shares the input's scale and
zero point). The Python reference is held to torch's own float operator; the program on the host C runtime is
bit for bit the int8 interpreter's, and within a quantization step of PT2E's fake-quantized model."""

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from mcu_export.int8.interpreter import run_reference
from mcu_export.int8.lower import match
from mcu_export.int8.pipeline import to_int8_program
from mcu_export.int8.reference.resize import upsample_nearest2d
from mcu_export.pte.writer import write_program
from mcu_export.runners import run_program_bytes
from tiers import fast_first

NEAREST = "aten::upsample_nearest2d.vec_out"


@pytest.mark.parametrize(
    "shape, output_size, scale_factors",
    [
        ((2, 3, 4, 5), None, [2.0, 2.0]),
        ((1, 2, 5, 5), None, [1.7, 0.6]),
        ((1, 1, 3, 7), None, [3.0, 1.0]),
        ((1, 2, 4, 4), [7, 9], None),
        ((1, 2, 6, 6), [3, 4], None),
    ],
)
def test_reference_is_torch_nearest(shape, output_size, scale_factors):
    x = torch.randn(shape)
    want = torch.ops.aten.upsample_nearest2d.vec(x, output_size, scale_factors).numpy()
    assert np.array_equal(upsample_nearest2d(x.numpy(), output_size, scale_factors), want)
    # and on int8 bytes, which torch has no kernel for: the same gather
    q = torch.randint(-128, 128, shape, dtype=torch.int8)
    got = upsample_nearest2d(q.numpy(), output_size, scale_factors)
    assert got.dtype == np.int8
    assert np.array_equal(
        got.astype(np.float32), torch.ops.aten.upsample_nearest2d.vec(q.float(), output_size, scale_factors).numpy()
    )


class UpNet(nn.Module):
    def __init__(self, up):
        super().__init__()
        self.conv1, self.conv2, self.up = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(6, 4, 3, padding=1), up

    def forward(self, x):
        return self.conv2(self.up(F.relu(self.conv1(x))))


UPSAMPLERS = {
    "x2": lambda x: F.interpolate(x, scale_factor=2.0),
    "fractional": lambda x: F.interpolate(x, scale_factor=(1.5, 0.75)),
    "size": lambda x: F.interpolate(x, size=(7, 11)),
}


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


@pytest.fixture(scope="module", params=fast_first(sorted(UPSAMPLERS), keep=2))
def lowered(request):
    torch.manual_seed(3)
    model = UpNet(Fn(UPSAMPLERS[request.param])).eval()
    gen = torch.Generator().manual_seed(5)
    calib = [(torch.randn(1, 3, 6, 8, generator=gen),) for _ in range(8)]
    program, info, _plan, quantized = to_int8_program(model, calib[0], calibrate=calib)
    return model, program, info, quantized


def _ops(program):
    plan = program.execution_plan[0]
    return [plan.operators[i.op_index].qualified for i in plan.chains[0].instructions]


def test_upsample_stays_int8(lowered):
    _model, program, info, _q = lowered
    assert info.fallbacks == []
    assert NEAREST in _ops(program)
    plan = program.execution_plan[0]
    call = next(i for i in plan.chains[0].instructions if plan.operators[i.op_index].qualified == NEAREST)
    assert plan.values[call.args[0]].scalar_type == plan.values[call.args[-1]].scalar_type == 1  # int8 in and out


def test_host_c_equals_reference_and_fake_quant(lowered):
    _model, program, _info, quantized = lowered
    out = next(n for n in quantized.ep.graph_module.graph.nodes if n.op == "output").args[0][0]
    scale = match.qparams(out).scale
    pte_bytes = write_program(program)
    gen = torch.Generator().manual_seed(9)
    for _ in range(3):
        x = torch.randn(1, 3, 6, 8, generator=gen)
        ours = run_reference(program, [x])[0]
        c_out = np.asarray(run_program_bytes(pte_bytes, [x.numpy()], board="host")[0])
        assert np.array_equal(c_out.view(np.uint32), ours.view(np.uint32))
        fake = quantized.converted(x).detach().numpy()
        assert np.mean(np.abs(ours - fake) <= scale * 1.001) > 0.99, np.abs(ours - fake).max() / scale
