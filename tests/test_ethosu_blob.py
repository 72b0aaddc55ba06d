"""The Ethos-U delegate blob: our packer and parser against the layout ExecuTorch's Arm backend writes
(its own vela_compile on a real Vela run), round trips, and one-line errors for malformed blobs."""

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcu_export.ethosu.blob import BLOCKS, BlobError, IoRecord, VelaBlob, blocks, pack, unpack

ints = st.integers(-(2**31), 2**31 - 1)
records = st.builds(IoRecord, st.tuples(*[ints] * 6), ints, ints, ints)


@settings(max_examples=50, deadline=None)
@given(
    st.binary(max_size=70),
    st.binary(max_size=40),
    st.integers(0, 2**32 - 1),
    st.lists(records, max_size=3),
    st.lists(records, max_size=3),
)
def test_pack_then_unpack_gives_the_blob_back_aligned(cmd, weights, scratch, inputs, outputs):
    blob = VelaBlob(cmd, weights, scratch, inputs, outputs)
    data = pack(blob)
    assert unpack(data) == blob
    assert len(data) % 16 == 0 and all(b.offset % 16 == 0 for b in blocks(data))
    assert [b.name for b in blocks(data)] == list(BLOCKS)


@pytest.mark.interop
def test_executorch_arm_backend_blob_parses_and_repacks_byte_for_byte():
    pytest.importorskip("executorch.backends.arm.arm_vela")
    pytest.importorskip("tosa_serializer")
    from executorch.backends.arm.arm_vela import vela_compile

    from ethosu_graphs import max_pool_graph  # tests/support

    theirs = vela_compile(max_pool_graph(), ["--accelerator-config=ethos-u55-128", "--output-format=raw"])
    data = theirs.processed_bytes

    blob = unpack(data)
    assert pack(blob) == data
    assert blob.cmd_data[:4] == b"COP1"  # Vela's driver payload
    (i,), (o,) = blob.inputs, blob.outputs
    assert (int(np.prod(i.shape)), i.elem_size) == (8 * 8 * 16, 1)
    assert (int(np.prod(o.shape)), o.elem_size) == (4 * 4 * 16, 1)


def _blob() -> bytes:
    cmd = b"COP1" + struct.pack("<3I", (1 << 16) | 2, 0, 5)  # a one-command stream (NPU_OP_STOP), a NOP
    return pack(VelaBlob(cmd, b"\1\2\3", 64, [IoRecord((1, 1, 1, 2, 2, 4), 1, 0, 1)], []))


def _with_header(data: bytes, index: int, name: bytes = None, length: int = None, external: int = None) -> bytes:
    b = blocks(data)[index]
    at = b.offset - 32
    old_name, old_length, old_external, reserved = struct.unpack_from("<16sIB11s", data, at)
    header = struct.pack(
        "<16sIB11s",
        name if name is not None else old_name,
        length if length is not None else old_length,
        external if external is not None else old_external,
        reserved,
    )
    return data[:at] + header + data[at + 32 :]


@pytest.mark.parametrize(
    "mutate, says",
    [
        (lambda d: d[:-16], "less than a header"),
        (lambda d: _with_header(d, 1, length=1 << 20), "block 'cmd_data' claims 1048576 bytes"),
        (lambda d: _with_header(d, 2, name=b"weights"), "expected ['vela_bin_stream'"),
        (lambda d: _with_header(d, 3, length=3), "block 'scratch_size' is 3 bytes, expected 4"),
        (lambda d: _with_header(d, 2, external=1), "stored outside the blob"),
    ],
)
def test_malformed_blob_is_one_line_naming_the_block(mutate, says):
    with pytest.raises(BlobError) as err:
        unpack(mutate(_blob()))
    assert says in str(err.value) and "\n" not in str(err.value)


def test_io_block_with_a_wrong_count_is_refused():
    data = _blob()
    b = blocks(data)[4]
    bad = data[: b.offset] + struct.pack("<i", 2) + data[b.offset + 4 :]
    with pytest.raises(BlobError, match="block 'inputs' holds 40 bytes for 2 tensor records"):
        unpack(bad)


def test_inspect_shows_an_ethos_u_delegate_s_blocks_scratch_and_io():
    from mcu_export.ethosu.blob import BACKEND_ID
    from mcu_export.pte import program as P
    from mcu_export.pte.inspect import format_method

    t = P.Tensor(P.ScalarType.CHAR, [1, 2, 2, 4], [0, 1, 2, 3])
    plan = P.ExecutionPlan(
        "forward",
        [t, t],
        [0],
        [1],
        [P.Chain([0], [1], [P.DelegateCall(0, [0, 1])])],
        [],
        [0],
        delegates=[P.BackendDelegate(BACKEND_ID, P.BackendDelegateDataReference(P.INLINE, 0))],
    )
    prog = P.Program([plan], backend_delegate_data=[_blob()])
    text = format_method(prog, plan)
    assert "blocks: vela_bin_stream 0 B, cmd_data 16 B, weight_data 3 B, scratch_size 4 B, inputs 40 B" in text
    assert "scratch: 64 B" in text and "input 0: 1x1x1x2x2x4 x1 B at region 1 + 0" in text
    assert "commands: 1" in text
