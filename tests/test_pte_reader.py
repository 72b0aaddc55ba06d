"""The .pte reader: agrees with ExecuTorch's deserializer, and rejects malformed files with one line."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcu_export.errors import PteFormatError, UsageError
from mcu_export.pte import program as P
from mcu_export.pte.et_interop import from_executorch_program
from mcu_export.pte.flatview import FlatView
from mcu_export.pte.inspect import format_program
from mcu_export.pte.reader import read_program, read_program_file
from mcu_export.pte.writer import write_program


def small_program(n_ints: int = 3) -> P.Program:
    t = P.ScalarType
    values = [
        P.Tensor(t.FLOAT, [2, 2], [0, 1], data_buffer_idx=1),
        P.Tensor(t.FLOAT, [2, 2], [0, 1], allocation_info=P.AllocationDetails(1, 0)),
        P.IntList([3, 4]),
    ] + [P.Int(7 + i) for i in range(n_ints)]
    plan = P.ExecutionPlan(
        "forward",
        values,
        [1],
        [1],
        [P.Chain([1], [1], [P.KernelCall(0, [0, 2, 1, 1])])],
        [P.Operator("aten::mul", "out")],
        [0, 16],
    )
    return P.Program([plan], constant_buffer=[b"", bytes(range(16))])


@pytest.fixture(scope="module")
def et_files():
    exir = pytest.importorskip("executorch.exir")
    import torch

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = torch.nn.Conv2d(2, 3, 3)
            self.l = torch.nn.Linear(3 * 4 * 4, 4)

        def forward(self, x):
            return self.l(torch.relu(self.c(x)).flatten(1))

    torch.manual_seed(1)
    return [exir.to_edge(torch.export.export(M().eval(), (torch.randn(1, 2, 6, 6),))).to_executorch().buffer]


# --- agreement with ExecuTorch -------------------------------------------------------------------


@pytest.mark.interop
def test_reads_executorch_file_like_executorch(et_files):
    from executorch.exir._serialize._program import deserialize_pte_binary

    for data in et_files:
        ours = read_program(data)
        theirs = from_executorch_program(deserialize_pte_binary(data).program)
        assert ours.execution_plan == theirs.execution_plan
        assert ours.constants() == theirs.constant_buffer
        assert ours.version == theirs.version
        assert data[8:12] == b"eh00" and ours.segments and ours.constant_segment.offsets
        plan = ours.method("forward")
        assert {op.name for op in plan.operators} >= {"aten::convolution", "aten::relu"}
        weight = plan.values[plan.chains[0].instructions[0].args[1]]
        assert weight.sizes == [3, 2, 3, 3] and len(ours.constant_bytes(weight.data_buffer_idx)) >= 3 * 2 * 9 * 4


def test_read_program_file(tmp_path):
    path = tmp_path / "a.pte"
    path.write_bytes(write_program(small_program(), constants="inline"))
    assert read_program_file(path) == small_program()
    with pytest.raises(UsageError, match="no such .pte file"):
        read_program_file(tmp_path / "missing.pte")
    path.write_bytes(b"garbage!")
    with pytest.raises(PteFormatError, match=r"a\.pte: malformed \.pte: file identifier"):
        read_program_file(path)


# --- malformed corpus ----------------------------------------------------------------------------


def _must_reject(data: bytes, pattern: str = "") -> str:
    with pytest.raises(PteFormatError) as info:
        read_program(data)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("malformed .pte: ")
    if pattern:
        assert pattern in msg, msg
    return msg


def _locate(data: bytes):
    """Positions inside a file written from small_program(), found through the checked view."""
    view = FlatView(data)
    root = view.table_at(view.deref(0, "root"), "Program", "Program")
    plan = root.tables("execution_plan", "ExecutionPlan")[0]
    values_vec = plan.ref("values")
    evalue = plan.tables("values", "EValue")[2]
    intlist = evalue.table("val", "IntList")
    return root, plan, values_vec, evalue, intlist


@pytest.mark.parametrize("mode", ["inline", "segment"])
def test_truncated_files_are_rejected(mode):
    data = write_program(small_program(), constants=mode)
    for k in range(16):
        _must_reject(data[: len(data) * k // 16])


def test_truncated_executorch_file_is_rejected(et_files):
    data = et_files[0]
    for k in range(16):
        _must_reject(data[: len(data) * k // 16])


def test_wrong_identifier():
    data = bytearray(write_program(small_program()))
    data[4:8] = b"ET11"
    assert "file identifier: 'ET11' is not 'ET12'" in _must_reject(bytes(data))


def test_bumped_offsets_name_the_field():
    data = write_program(small_program())
    _root, _plan, values_vec, _ev, _il = _locate(data)
    bad = bytearray(data)
    struct.pack_into("<I", bad, values_vec + 4 + 4 * 3, 0x100000)  # values[3] points far past the end
    assert _must_reject(bytes(bad)).startswith("malformed .pte: ExecutionPlan.values[3]: offset 0x")
    bad = bytearray(data)
    struct.pack_into("<I", bad, 0, len(data) + 8)  # root offset
    assert "past end of file" in _must_reject(bytes(bad), "Program (root offset)")


def test_bad_vtable_is_rejected():
    data = write_program(small_program())
    root = _locate(data)[0]
    bad = bytearray(data)
    struct.pack_into("<i", bad, root.pos, -0x7FFFFFFF)
    _must_reject(bytes(bad), "Program vtable")
    bad = bytearray(data)
    struct.pack_into("<H", bad, root.vt + 2, 0xFFFF)  # table length past the end
    _must_reject(bytes(bad), "runs past end of file")


def test_huge_vector_count():
    data = write_program(small_program())
    intlist = _locate(data)[4]
    bad = bytearray(data)
    struct.pack_into("<I", bad, intlist.ref("items"), 0xFFFFFFFF)
    _must_reject(bytes(bad), "IntList.items: vector of 4294967295 x 8 bytes")


def test_self_referencing_offset():
    data = write_program(small_program())
    _root, plan, values_vec, _ev, _il = _locate(data)
    bad = bytearray(data)
    struct.pack_into("<I", bad, values_vec + 4, 0)
    _must_reject(bytes(bad), "ExecutionPlan.values[0]: offset at 0x")
    bad = bytearray(data)
    struct.pack_into("<I", bad, 0, 0)
    _must_reject(bytes(bad), "points at itself")


def test_shared_offsets_cannot_amplify_work():
    # 600 values all re-pointed at one EValue whose IntList has 600 items: legal offsets, but reading
    # them would cost 600x the file. The budget stops it.
    prog = small_program(n_ints=600)
    prog.execution_plan[0].values[2] = P.IntList([3] * 600)
    data = write_program(prog)
    _root, _plan, values_vec, evalue, _il = _locate(data)
    bad = bytearray(data)
    for i in range(len(prog.execution_plan[0].values)):
        slot = values_vec + 4 + 4 * i
        struct.pack_into("<I", bad, slot, evalue.pos - slot)
    _must_reject(bytes(bad), "revisit the same data")


def test_bad_union_tag():
    data = write_program(small_program())
    evalue = _locate(data)[3]
    bad = bytearray(data)
    bad[evalue.field_pos("val_type", 1)] = 42
    assert "EValue.val_type: bad union tag 42" in _must_reject(bytes(bad))
    bad[evalue.field_pos("val_type", 1)] = 0  # NONE: our EValues always hold a value
    assert "EValue.val_type: bad union tag 0" in _must_reject(bytes(bad))


def test_bad_references_are_rejected():
    prog = small_program()
    prog.execution_plan[0].chains[0].instructions[0].op_index = 3
    _must_reject(write_program(prog), "KernelCall.op_index: index 3 outside the 1 operators")
    prog = small_program()
    prog.execution_plan[0].values[0].data_buffer_idx = 9
    _must_reject(write_program(prog), "Tensor.data_buffer_idx: index 9 outside the 2 constant buffers")
    prog = small_program()
    prog.execution_plan[0].values[2] = P.IntList([3, 99])
    _must_reject(write_program(prog), "IntList.items[1]")


def test_bad_extended_header():
    data = write_program(small_program(), constants="segment")
    bad = bytearray(data)
    struct.pack_into("<Q", bad, 16, len(data) * 2)
    _must_reject(bytes(bad), "program_size")
    bad = bytearray(data)
    struct.pack_into("<Q", bad, 24, len(data) + 16)
    _must_reject(bytes(bad), "segment_base_offset")
    _must_reject(data[:-8], "")  # segment cut short


# --- fuzz: anything but PteFormatError is a bug ---------------------------------------------------

_SEED_FILES = [write_program(small_program(), constants="inline"), write_program(small_program(), constants="segment")]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([0, 1]),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=6),
    st.integers(0, 10**6),
)
@pytest.mark.slow
def test_byte_flip_fuzz(which, flips, cut):
    data = bytearray(_SEED_FILES[which])
    for pos, val in flips:
        data[pos % len(data)] = val
    if cut % 4 == 0:
        data = data[: cut % len(data)]
    try:
        prog = read_program(bytes(data))
    except PteFormatError as e:
        assert "\n" not in str(e)
        return
    format_program(prog)  # whatever reads must also print
