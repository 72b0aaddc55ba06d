"""The common tiny-ML model families (examples/families/, plus MLPerf Tiny's examples at examples/ top level),
written as a user writes them, held to mcu-export end to end:

- fp32: exported, run by the host C runtime, equal to torch within float32 tolerance (fast tier);
- int8: exported with seeded calibration batches and `fallback=False` (no operator may stay fp32), the host C
  runtime bit-exact with the int8 reference interpreter, cosine >= 0.99 between its dequantized output and
  fp32 torch on seeded inputs, and the part of the output that changes with the input followed too (slow);
- int8 firmware on one board of each ISA (Cortex-M55 MVE, M33 DSP, M4 DSP) under QEMU, bit-exact with the host
  (slow; one export serves the three boards; the MLPerf examples' firmware runs are in test_int8_firmware.py).

`python tests/support/family_status.py` prints the same checks as a table, one row per family."""

import shutil

import numpy as np
import pytest

from model_families import (
    CENTRED_COSINE_FLOOR,
    COSINE_FLOOR,
    COSINE_INPUTS,
    FAMILIES,
    FP32_ATOL,
    FP32_RTOL,
    INPUT_INDEPENDENT,
    MLPERF_EXAMPLES,
    batches,
    centred_cosines,
    cosine,
    export_fp32,
    export_int8,
    load,
    torch_out,
)

NAMES = sorted(FAMILIES)
BOARDS = ("corstone-300", "mps2-an505", "mps2-an386")
HAS_FIRMWARE_TOOLS = all(shutil.which(t) for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja"))


# The fast tier exports the families that take a few seconds; the larger ones are slow-only.
SLOW_FP32 = {"lstm_kws", "gru_kws", "vww_mobilenet_v1", "mobilenet_v2", "kws_dscnn", "resnet8", "autoencoder"}
FP32_PARAMS = [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_FP32 else n for n in NAMES]


@pytest.fixture(scope="module", params=FP32_PARAMS)
def fp32(request):
    name = request.param
    model, inputs = load(name)
    return name, model, inputs, export_fp32(model, inputs)


@pytest.fixture(scope="module", params=NAMES)
def int8(request, tmp_path_factory):
    name = request.param
    model, inputs = load(name)
    artifact = export_int8(model, inputs, fallback=False)
    out_dir = artifact.save(tmp_path_factory.mktemp("families_int8") / name)
    return name, model, inputs, artifact, out_dir


@pytest.mark.slow
def test_fp32_host_runtime_matches_torch(fp32):
    name, model, inputs, artifact = fp32
    for x in [inputs, *batches(inputs, 1, 5)]:
        want = torch_out(model, x)
        got = artifact.run(*x)
        assert len(got) == 1 and got[0].shape == want.shape and got[0].dtype == want.dtype, name
        np.testing.assert_allclose(got[0], want, rtol=FP32_RTOL, atol=FP32_ATOL * max(1.0, np.abs(want).max()))


@pytest.mark.slow
def test_int8_exports_every_op_in_int8(int8):
    name, _model, _inputs, artifact, _out = int8
    assert artifact.report["int8"]["fallbacks"] == [], name
    assert artifact.report["int8"]["calibration_batches"] > 1
    assert any(op.startswith("cortex_m::quantized_") for op in artifact.report["ops"]), name


@pytest.mark.slow
def test_int8_host_runtime_equals_reference(int8):
    from mcu_export.int8.interpreter import run_reference

    name, _model, inputs, artifact, _out = int8
    for x in batches(inputs, 2, 11):
        host, reference = artifact.run(*x), run_reference(artifact.program, list(x))
        assert len(host) == len(reference)
        for h, r in zip(host, reference):
            assert h.dtype == r.dtype and h.shape == r.shape, name
            assert np.array_equal(h.view(np.uint8), r.view(np.uint8)), f"{name}: host C runtime != reference"


@pytest.fixture(scope="module")
def int8_outputs(int8):
    """(host C runtime outputs, fp32 torch outputs) on COSINE_INPUTS seeded inputs."""
    name, model, inputs, artifact, _out = int8
    xs = batches(inputs, COSINE_INPUTS, 7)
    return [artifact.run(*x)[0] for x in xs], [torch_out(model, x) for x in xs]


@pytest.mark.slow
def test_int8_cosine_to_torch(int8, int8_outputs):
    name = int8[0]
    cosines = [cosine(g, w) for g, w in zip(*int8_outputs)]
    print(f"\n[int8] {name}: cosine to fp32 torch min {min(cosines):.5f} mean {np.mean(cosines):.5f}")
    assert min(cosines) >= COSINE_FLOOR, name


@pytest.mark.slow
def test_int8_follows_what_changes_with_the_input(int8, int8_outputs, request):
    name = int8[0]
    if name in INPUT_INDEPENDENT:
        request.applymarker(pytest.mark.xfail(strict=True, reason=INPUT_INDEPENDENT[name]))
    centred = centred_cosines(*int8_outputs)
    print(f"\n[int8] {name}: centred cosine min {min(centred):.4f} mean {np.mean(centred):.4f}")
    assert np.mean(centred) >= CENTRED_COSINE_FLOOR, name


@pytest.mark.slow
@pytest.mark.skipif(not HAS_FIRMWARE_TOOLS, reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja")
@pytest.mark.parametrize("board", BOARDS)
def test_int8_firmware_equals_host(int8, board):
    from mcu_export.firmware.flow import build_for_board
    from mcu_export.runners import run_model_firmware

    name, _model, inputs, artifact, out_dir = int8
    if name in MLPERF_EXAMPLES:
        pytest.skip("covered on the same three boards by tests/test_int8_firmware.py")
    (x,) = batches(inputs, 1, 99)
    run = run_model_firmware(build_for_board(out_dir, board), board, [t.numpy() for t in x])
    host = artifact.run(*x)
    assert len(run.outputs) == len(host)
    for device, h in zip(run.outputs, host):
        assert device.dtype == h.dtype and device.shape == h.shape
        assert np.array_equal(device.view(np.uint8), h.view(np.uint8)), f"{name} on {board}: device != host"
    assert any(o.op.startswith("cortex_m::quantized_") for o in run.per_op)
