"""int8 .pte files from ExecuTorch's own Cortex-M flow (executorch.backends.cortex_m, target Cortex-M55 unless
a test says M33) on our runtime: host C == our Python reference bit for bit, both within 1 LSB of ExecuTorch's
fake-quantized torch model, and QEMU firmware == host bit for bit.

Two spellings of ExecuTorch's that the runtime must accept, both exercised here: a program without constant
tensors is written with one empty data segment and no extended header (add, avg_pool, max_pool), and a
channels-last [N, 1, H, W] tensor gets dim order (0, 2, 1, 3) (kws_dscnn's input).
"""

import numpy as np
import pytest

pytest.importorskip(
    "executorch.backends.cortex_m.passes.cortex_m_pass_manager",
    reason="needs executorch==1.5.1 with its cortex_m backend (pip install -e .[interop])",
)
pytest.importorskip("torchao.quantization.pt2e", reason="needs torchao (PT2E quantization)")

from et_cortex_m_flow import MODELS, et_case  # noqa: E402
from mcu_export.errors import RuntimeFailure  # noqa: E402
from mcu_export.int8.interpreter import run_reference  # noqa: E402
from mcu_export.pte.reader import read_program  # noqa: E402
from mcu_export.runners import run_program_bytes  # noqa: E402

pytestmark = [pytest.mark.interop, pytest.mark.slow]


# The cortex_m operators ExecuTorch must have lowered each model to (else the test checks something else).
EXPECTED_OPS = {
    "conv_relu": {"quantized_conv2d"},
    "depthwise": {"quantized_depthwise_conv2d"},
    "linear": {"quantized_linear"},
    "add": {"quantized_add"},
    "avg_pool": {"pad", "quantized_avg_pool2d"},
    "max_pool": {"quantized_max_pool2d"},
    "softmax": {"softmax"},
    "mnist_mlp": {"quantized_linear"},
    "kws_dscnn": {
        "quantized_conv2d",
        "quantized_depthwise_conv2d",
        "quantized_avg_pool2d",
        "quantized_linear",
        "softmax",
    },
}
MAX_LSB = 1  # against the fake-quantized model, in steps of the output scale
MIN_WITHIN = 0.99  # fraction of elements within MAX_LSB


def _arrays(case):
    return [x.numpy() for x in case.inputs]


def _check_lsb(name, got, case):
    for g, want, scale in zip(got, case.fake_quant, case.output_scales):
        assert g.shape == want.shape and g.dtype == np.float32
        lsb = np.rint(np.abs(g.astype(np.float64) - want) / scale)
        within = float(np.mean(lsb <= MAX_LSB))
        assert within >= MIN_WITHIN, f"{name}: {within:.2%} within {MAX_LSB} LSB (max {lsb.max():.0f} LSB)"


def _check_bit_exact(what, got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g, w), f"{what}: {int(np.sum(g != w))} of {g.size} elements differ"


def _operator_names(pte: bytes):
    plan = read_program(pte).method("forward")
    return {op.name.split("::")[1] for op in plan.operators if op.name.startswith("cortex_m::")}


@pytest.mark.parametrize("name", list(MODELS))
def test_executorch_lowered_to_cortex_m_ops(name):
    assert EXPECTED_OPS[name] <= _operator_names(et_case(name).pte)


@pytest.mark.parametrize("name", list(MODELS))
def test_reference_interpreter_matches_fake_quant(name):
    case = et_case(name)
    _check_lsb(name, run_reference(read_program(case.pte), list(case.inputs)), case)


@pytest.mark.parametrize("name", list(MODELS))
def test_host_runs_executorch_program(name):
    case = et_case(name)
    host = run_program_bytes(case.pte, _arrays(case))
    _check_bit_exact(f"{name}: host vs reference", host, run_reference(read_program(case.pte), list(case.inputs)))
    _check_lsb(name, host, case)


@pytest.mark.parametrize("name", ["conv_relu", "avg_pool", "mnist_mlp"])
def test_host_runs_m33_program(name):
    """Programs made for Cortex-M33 (DSP): scratch sized for DSP, quantized_linear with bias and no kernel_sum."""
    case = et_case(name, "M33")
    host = run_program_bytes(case.pte, _arrays(case))
    _check_bit_exact(f"{name} (M33): host vs reference", host, run_reference(read_program(case.pte), list(case.inputs)))
    _check_lsb(name, host, case)


@pytest.fixture(scope="module")
def firmware(tmp_path_factory):
    from mcu_export.firmware.model_project import build_model_firmware

    builds = {}

    def get(name, cpu, board):
        key = (name, cpu, board)
        if key not in builds:
            out = tmp_path_factory.mktemp(f"{name}-{cpu}-{board}")
            builds[key] = build_model_firmware(out, board, model=et_case(name, cpu).pte)
        return builds[key]

    return get


@pytest.mark.parametrize("board", ["corstone-300", "mps2-an505"])
@pytest.mark.parametrize("name", ["mnist_mlp", "conv_relu"])
def test_firmware_equals_host(firmware, name, board):
    """Cortex-M55 programs run on M55 (MVE) and on M33 (DSP): their scratch covers both for these models, and
    quantized_linear carries kernel_sum, which the DSP path takes as its bias."""
    from mcu_export.runners import run_model_firmware

    case = et_case(name)
    run = run_model_firmware(firmware(name, "M55", board), board, _arrays(case))
    _check_bit_exact(f"{name} on {board}: device vs host", run.outputs, run_program_bytes(case.pte, _arrays(case)))
    _check_lsb(name, run.outputs, case)
    assert run.instructions_per_inference > 0


@pytest.mark.parametrize("name, op", [("conv_relu", "quantized_conv2d"), ("mnist_mlp", "quantized_linear")])
def test_m33_program_refused_on_m55(firmware, name, op):
    """A program made for Cortex-M33 lacks what the MVE kernels need: conv scratch sized for DSP (112 bytes,
    MVE needs 128) and quantized_linear without kernel_sum. Our kernels refuse it instead of computing garbage."""
    from mcu_export.runners import run_model_firmware

    case = et_case(name, "M33")
    with pytest.raises(RuntimeFailure, match=rf"invalid value .*cortex_m::{op}\.out"):
        run_model_firmware(firmware(name, "M33", "corstone-300"), "corstone-300", _arrays(case))
