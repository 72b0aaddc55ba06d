"""Small models built on the data-movement and simple ops (issue 11), exported and run by the C runtime:
fp32 against torch (GRU/LSTM unrolls, multi-head attention and its fully-masked-row guard, PReLU, chunk,
narrow, embedding); int8 bit-exact with the int8 interpreter, the data-movement ops staying int8 (no
fallback); the int8 export of a view after a transpose (channel shuffle, permute → flatten, attention),
which calibration used to crash on; and one firmware run on QEMU covering the new kernels."""

import shutil
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import front_models as fm
from mcu_export import api
from mcu_export.int8.interpreter import run_reference

# Whole-model exports and runs; the kernels themselves are checked in the fast tier (test_kernels_fp32_shape.py).
pytestmark = pytest.mark.slow


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


class GruClassifier(nn.Module):
    """nn.GRU unrolls into slice, split_with_sizes (getitem), select; its zero state is a full."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 12, batch_first=True)
        self.head = nn.Linear(12, 3)

    def forward(self, x):
        return self.head(self.gru(x)[0][:, -1])


class LstmClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 10, num_layers=2, batch_first=True)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return out[:, -1], h[-1]


class Attention(nn.Module):
    """nn.MultiheadAttention: select/expand/clone around the heads, and the guard of a fully masked row
    (eq, logical_not, any, full_like, where) around the softmax."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


class TokenAttention(nn.Module):
    """A key-padding mask from int64 token ids (eq.Scalar on integers) into attention; a row of only padding."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, tokens):
        x = self.embed(tokens)
        return self.mha(x, x, x, key_padding_mask=tokens == 0, need_weights=False)[0], tokens >= 5


class Sdpa(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


class SdpaMasked(nn.Module):
    """A boolean mask with a fully masked row: the guard's where gives that row zeros, as torch does."""

    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


FULLY_MASKED_ROW = torch.tensor([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]], dtype=torch.bool)


class PreluNarrow(nn.Module):
    """PReLU (gt.Scalar, where, mul), narrow, chunk, abs/neg/minimum/maximum, sum (some dims, all), embedding."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.prelu = nn.PReLU(6, init=0.2)
        self.embed = nn.Embedding(7, 4)

    def forward(self, x, tokens):
        y = self.prelu(self.conv(x))
        a, b = y.chunk(2, dim=1)
        c = y.narrow(1, 2, 3)
        d = torch.maximum(a.abs(), -b) + torch.minimum(c, b)
        return d.sum(dim=(2, 3)) - d.sum(), self.embed(tokens).sum(-1, keepdim=True)


FP32_MODELS = {
    "gru": (GruClassifier, lambda: (torch.randn(2, 5, 8, generator=_gen()),)),
    "lstm": (LstmClassifier, lambda: (torch.randn(1, 4, 6, generator=_gen()),)),
    "mha": (Attention, lambda: (torch.randn(1, 5, 16, generator=_gen()),)),
    "sdpa": (Sdpa, lambda: tuple(torch.randn(1, 2, 4, 8, generator=_gen(i)) for i in range(3))),
    "token_attention": (TokenAttention, lambda: (torch.tensor([[1, 5, 0, 0], [3, 9, 2, 0]]),)),
    "sdpa_masked": (
        SdpaMasked,
        lambda: tuple(torch.randn(1, 2, 4, 8, generator=_gen(i)) for i in range(3)) + (FULLY_MASKED_ROW,),
    ),
    "prelu_narrow": (
        PreluNarrow,
        lambda: (torch.randn(1, 3, 5, 5, generator=_gen()), torch.randint(0, 7, (2, 3), generator=_gen())),
    ),
    "slicing": (fm.Slicing, lambda: fm.inputs_for(fm.Slicing())),
}


def _export(model, inputs, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nn.GRU's flat weights assigned during export, int8 fallbacks
        return api.export(model, inputs, **kwargs)


@pytest.mark.parametrize("name", sorted(FP32_MODELS))
def test_fp32_model_runs_on_the_host_runtime_like_torch(name):
    cls, make_inputs = FP32_MODELS[name]
    torch.manual_seed(0)
    model, inputs = cls().eval(), make_inputs()
    artifact = _export(model, inputs)
    with torch.no_grad():
        want = model(*inputs)
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    got = artifact.run(*inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.numpy().dtype and g.shape == tuple(w.shape)
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


def test_attention_guard_is_lowered_to_its_kernels():
    """No pass removes the fully-masked-row guard: its ops run as kernels (they matter once a mask is given)."""
    artifact = _export(Attention().eval(), FP32_MODELS["mha"][1]())
    ops = artifact.report["ops"]
    for op in ("aten::eq.Scalar_out", "aten::logical_not.out", "aten::any.out", "aten::full_like.out"):
        assert op in ops, op
    assert "aten::where.self_out" in ops


# --- int8 ------------------------------------------------------------------------------------------

DATA_MOVEMENT = {
    "aten.slice.Tensor",
    "aten.select.int",
    "aten.split_with_sizes.default",
    "aten.expand.default",
    "aten.clone.default",
    "aten.squeeze.dims",
    "aten.unsqueeze.default",
    "aten.view.default",
    "aten.permute.default",
    "aten.cat.default",
}


class DataMovement(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(36 + 144, 5)

    def forward(self, x):
        y = self.conv(x)  # [1, 8, 6, 6]
        a, b = torch.split(y, [4, 4], dim=1)
        p = a[:, 1:3, ::2, -99:].flatten(1)  # [1, 36]
        q = b.select(2, -1).unsqueeze(2).expand(1, 4, 6, 6)  # [1, 4, 6, 6]
        return self.fc(torch.cat([p, q.flatten(1)], 1))


class ChannelShuffle(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        x = self.conv(x)
        n, c, h, w = x.shape
        return x.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)


class PermuteFlatten(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)
        self.fc = nn.Linear(64, 3)

    def forward(self, x):
        return self.fc(self.conv(x).permute(0, 2, 3, 1).flatten(1))


INT8_MODELS = {
    "data_movement": (DataMovement, (1, 3, 6, 6)),
    "channel_shuffle": (ChannelShuffle, (1, 4, 4, 4)),
    "permute_flatten": (PermuteFlatten, (1, 4, 4, 4)),
}


@pytest.mark.parametrize("name", sorted(INT8_MODELS))
def test_int8_data_movement_stays_int8_and_matches_the_reference(name):
    cls, shape = INT8_MODELS[name]
    torch.manual_seed(0)
    model = cls().eval()
    calib = [(torch.randn(shape, generator=_gen(i)),) for i in range(8)]
    artifact = _export(model, calib[0], quantize="int8", calibrate=lambda: iter(calib))
    fallbacks = [f["op"] for f in artifact.report["int8"]["fallbacks"]]
    assert not set(fallbacks) & DATA_MOVEMENT, fallbacks
    if name == "data_movement":
        for op in ("aten::slice_copy.Tensor_out", "aten::select_copy.int_out", "aten::split_with_sizes_copy.out"):
            assert op in artifact.report["ops"], op
    # the copies read and write int8 tensors: no dequantize before any of them
    plan = artifact.program.method()
    for instr in plan.chains[0].instructions:
        op = plan.operators[instr.op_index].qualified
        if op.startswith(("aten::slice_copy", "aten::select_copy", "aten::split_with_sizes", "aten::expand_copy")):
            assert plan.values[instr.args[0]].scalar_type == 1, op  # CHAR: int8
    x = torch.randn(shape, generator=_gen(99))
    np.testing.assert_array_equal(artifact.run(x)[0], run_reference(artifact.program, [x])[0])
    # and the int8 program still computes the model (quantization tolerance)
    with torch.no_grad():
        want = model(x).numpy()
    assert np.abs(artifact.run(x)[0] - want).max() <= 0.1 * np.abs(want).max() + 0.05


def test_int8_attention_exports_and_matches_the_reference():
    """nn.MultiheadAttention: views after transposes (the calibration crash), and the guard in fp32."""
    torch.manual_seed(0)
    model = Attention().eval()
    calib = [(torch.randn(1, 5, 16, generator=_gen(i)),) for i in range(4)]
    artifact = _export(model, calib[0], quantize="int8", calibrate=lambda: iter(calib))
    x = torch.randn(1, 5, 16, generator=_gen(50))
    np.testing.assert_array_equal(artifact.run(x)[0], run_reference(artifact.program, [x])[0])


# --- firmware --------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
)
def test_new_kernels_on_corstone_300_match_the_host(tmp_path):
    from mcu_export.firmware.model_project import build_model_firmware
    from mcu_export.runners import run_model_firmware

    model, inputs = fm.make(fm.Slicing)
    artifact = _export(model, inputs)
    build = build_model_firmware(artifact.save(tmp_path / "out"), "corstone-300", model=artifact)
    run = run_model_firmware(build, "corstone-300", [x.numpy() for x in inputs])
    for device, host in zip(run.outputs, artifact.run(*inputs)):
        np.testing.assert_array_equal(device, host)
    with torch.no_grad():
        want = model(*inputs)
    for device, w in zip(run.outputs, want):
        np.testing.assert_allclose(device, w.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.slow
@pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
)
def test_int8_copies_on_corstone_300_match_the_reference(tmp_path):
    """The any-dtype copies on int8 bytes beside the CMSIS-NN kernels (MVE), bit for bit."""
    from mcu_export.firmware.model_project import build_model_firmware
    from mcu_export.runners import run_model_firmware

    torch.manual_seed(0)
    model = DataMovement().eval()
    calib = [(torch.randn(1, 3, 6, 6, generator=_gen(i)),) for i in range(8)]
    artifact = _export(
        model, calib[0], quantize="int8", calibrate=lambda: iter(calib), board="corstone-300", backend="cortex-m"
    )
    x = torch.randn(1, 3, 6, 6, generator=_gen(7))
    build = build_model_firmware(artifact.save(tmp_path / "out"), "corstone-300", model=artifact)
    run = run_model_firmware(build, "corstone-300", [x.numpy()])
    np.testing.assert_array_equal(run.outputs[0], run_reference(artifact.program, [x])[0])
