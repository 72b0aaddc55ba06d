"""ExecuTorch's own Arm Ethos-U flow (mcu_export.bench_et_ethosu) on mnist_mlp and kws_dscnn for ethos-u55-128:
its figures agree with each other, and the delegate blobs it writes follow the layout mcu_export.ethosu.blob
reads."""

import contextlib
import functools
import io
import json

import pytest

from mcu_export.bench_et_ethosu import SCRATCH_ALIGNMENT, executorch_ethosu
from mcu_export.ethosu import blob
from mcu_export.examples import spec
from mcu_export.model_spec import load_model

pytestmark = [pytest.mark.interop, pytest.mark.slow]


@pytest.fixture(autouse=True, scope="module")
def _arm_flow():
    """Imported when a test runs, not at collection: executorch.backends.arm takes 7 s to import, which the fast
    tier (these tests are slow) would pay for nothing."""
    pytest.importorskip("executorch.backends.arm", reason="needs executorch==1.5.1 (pip install -e .[interop])")
    pytest.importorskip("torchao.quantization.pt2e", reason="needs torchao (PT2E quantization)")


MODELS = ("mnist_mlp", "kws_dscnn")
ACCELERATOR = "ethos-u55-128"
SCRATCH_REGION = 1  # Vela's region of the scratch tensor, where a delegate's inputs and outputs live
QDQ = ("quantize_per_tensor", "dequantize_per_tensor", "quantize_per_channel", "dequantize_per_channel")


@functools.lru_cache(maxsize=None)
def _run(name: str):
    """The figures for one model, and whatever the flow wrote to stdout/stderr (it should write nothing)."""
    model, inputs = load_model(spec(name))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        figures = executorch_ethosu(model, inputs, ACCELERATOR)
    return figures, printed.getvalue()


@pytest.mark.parametrize("name", MODELS)
def test_figures_are_consistent(name):
    figures, printed = _run(name)
    assert printed == ""
    assert figures["accelerator"] == ACCELERATOR
    assert (figures["system_config"], figures["memory_mode"]) == ("Ethos_U55_High_End_Embedded", "Shared_Sram")
    assert 0 < figures["ops_on_npu"] <= figures["ops_total"]
    assert figures["npu_share"] == pytest.approx(figures["ops_on_npu"] / figures["ops_total"])
    assert figures["subgraphs"] >= 1
    assert len(figures["blobs"]) == figures["subgraphs"]
    cpu_compute = [op for op in figures["cpu_ops"] if not any(q in op for q in QDQ)]
    assert len(cpu_compute) == figures["ops_total"] - figures["ops_on_npu"]
    # The float input is quantized and the float output dequantized on the CPU.
    assert any("quantize_per_tensor" in op for op in figures["cpu_ops"])
    assert 0 < figures["cycles_npu"] <= figures["cycles_total"]
    assert figures["sram_bytes"] > 0 and figures["fast_scratch_bytes"] == 0  # Shared_Sram: no fast scratch
    assert figures["planned_bytes"] > 0 and figures["pte_bytes"] > 0 and figures["export_seconds"] > 0
    rest = {k: v for k, v in figures.items() if k != "blobs"}
    assert json.loads(json.dumps(rest)) == rest


@pytest.mark.parametrize("name", MODELS)
def test_blobs_unpack_with_our_reader(name):
    figures, _ = _run(name)
    scratch = []
    for data in figures["blobs"]:
        assert [b.name for b in blob.blocks(data)] == list(blob.BLOCKS)
        unpacked = blob.unpack(data)
        assert unpacked.cmd_data and unpacked.inputs and unpacked.outputs
        for io_record in [*unpacked.inputs, *unpacked.outputs]:
            size = io_record.elem_size
            for dim in io_record.shape:
                size *= dim
            assert io_record.region == SCRATCH_REGION
            assert 0 <= io_record.offset and io_record.offset + size <= unpacked.scratch_size
        assert blob.pack(unpacked) == data  # nothing in the blob that our layout does not carry
        scratch.append(unpacked.scratch_size)
    assert figures["scratch_bytes"] == sum(scratch)
    largest = -(-max(scratch) // SCRATCH_ALIGNMENT) * SCRATCH_ALIGNMENT
    assert figures["arena_bytes"] == figures["planned_bytes"] + largest
    # Shared_Sram: Vela's SRAM is the scratch, so its peak SRAM use is the largest scratch.
    assert figures["sram_bytes"] == max(scratch)
