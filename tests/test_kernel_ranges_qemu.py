"""The arithmetic edges of test_kernel_ranges on the DSP and MVE paths, in firmware under QEMU, bit-exact with the
reference on Cortex-M33 (DSP) and Cortex-M55 (MVE): every accepted edge case (the bias at its headroom, shifts
at their limit, ...), and softmax rows whose sum of exps passes 2^28 (the division by up to 2^34 that the
scalar path writes as 0)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import kernel_ranges_harness as H
import test_kernel_ranges as T
from cortex_m_programs import OpProgram
from mcu_export.firmware.model_project import build_model_firmware
from mcu_export.int8.reference.softmax import arm_softmax_s8, softmax_params
from mcu_export.ops.table import BY_QUALIFIED
from mcu_export.runners import run_model_firmware
from tiers import fast_first

pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
    reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
)

ROWS = {
    "equal-row-4095": np.zeros((1, 4095), np.int8),
    "random-rows-600": np.random.default_rng(3).integers(-128, 128, (3, 600), np.int8),
    "shift-31": np.arange(-128, 128, dtype=np.int8).reshape(4, 64),
}


def _program(x, mult, shift, diff_min):
    p = OpProgram("cortex_m::softmax.out")
    xi, out = p.input(x), p.planned(x.shape, np.int8)
    args = [xi, p.int_(-1), p.int_(0), p.int_(-128), p.int_(mult), p.int_(shift), p.int_(diff_min)]
    return p.build(args, out)


@pytest.mark.parametrize("board", ["mps2-an505", "corstone-300"])
@pytest.mark.parametrize("name", sorted(ROWS))
@pytest.mark.slow
def test_softmax_edges_on_qemu_match_the_reference(tmp_path, board, name):
    x = ROWS[name]
    params = (1 << 30, 31, 0) if name == "shift-31" else softmax_params(1.0 / 16)
    pte = tmp_path / "softmax.pte"
    pte.write_bytes(_program(x, *params))
    build = build_model_firmware(tmp_path, board, model=pte)
    run = run_model_firmware(build, board, [x])
    np.testing.assert_array_equal(np.asarray(run.outputs[0]).reshape(x.shape), arm_softmax_s8(x, *params))


DATA = ("input", "self", "other", "lhs", "rhs_transposed")  # activations: model inputs; other tensors constants
# not here: the portable fills (no int8 path), an empty tensor, a 16 MB pooling input (no board's RAM holds it)
EDGES = sorted(
    n for n in T.ACCEPTED if not n.startswith("full-") and n not in ("bilinear-empty-axis", "avg-pool-taps-at-edge")
)


def _edge_program(case):
    """The case as a one-call program: its activations as inputs, its other tensors as constants."""
    name, kwargs = case()
    op = BY_QUALIFIED[name]
    p, args, inputs = OpProgram(name), [], []
    for a in op.schema().arguments:
        v = kwargs[a.name]
        if a.name == "out":
            out = p.planned(tuple(v.shape), v.numpy().dtype)
        elif a.name in ("scratch", "output_scratch"):
            args.append(p.planned(tuple(v.shape), np.uint8))
        elif hasattr(v, "numpy"):
            if a.name in DATA:
                inputs.append(v.numpy())
            args.append(p.input(v.numpy()) if a.name in DATA else p.const(v.numpy()))
        elif v is None:
            args.append(p.null())
        elif isinstance(v, bool):
            args.append(p.bool_(v))
        elif isinstance(v, list):
            args.append(p.ints(v))
        else:
            args.append(p.int_(v) if isinstance(v, int) else p.double(v))
    return p.build(args, out), inputs, tuple(kwargs["out"].shape)


@pytest.mark.parametrize("board", ["mps2-an505", "corstone-300"])
@pytest.mark.parametrize("name", fast_first(EDGES, keep=0))  # firmware builds: make test only
def test_accepted_edges_on_qemu_match_the_reference(tmp_path, board, name):
    if name == "linear-bias-at-headroom" and board == "corstone-300":
        pytest.skip("MVE reads kernel sums, so a bias-only linear is refused there (BAD_ARG_VALUE, by design)")
    pte_bytes, inputs, shape = _edge_program(T.ACCEPTED[name])
    pte = tmp_path / "edge.pte"
    pte.write_bytes(pte_bytes)
    run = run_model_firmware(build_model_firmware(tmp_path, board, model=pte), board, inputs)
    want = T.EXPECTED.get(name)
    want = H.reference(T.ACCEPTED[name]) if want is None else np.asarray(want)
    np.testing.assert_array_equal(np.asarray(run.outputs[0]).reshape(-1), want.reshape(-1))
