"""Ethos-U delegates interoperate with ExecuTorch 1.5.1's Arm backend both ways: ExecuTorch reads our .pte
(the delegate, its processed blob and compile specs), we read its .pte, and for the same model the two blobs
have the same structure block by block (names, order, 16-byte alignment, I/O records)."""

import pytest

from ethosu_flow import calibration  # tests/support
from example_models import model_and_inputs  # tests/support
from mcu_export.api import export
from mcu_export.ethosu.blob import BACKEND_ID, BLOCKS, blocks, unpack

pytestmark = [pytest.mark.interop, pytest.mark.slow]
pytest.importorskip("executorch.backends.arm")
pytest.importorskip("tosa_serializer")


@pytest.fixture(scope="module")
def both():
    from mcu_export.bench_et_ethosu import executorch_ethosu

    model, inputs = model_and_inputs("kws_dscnn")
    ours = export(model, inputs, quantize="int8", calibrate=calibration(inputs), backend="ethos-u55-128")
    theirs = executorch_ethosu(model, inputs, "ethos-u55-128")
    return ours, theirs


def test_executorch_reads_our_delegate(both):
    from executorch.exir._serialize._program import deserialize_pte_binary

    ours, _ = both
    program = deserialize_pte_binary(ours.pte).program
    plan = program.execution_plan[0]
    (delegate,) = plan.delegates
    assert delegate.id == BACKEND_ID
    processed = program.backend_delegate_data[delegate.processed.index].data
    assert bytes(processed) == ours.program.backend_delegate_data[0]
    specs = {s.key: bytes(s.value).decode() for s in delegate.compile_specs}
    assert specs["output_format"] == "vela" and specs["tosa_spec"].startswith("TOSA-1.0")
    assert "--accelerator-config=ethos-u55-128" in specs["compile_flags"]
    # ExecuTorch's runtime reads inputs then outputs by the blob's counts; our trailing NPU scratch is after them.
    blob = unpack(bytes(processed))
    (call,) = [c.instr_args for c in plan.chains[0].instructions if type(c.instr_args).__name__ == "DelegateCall"]
    assert len(call.args) == len(blob.inputs) + len(blob.outputs) + 1


def test_our_blob_has_the_structure_of_executorchs_for_the_same_model(both):
    ours, theirs = both
    (their_blob,) = theirs["blobs"]
    our_blob = ours.program.backend_delegate_data[0]
    mine, yours = blocks(our_blob), blocks(their_blob)
    assert [b.name for b in mine] == [b.name for b in yours] == list(BLOCKS)
    assert all(b.offset % 16 == 0 for b in mine + yours) and len(our_blob) % 16 == len(their_blob) % 16 == 0
    a, b = unpack(our_blob), unpack(their_blob)
    assert len(a.inputs) == len(b.inputs) and len(a.outputs) == len(b.outputs)
    for x, y in zip(a.inputs + a.outputs, b.inputs + b.outputs):
        assert (x.elem_size, x.region, len(x.shape)) == (y.elem_size, y.region, len(y.shape))
        assert _numel(x.shape) == _numel(y.shape)
    assert a.cmd_data[:4] == b.cmd_data[:4] == b"COP1"


def test_we_read_executorchs_program_and_its_blob(both):
    _, theirs = both
    # The figures come from our reader on their .pte: the blob parses, its scratch is Vela's.
    assert theirs["subgraphs"] == 1 and theirs["scratch_bytes"] == unpack(theirs["blobs"][0]).scratch_size > 0


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n
