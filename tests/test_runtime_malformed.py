"""The C program reader against ExecuTorch-written programs and a corpus of malformed ones.

Every malformed file must be rejected (or, for random mutants, either load or be rejected) with exit
status 3 and one `mx_run: error:` line, never a crash: the corpus runs under an AddressSanitizer +
UBSan build, so an out-of-bounds read or undefined behaviour fails the test.
"""

from __future__ import annotations

import os
import random
import struct
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime_pte_models as M  # noqa: E402  (tests/support, on sys.path via conftest)

SAN_ENV = dict(
    os.environ,
    ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=99",
    UBSAN_OPTIONS="halt_on_error=1:exitcode=98:print_stacktrace=1",
)
ERR = {
    "truncated": "program is truncated",
    "identifier": "file identifier is not ET12",
    "header": "malformed extended header",
    "offset": "an offset is misaligned, cyclic or out of range",
    "vtable": "a vtable is out of range",
    "index": "an index in the program is out of range",
    "tensor": "a tensor's type, rank or dim order is invalid",
    "segment": "a data segment lies outside the file",
    "value_type": "a value in the program has the wrong type",
    "pool": "the metadata pool is too small",
    "kernel": "an operator in the program has no kernel in this build",
}


@pytest.fixture(scope="module")
def san_runner():
    from mcu_export.host_runtime import build_host_runner

    return build_host_runner(sanitize=True)


@pytest.fixture(scope="module")
def bare_runner():
    """A runner without kernels: loading must fail naming the first operator."""
    from mcu_export.host_runtime import build_host_runner

    return build_host_runner(ops=[])


@pytest.fixture(scope="module")
def linear():
    return M.et_model("linear_relu")[2]


@pytest.fixture(scope="module")
def conv():
    return M.et_model("small_conv")[2]


def run(runner, data: bytes, tmp: Path, *args: str, name: str = "m.pte"):
    path = tmp / name
    path.write_bytes(data)
    return subprocess.run(
        [str(runner), str(path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=SAN_ENV,
        timeout=60,
    )


def assert_clean(proc, data_desc: str, *, must_fail: bool):
    """Exit 0 (loaded) or 3 with exactly one error line; anything else is a crash or a sanitizer report."""
    assert proc.returncode in ((3,) if must_fail else (0, 3)), (
        f"{data_desc}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
    )
    if proc.returncode == 3:
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("mx_run: error: "), f"{data_desc}: {proc.stderr}"


def run_corpus(runner, mutants, tmp: Path, *, must_fail: bool):
    def one(item):
        i, (desc, data) = item
        proc = run(runner, data, tmp, "--parse-only", name=f"m{i}.pte")
        assert_clean(proc, desc, must_fail=must_fail)
        return proc

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, enumerate(mutants)))


# ---- valid programs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("model", sorted(M.MODELS))
@pytest.mark.slow
def test_executorch_programs_parse_and_report_their_io(model, san_runner, tmp_path):
    module, x, data = M.et_model(model)
    proc = run(san_runner, data, tmp_path, "--parse-only")
    assert proc.returncode == 0, proc.stderr
    info = run(san_runner, data, tmp_path, "--info").stdout.splitlines()
    out_shape = "x".join(str(s) for s in module(x).shape)
    in_shape = "x".join(str(s) for s in x.shape)
    order = ",".join(str(d) for d in range(x.dim()))
    assert f"input 0 6 {in_shape} {order}" in info
    assert f"output 0 6 {out_shape} {order if model == 'small_conv' else '0,1'}" in info
    assert info[0] == "method forward"


@pytest.mark.parametrize("model", sorted(M.MODELS))
@pytest.mark.slow
def test_executorch_programs_load_with_their_kernels(model, san_runner, tmp_path):
    from mcu_export.host_runtime import default_ops

    names = {op.name for op in default_ops()}
    needed = {
        "linear_relu": {"aten::addmm", "aten::relu", "aten::permute_copy"},
        "small_conv": {"aten::convolution", "aten::relu"},
    }[model]
    if not needed <= names:
        pytest.skip(f"portable kernels not written yet: {sorted(needed - names)}")
    proc = run(san_runner, M.et_model(model)[2], tmp_path, "--load-only")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok method forward")


def test_missing_kernel_is_named(bare_runner, linear, conv, tmp_path):
    proc = run(bare_runner, linear, tmp_path, "--load-only")
    assert proc.returncode == 3
    assert proc.stderr.strip() == (f"mx_run: error: {ERR['kernel']} (method forward, op aten::permute_copy.out)")
    proc = run(bare_runner, conv, tmp_path, "--load-only")
    assert "op aten::convolution.out" in proc.stderr


def test_unknown_method_and_missing_file(san_runner, linear, tmp_path):
    proc = run(san_runner, linear, tmp_path, "--parse-only", "--method", "backward")
    assert proc.returncode == 3 and "no method with that name (method backward)" in proc.stderr
    proc = subprocess.run([str(san_runner), str(tmp_path / "absent.pte")], stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("mx_run: error: input/output error (cannot read")
    proc = subprocess.run([str(san_runner), "--bogus"], stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("mx_run: error: invalid usage")


def test_metadata_pool_size_is_exact(san_runner, linear, tmp_path):
    info = run(san_runner, linear, tmp_path, "--info").stdout.splitlines()
    pool = int(next(l for l in info if l.startswith("meta_pool")).split()[1])
    assert pool > 0
    assert run(san_runner, linear, tmp_path, "--parse-only", "--meta-pool-size", str(pool)).returncode == 0
    proc = run(san_runner, linear, tmp_path, "--parse-only", "--meta-pool-size", str(pool - 8))
    assert proc.returncode == 3 and ERR["pool"] in proc.stderr


def test_inline_constant_buffers_without_header(san_runner, tmp_path):
    """ExecuTorch's constant_buffer form (no segments, no extended header) reads as well as segments."""
    from executorch.exir._serialize._flatbuffer_program import _program_to_flatbuffer
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(M.et_model("linear_relu")[2]).program
    assert len(program.constant_buffer) > 1
    data = _program_to_flatbuffer(program, constant_tensor_alignment=16, delegate_alignment=None).data
    assert data[8:12] != b"eh00"
    assert run(san_runner, data, tmp_path, "--parse-only").returncode == 0
    # the weight's buffer, cut short, no longer holds the tensor
    buffers, _ = M.vector(data, M.root(data), M.PROGRAM_CONSTANT_BUFFER)
    storage_len = M.deref(data, M.field(data, M.vec_table(data, buffers, 1), 0))
    bad = M.put_u32(bytearray(data), storage_len, 4)
    proc = run(san_runner, bytes(bad), tmp_path, "--parse-only")
    assert proc.returncode == 3 and "constant tensor's data is missing or too short" in proc.stderr


# ---- malformed programs -----------------------------------------------------------------------------


def test_truncated_files_are_rejected(san_runner, linear, conv, tmp_path):
    mutants = [
        (f"{name} cut at {k}/16", data[: len(data) * k // 16])
        for name, data in (("linear", linear), ("conv", conv))
        for k in range(16)
    ]
    run_corpus(san_runner, mutants, tmp_path, must_fail=True)


def test_wrong_identifier(san_runner, linear, tmp_path):
    bad = bytearray(linear)
    bad[4:8] = b"ET11"
    proc = run(san_runner, bytes(bad), tmp_path, "--parse-only")
    assert proc.returncode == 3 and ERR["identifier"] in proc.stderr


@pytest.mark.slow
def test_offsets_bumped_past_the_end(san_runner, linear, tmp_path):
    mutants = []
    for pos in range(0, min(len(linear), 1024), 4):
        for past in (0, 4, 0x7FFF0000):
            bad = M.put_u32(bytearray(linear), pos, len(linear) - pos + past)
            mutants.append((f"u32 at {pos} -> end+{past}", bytes(bad)))
    run_corpus(san_runner, mutants, tmp_path, must_fail=False)


def _corruptions(b: bytes):
    """(description, mutated bytes, expected error text) for targeted corruptions of the Linear program."""
    root, plan = M.root(b), M.plan(b)
    vals = M.values(b)
    tensors = [(i, t) for i, tag, t in vals if tag == M.TAG_TENSOR]
    const_t = next(t for _, t in tensors if M.field(b, t, M.TENSOR_DATA_BUFFER_IDX) is not None)
    planned_t = next(t for _, t in tensors if M.field(b, t, M.TENSOR_ALLOCATION_INFO) is not None)
    alloc = M.deref(b, M.field(b, planned_t, M.TENSOR_ALLOCATION_INFO))
    call = next(c for c in M.kernel_calls(b) if M.field(b, c, 0) is not None)
    args_vec, _ = M.vector(b, call, 1)
    int_list = next(t for _, tag, t in vals if tag == 7)
    items_vec, _ = M.vector(b, int_list, 0)
    sizes_vec, _ = M.vector(b, planned_t, M.TENSOR_SIZES)
    segs, _ = M.vector(b, root, M.PROGRAM_SEGMENTS)
    seg = M.vec_table(b, segs, 0)
    values_vec, _ = M.vector(b, plan, M.PLAN_VALUES)

    def u32(pos, v):
        return bytes(M.put_u32(bytearray(b), pos, v))

    def u64(pos, v):
        out = bytearray(b)
        struct.pack_into("<Q", out, pos, v)
        return bytes(out)

    yield "values count huge", u32(values_vec, 0x7FFFFFFF), ERR["truncated"]
    yield "tensor sizes count huge", u32(sizes_vec, 0x40000000), ERR["truncated"]
    yield "op_index past the operators", u32(M.field(b, call, 0), 99), ERR["index"]
    yield "op_index negative", u32(M.field(b, call, 0), -1), ERR["index"]
    yield "argument value index past the values", u32(args_vec + 4, 10000), ERR["index"]
    yield "argument value index negative", u32(args_vec + 4, -3), ERR["index"]
    yield "data_buffer_idx past the constants", u32(M.field(b, const_t, M.TENSOR_DATA_BUFFER_IDX), 1000), ERR["index"]
    yield "memory_id 0 (reserved)", u32(M.field(b, alloc, 0), 0), ERR["index"]
    yield "memory_id past the arenas", u32(M.field(b, alloc, 0), 99), ERR["index"]
    yield "planned offset past the arena", u32(M.field(b, alloc, 1), 1 << 20), "does not fit in its arena"
    yield "negative tensor size", u32(sizes_vec + 4, -2), ERR["tensor"]
    yield "IntList item is not an Int", u32(items_vec + 4, tensors[0][0]), ERR["value_type"]
    yield "IntList item past the values", u64(items_vec + 4, 1 << 40), ERR["index"]
    yield "root offset points to itself", u32(0, 0), ERR["offset"]
    yield "values field offset points to itself", u32(M.field(b, plan, M.PLAN_VALUES), 0), ERR["offset"]
    yield "value table points to itself", u32(values_vec + 4, 0), ERR["offset"]
    yield "misaligned table offset", u32(values_vec + 4, M.u32(b, values_vec + 4) + 2), ERR["offset"]
    yield "vtable before the buffer", u32(plan, 0x7FFFFFF0), ERR["vtable"]
    yield "vtable past the buffer", u32(plan, -len(b)), ERR["vtable"]
    yield "segment past the end", u64(M.field(b, seg, 1), len(b)), ERR["segment"]
    yield "segment base past the end", u64(24, len(b) + 16), ERR["segment"]
    yield "segment base huge", u64(24, 1 << 62), ERR["segment"]
    yield "segment base near 2**64", u64(24, 2**64 - 16), ERR["segment"]
    yield "header length too short", u32(12, 8), ERR["header"]
    yield "header program_size past the file", u64(16, len(b) + 64), ERR["truncated"]
    yield "header length past the file", u32(12, len(b)), ERR["truncated"]
    yield (
        "union tag unknown",
        bytes(
            bytearray(b[: M.field(b, M.vec_table(b, values_vec, 0), 0)])
            + bytes([42])
            + b[M.field(b, M.vec_table(b, values_vec, 0), 0) + 1 :]
        ),
        "unknown union type",
    )


def test_targeted_corruptions_fail_with_the_right_error(san_runner, linear, tmp_path):
    cases = list(_corruptions(linear))
    procs = run_corpus(san_runner, [(d, data) for d, data, _ in cases], tmp_path, must_fail=True)
    for (desc, _, expected), proc in zip(cases, procs):
        assert expected in proc.stderr, f"{desc}: {proc.stderr.strip()}"


def test_longer_extended_header_is_accepted(san_runner, linear, tmp_path):
    """A header declaring more bytes than the fields we know (a newer writer) still loads."""
    program_size = struct.unpack_from("<Q", linear, 16)[0]
    for length in (24, 28, 40, program_size - 8):
        bad = M.put_u32(bytearray(linear), 12, length)
        proc = run(san_runner, bytes(bad), tmp_path, "--parse-only")
        if 8 + length <= M.root(linear):
            assert proc.returncode == 0, f"length {length}: {proc.stderr}"
        else:
            assert_clean(proc, f"length {length}", must_fail=False)


@pytest.mark.slow
def test_random_byte_flips_never_crash(san_runner, linear, conv, tmp_path):
    rng = random.Random(20240611)
    mutants = []
    for n in range(300):
        src = linear if n % 2 else conv
        bad = bytearray(src)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(bad))
            bad[pos] = rng.choice((bad[pos] ^ (1 << rng.randrange(8)), 0x00, 0xFF, rng.randrange(256)))
        mutants.append((f"flip mutant {n}", bytes(bad)))
    procs = run_corpus(san_runner, mutants, tmp_path, must_fail=False)
    assert sum(p.returncode == 3 for p in procs) > 30  # the corpus does reach the error paths


@settings(
    max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    word=st.integers(min_value=0, max_value=10_000),
    value=st.sampled_from([0, 1, 2, 3, 4, 7, 8, 0xFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFC]),
)
@pytest.mark.slow
def test_any_word_set_to_an_edge_value_never_crashes(san_runner, linear, tmp_path, word, value):
    pos = (word * 4) % (len(linear) - 3) & ~3
    bad = M.put_u32(bytearray(linear), pos, value)
    assert_clean(run(san_runner, bytes(bad), tmp_path, "--parse-only"), f"u32 at {pos} = {value:#x}", must_fail=False)
