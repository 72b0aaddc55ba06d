"""End to end on the host: ExecuTorch-exported programs run by our C runtime match torch."""

from __future__ import annotations

import numpy as np
import pytest

import runtime_pte_models as M  # noqa: E402  (tests/support, on sys.path via conftest)
from mcu_export.errors import RuntimeFailure, UsageError
from mcu_export.ops.table import BY_QUALIFIED

NEEDED = {
    "linear_relu": {"aten::addmm", "aten::relu", "aten::permute_copy"},
    "small_conv": {"aten::convolution", "aten::relu"},
}


def _require_kernels(model):
    from mcu_export.host_runtime import default_ops

    missing = NEEDED[model] - {op.name for op in default_ops()}
    if missing:
        pytest.skip(f"portable kernels not written yet: {sorted(missing)}")


@pytest.mark.parametrize("model", sorted(M.MODELS))
@pytest.mark.slow
def test_executorch_program_matches_torch(model, tmp_path):
    from mcu_export.runners.host import run_pte

    _require_kernels(model)
    module, x, data = M.et_model(model)
    (tmp_path / "m.pte").write_bytes(data)
    (out,) = run_pte(tmp_path / "m.pte", [x.numpy()])
    ref = module(x).detach().numpy()
    assert out.dtype == np.float32 and out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_input_mismatch_is_a_usage_error(tmp_path):
    from mcu_export.runners.host import run_pte

    _require_kernels("linear_relu")
    (tmp_path / "m.pte").write_bytes(M.et_model("linear_relu")[2])
    with pytest.raises(
        UsageError, match=r"^mx_run: error: an input does not match .*\(input 0 expected 6:2x4 got 6:2x5\)$"
    ):
        run_pte(tmp_path / "m.pte", [np.zeros((2, 5), np.float32)])
    with pytest.raises(UsageError, match=r"expected 6:2x4 got 7:2x4"):
        run_pte(tmp_path / "m.pte", [np.zeros((2, 4), np.float64)])
    with pytest.raises(UsageError, match=r"expected 1 inputs got 2"):
        run_pte(tmp_path / "m.pte", [np.zeros((2, 4), np.float32)] * 2)


def test_kernel_failure_names_instruction_and_op(tmp_path):
    """A program whose relu output disagrees with its input is refused when it loads, naming the instruction,
    the argument (relu's out) and the op."""
    from mcu_export.runners.host import run_pte

    _require_kernels("linear_relu")
    module, x, data = M.et_model("linear_relu")
    b = bytearray(data)
    out_index = M.u32(b, M.vector(b, M.plan(b), M.PLAN_OUTPUTS)[0] + 4)
    out_tensor = next(t for i, tag, t in M.values(b) if i == out_index)
    sizes, _ = M.vector(b, out_tensor, M.TENSOR_SIZES)
    M.put_u32(b, sizes + 8, 2)  # [2, 3] -> [2, 2]
    (tmp_path / "m.pte").write_bytes(bytes(b))
    calls = len(M.kernel_calls(b))
    out = BY_QUALIFIED["aten::relu.out"].arg_index("out")
    # only the load-time check names an argument: execution errors have none
    with pytest.raises(
        RuntimeFailure, match=rf"\(method forward, instruction {calls - 1}, argument {out}, op aten::relu\.out\)$"
    ):
        run_pte(tmp_path / "m.pte", [x.numpy()])


def test_program_info_reads_io_and_memory(tmp_path):
    from mcu_export.runners.host import program_info

    (tmp_path / "m.pte").write_bytes(M.et_model("small_conv")[2])
    info = program_info(tmp_path / "m.pte")
    assert info.method == "forward"
    assert [(t.dtype, t.shape) for t in info.inputs] == [(6, (1, 3, 8, 8))]
    assert [(t.dtype, t.shape) for t in info.outputs] == [(6, (1, 4, 8, 8))]
    assert info.meta_pool_bytes > 0 and len(info.arenas) == 1 and info.arenas[0] >= 2 * 4 * 3 * 8 * 8


def test_channels_last_dim_order_round_trips():
    from mcu_export.runners.tensors import TensorSpec, from_memory_order, to_memory_order

    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    order = (0, 2, 3, 1)
    raw = to_memory_order(x, order)
    assert raw == np.ascontiguousarray(x.transpose(0, 2, 3, 1)).tobytes()
    back = from_memory_order(raw, TensorSpec(dtype=6, shape=x.shape, dim_order=order))
    np.testing.assert_array_equal(back, x)
