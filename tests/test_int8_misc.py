"""The misc int8 kernels (elementwise add/mul, max/avg pooling, softmax, table lookup, pad, transpose) equal
their numpy references bit for bit: on the host (ctypes) over random shapes and parameters, and on QEMU
for Cortex-M55 (MVE path), Cortex-M33 and Cortex-M4 (DSP path) and a Cortex-M33 build without DSP (scalar)."""

import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import int8_misc_cases as cases
from int8_harness import MISC, Case, host_run, scalar_variant
from mcu_export.int8.reference import lut, softmax
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

SEEDS = st.integers(0, 2**32 - 1)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return MISC.build_host_library(tmp_path_factory.mktemp("misc_host"))


def _check(lib, made):
    results = host_run(lib, [case for case, _ in made])
    for (case, expected), result in zip(made, results):
        assert result.status == 0, (case.op, case.params)
        np.testing.assert_array_equal(result.out, expected.reshape(-1), err_msg=f"{case.op} {list(case.params)}")


@pytest.mark.parametrize("op", sorted(cases.MAKERS))
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS)
def test_host_matches_reference(lib, op, seed):
    rng = np.random.default_rng(seed)
    _check(lib, [cases.MAKERS[op](rng) for _ in range(8)])


@pytest.mark.parametrize("n", range(0, 21))
def test_elementwise_every_tail_length(lib, n):
    rng = np.random.default_rng(n)
    _check(lib, [cases.add_case(rng, n), cases.mul_case(rng, n)])


def test_softmax_edge_rows(lib):
    mult, shift, diff_min = softmax.softmax_params(0.25)
    rows = np.array([[5] * 64, [127] + [-128] * 63, list(range(-32, 32))], dtype=np.int8)  # equal, one-hot, ramp
    expected = softmax.arm_softmax_s8(rows, mult, shift, diff_min)
    assert (expected[0] == expected[0][0]).all() and expected[1][0] == 127 and (expected[1][1:] == -128).all()
    _check(lib, [(Case("softmax", [3, 64, mult, shift, diff_min], rows.tobytes(), rows.size), expected)])


def test_softmax_reference_tracks_float_softmax():
    rng = np.random.default_rng(0)
    scale = 0.08
    x = rng.integers(-128, 128, size=(20, 10), dtype=np.int8)
    q = softmax.arm_softmax_s8(x, *softmax.softmax_params(scale))
    exact = np.exp(scale * x) / np.exp(scale * x).sum(axis=1, keepdims=True)
    assert np.abs((q.astype(np.float64) + 128) / 256 - exact).max() <= 1.5 / 256


def test_softmax_params_match_tflite():
    # TFLite: beta * scale * 2^26 as a multiplier > 1 -> (mult, left shift); diff_min = -floor(31 * 2^26 / 2^shift).
    assert softmax.softmax_params(1 / 16) == (1 << 30, 23, -248)
    mult, shift, diff_min = softmax.softmax_params(0.1)
    assert shift == 23 and abs(mult / 2**31 * 2**shift - 0.1 * 2**26) < 1 and diff_min == -248
    with pytest.raises(ValueError, match="too small"):
        softmax.softmax_params(1e-9)


@pytest.mark.parametrize("fn", ["sigmoid", "tanh", "hardswish"])
def test_lut_matches_torch_quantized_reference(fn):
    torch = pytest.importorskip("torch")
    torch_fn = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "hardswish": torch.nn.functional.hardswish}[fn]
    rng = np.random.default_rng(1)
    for _ in range(20):
        in_scale, in_zp = float(2.0 ** rng.uniform(-7, -2)), int(rng.integers(-128, 128))
        out_scale, out_zp = (1 / 256, -128) if fn == "sigmoid" else (float(2.0 ** rng.uniform(-7, -1)), 0)
        # PT2E's decomposed dequantize / quantize, as torch computes them in float32.
        x = (torch.arange(-128, 128, dtype=torch.int32) - in_zp).to(torch.float32) * in_scale
        want = torch.clamp(torch.round(torch_fn(x) * (1.0 / out_scale)) + out_zp, -128, 127).to(torch.int8)
        got = lut.build_lut(fn, in_scale, in_zp, out_scale, out_zp)
        assert np.abs(got.astype(int) - want.numpy().astype(int)).max() <= 1  # float32 libm vs torch: 1 step
        assert np.count_nonzero(got != want.numpy()) <= 2


def test_lut_rejects_unknown_function():
    with pytest.raises(ValueError, match="no lookup table for 'gelu'"):
        lut.build_lut("gelu", 0.1, 0, 0.1, 0)


def test_bad_transpose_permutation_is_an_argument_error(lib):
    x = np.arange(24, dtype=np.int8)
    bad = Case("transpose", [3, 2, 3, 4, 1, 0, 0, 2, 0, 2, 2, 4, 1], x.tobytes(), 24)  # perm (0, 0, 2)
    assert host_run(lib, [bad])[0].status == -1


def test_avgpool_buffer_sizes(lib):
    import ctypes

    for name, want in (
        ("arm_avgpool_s8_get_buffer_size", 0),
        ("arm_avgpool_s8_get_buffer_size_mve", 0),
        ("arm_avgpool_s8_get_buffer_size_dsp", 4 * 24),
    ):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int32
        assert fn(7, 24) == want, name


# --- QEMU -------------------------------------------------------------------------------------------

# (board, instruction that proves which path was compiled, instructions that must be absent)
TARGETS = {
    "corstone-300": ("corstone-300", "vqrdmulh", ()),
    "mps2-an505": ("mps2-an505", "ssub8", ("vqrdmulh",)),
    "mps2-an386": ("mps2-an386", "ssub8", ("vqrdmulh",)),
    "scalar-m33": (None, None, ("ssub8", "sxtb16", "vqrdmulh")),
}


@NEEDS_ARM_QEMU
@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.slow
def test_qemu_matches_reference(target, tmp_path):
    name, present, absent = TARGETS[target]
    board = scalar_variant("mps2-an505") if name is None else name
    elf = MISC.build_firmware(board, tmp_path / "fw")
    listing = subprocess.run(
        ["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True, text=True, check=True
    ).stdout
    if present:
        assert present in listing, f"{target}: the optimized path was not compiled in"
    for mnemonic in absent:
        assert mnemonic not in listing, f"{target}: unexpected {mnemonic}"
    for seed in (11, 12):
        made = cases.batch(seed, per_op=30)
        results, _ = MISC.qemu_run(board, elf, tmp_path, [case for _, case, _ in made])
        for (op, case, expected), result in zip(made, results):
            assert result.status == 0, (target, op, list(case.params))
            np.testing.assert_array_equal(
                result.out, expected.reshape(-1), err_msg=f"{target} {op} {list(case.params)}"
            )


@pytest.mark.slow
def test_softmax_rows_the_kernel_refuses_stay_float():
    """Rows longer than MAX_ROW would overflow the kernel's int32 sum of exps (its check refuses them at load,
    MX_CM_SOFTMAX_MAX_ROW): the lowering leaves such a softmax to the fp32 fallback, and takes the longest row
    it may."""
    import re

    import torch

    from mcu_export.api import export
    from mcu_export.assets import asset_dir

    header = (asset_dir("runtime_c") / "kernels" / "cortex_m" / "util" / "mx_cm_ranges.h").read_text()
    assert int(re.search(r"#define MX_CM_SOFTMAX_MAX_ROW (\d+)", header).group(1)) == softmax.MAX_ROW

    class Head(torch.nn.Module):
        def forward(self, x):
            return torch.softmax(x * 2.0, dim=-1)

    def ops(n):
        x = torch.randn(1, n)
        art = export(Head(), (x,), quantize="int8", calibrate=lambda: iter([(x,)]))
        return {op.qualified for op in art.program.method("forward").operators}

    assert "cortex_m::softmax.out" in ops(softmax.MAX_ROW)
    longer = ops(softmax.MAX_ROW + 1)
    assert "cortex_m::softmax.out" not in longer and "aten::_softmax.out" in longer
