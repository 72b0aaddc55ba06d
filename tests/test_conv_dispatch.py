"""Firmware links only the CMSIS-NN convolution variants a model runs (mcu_export/firmware/conv_dispatch.py),
and the int8 lowering emits no layout copy where channels-last and contiguous hold the same bytes."""

import re

import pytest
import torch

from mcu_export import examples
from mcu_export.api import export
from mcu_export.boards import load_board
from mcu_export.firmware.conv_dispatch import conv_variants, dw_path, dw_paths
from mcu_export.firmware.model_project import model_sources
from mcu_export.int8.lower.scratch import conv_kind, conv_scratch, depthwise_kind, depthwise_scratch
from mcu_export.model_spec import load_model
from toolchains import NEEDS_ARM_QEMU  # tests/support


@pytest.fixture(scope="module")
def kws():
    model, inputs = load_model(examples.spec("kws_dscnn"))
    gen = torch.Generator().manual_seed(3)
    calib = [(torch.randn(inputs[0].shape, generator=gen),) for _ in range(4)]
    return export(model, inputs, quantize="int8", calibrate=lambda: iter(calib))


@pytest.mark.slow
def test_kws_has_no_layout_copy(kws):
    # its input is 1x1x49x10 (C == 1) and its pooled features 1x64x1x1 (H == W == 1): NHWC bytes either way
    ops = {op.qualified for op in kws.program.method("forward").operators}
    assert "dim_order_ops::_to_dim_order_copy.out" not in ops


@pytest.mark.parametrize("isa, dw", [("mve", ["opt"]), ("dsp", ["3x3"]), ("scalar", ["3x3"])])
@pytest.mark.slow
def test_kws_variants_per_isa(kws, isa, dw):
    # first layer 10x4 stride 2 from one channel: general; pointwise 1x1 stride 1: fast; depthwise 3x3 pad 1
    assert conv_variants(kws.program.method("forward"), isa) == (["1x1_fast", "general"], dw)


@pytest.mark.parametrize("isa, paths", [("mve", ["runs"]), ("dsp", ["runs"]), ("scalar", ["pixels"])])
@pytest.mark.slow
def test_kws_depthwise_paths_per_isa(kws, isa, paths):
    assert dw_paths(kws.program.method("forward"), isa) == paths


def test_dw_path_follows_runs_fit():
    # twin of arm_nn_dw_conv_runs_fit: MVE wants 8 channels (a vector), DSP 2 and dilation 1 along x; 49 taps at most
    assert [dw_path("mve", c, (3, 3), 1) for c in (7, 8)] == ["pixels", "runs"]
    assert [dw_path("dsp", c, (3, 3), 1) for c in (1, 2)] == ["pixels", "runs"]
    assert dw_path("dsp", 16, (3, 3), 2) == "pixels" and dw_path("mve", 16, (3, 3), 2) == "runs"
    assert dw_path("mve", 16, (7, 7), 1) == "runs" and dw_path("mve", 16, (5, 10), 1) == "pixels"
    assert dw_path("scalar", 64, (3, 3), 1) == "pixels"


@pytest.mark.slow
def test_firmware_copies_only_the_chosen_variants(kws):
    files, include_dirs = model_sources(kws.program, kws.pte, load_board("corstone-300"))
    dispatch = files["model/mx_model_cmsis_nn.c"]
    called = set(re.findall(r"\b(arm_\w+)\s*\(", dispatch))
    assert called == {
        "arm_convolve_1x1_s8_fast",
        "arm_convolve_1x1_s8_fast_get_buffer_size",
        "arm_convolve_s8",
        "arm_convolve_s8_get_buffer_size",
        "arm_depthwise_conv_s8_opt_get_buffer_size",
        # our "opt" kernel is the channel-multiplier-1 body: its depthwise layers (64 channels, 3x3) take the runs
        "arm_nn_dw_conv_runs_fit",
        "arm_nn_dw_conv_ch_mult1_runs_s8",
        "arm_fully_connected_per_channel_s8",  # its classifier has a multiplier per class
    }
    copied = {p.rsplit("/", 1)[1] for p in files if p.startswith("cmsis_nn/src/")}
    for left_out in (
        "arm_convolve_wrapper_s8.c",
        "arm_depthwise_conv_wrapper_s8.c",
        "arm_convolve_1_x_n_s8.c",
        "arm_convolve_1x1_s8.c",
        "arm_depthwise_conv_3x3_s8.c",
        "arm_depthwise_conv_s8.c",
        "arm_fully_connected_s8.c",
    ):
        assert left_out not in copied
    assert {"arm_convolve_s8.c", "arm_convolve_1x1_s8_fast.c", "arm_nn_dw_conv_ch_mult1_runs_s8.c"} <= copied
    assert "arm_depthwise_conv_s8_opt.c" not in copied and "arm_nn_dw_conv_ch_mult1_s8.c" not in copied
    # the host definition (the wrappers) never goes into a firmware
    assert not any(p.endswith("mx_cm_conv_dispatch_wrappers.c") for p in files)
    assert "runtime/kernels/cortex_m/util/mx_cm_conv_dispatch.c" in files


SHAPES = [  # in NHWC, filter OHWI, out NHWC, stride, padding, dilation
    ((1, 8, 8, 4), (6, 1, 1, 4), (1, 8, 8, 6), (1, 1), (0, 0), (1, 1)),
    ((1, 8, 8, 4), (6, 1, 1, 4), (1, 4, 4, 6), (2, 2), (0, 0), (1, 1)),
    ((1, 1, 16, 4), (6, 1, 3, 4), (1, 1, 14, 6), (1, 1), (0, 0), (1, 1)),
    ((1, 1, 16, 3), (6, 1, 3, 3), (1, 1, 14, 6), (1, 1), (0, 0), (1, 1)),
    ((1, 8, 8, 4), (6, 3, 3, 2), (1, 6, 6, 6), (1, 1), (0, 0), (1, 1)),
    ((1, 8, 8, 4), (6, 3, 3, 4), (1, 8, 8, 6), (1, 1), (1, 1), (1, 1)),
]


@pytest.mark.parametrize("shape", SHAPES)
def test_conv_kind_follows_the_scratch_rules(shape):
    in_nhwc, f, out_nhwc, stride, padding, dilation = shape
    kind = conv_kind(in_nhwc, f, stride, padding, dilation)
    # the 1xN kernel wants stride * C_in % 4 == 0 (not so for C_in 3); grouped is always general
    assert kind == ["1x1_fast", "1x1", "1_x_n", "general", "general", "general"][SHAPES.index(shape)]
    for isa in ("scalar", "dsp", "mve"):
        assert (conv_scratch(isa, in_nhwc, f, out_nhwc, stride, padding, dilation) == 0) == kind.startswith("1x1")


@pytest.mark.parametrize("isa", ["scalar", "dsp", "mve"])
def test_depthwise_kind(isa):
    three = depthwise_kind(isa, (1, 8, 8, 4), (3, 3), (1, 8, 8, 4), 1, (1, 1), (1, 1))
    assert three == ("opt" if isa == "mve" else "3x3")
    assert depthwise_kind(isa, (1, 8, 8, 4), (5, 5), (1, 8, 8, 4), 1, (2, 2), (1, 1)) == "opt"
    assert depthwise_kind(isa, (1, 8, 8, 4), (3, 3), (1, 8, 8, 8), 2, (1, 1), (1, 1)) == "general"
    assert depthwise_kind(isa, (2, 8, 8, 4), (3, 3), (2, 8, 8, 4), 1, (1, 1), (1, 1)) == "general"
    # the planned scratch covers the chosen variant: the opt kernel's, where it takes any
    if three == "opt" or isa == "dsp":
        size = depthwise_scratch(isa, (1, 8, 8, 4), (5, 5), (1, 8, 8, 4), (1, 1), (2, 2), (1, 1))
        assert size > 0


class _Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(16, 8), torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


@pytest.mark.slow
@NEEDS_ARM_QEMU
def test_a_per_tensor_linear_links_only_its_own_path_and_runs(tmp_path):
    """Linear layers quantized per tensor (one multiplier): the firmware links arm_fully_connected_s8 and not the
    per-channel function, and its outputs equal the host runtime's (which links both)."""
    import subprocess

    import numpy as np

    from mcu_export.firmware.conv_dispatch import fc_variants
    from mcu_export.firmware.flow import build_for_board
    from mcu_export.runners import run_model_firmware

    torch.manual_seed(0)
    x = torch.randn(2, 16)
    art = export(_Mlp().eval(), (x,), quantize="int8", board="mps2-an505", linear_weights="per-tensor")
    assert fc_variants(art.program.method("forward")) == ["per_tensor"]
    out = art.save(tmp_path / "mlp")
    build = build_for_board(out, "mps2-an505")
    symbols = set(subprocess.run(["arm-none-eabi-nm", str(build.elf)], capture_output=True, text=True).stdout.split())
    assert "arm_fully_connected_s8" in symbols and "arm_fully_connected_per_channel_s8" not in symbols
    device = run_model_firmware(build, "mps2-an505", [x.numpy()]).outputs
    host = art.run(x)
    assert all(np.array_equal(d, h) for d, h in zip(device, host)) and len(device) == len(host) == 1
