"""Delegate calls in the C runtime: hand-built programs with a DelegateCall to the host's test backend
(MxTestDelegate, runtime_c/host/mx_test_delegate.c) between ordinary kernel calls, run by mx_run and compared
with numpy; the load errors a bad delegate gives; and the exporter's metadata-pool counts (pool_counts)
held to the runtime's own (mx_run --info) for these programs and the example models."""

from __future__ import annotations

import dataclasses
import re
import struct
import subprocess

import numpy as np
import pytest

from cli_runner import assert_one_line_error, cli
from mcu_export.errors import RuntimeFailure
from mcu_export.host_runtime import HOST_BACKENDS, build_host_runner
from mcu_export.pte import program as P
from mcu_export.pte.writer import write_program
from mcu_export.runners.host import program_info, run_pte

SHAPE = (2, 3)
INLINE, SEGMENT = 0, 1
ERR_BACKEND = "a delegate in the program has no backend in this build"
ERR_DATA = "a delegate's processed data is malformed or not what its backend runs"
ERR_INDEX = "an index in the program is out of range"


def relu_blob() -> bytes:
    return b"MXTD" + struct.pack("<I", 1)


def affine_blob(a: float, b: float) -> bytes:
    return b"MXTD" + struct.pack("<Iff", 2, a, b)


def delegate_program(
    blob: bytes,
    *,
    location: int = INLINE,
    backend: str = "MxTestDelegate",
    delegate_index: int = 0,
    processed_index: int = 0,
    delegate_args=None,
    constant: bool = False,
) -> P.Program:
    """y = add(delegate(relu(x)), x or a constant c): aten::relu, the delegate, aten::add."""

    def planned(slot):
        return P.Tensor(P.ScalarType.FLOAT, list(SHAPE), [0, 1], allocation_info=P.AllocationDetails(1, slot * 32))

    values = [planned(0), planned(1), planned(2), planned(3), P.Int(1)]
    other = 0
    constants = [b""]
    if constant:
        constants.append(np.arange(6, dtype=np.float32).tobytes())
        values.append(P.Tensor(P.ScalarType.FLOAT, list(SHAPE), [0, 1], data_buffer_idx=1))
        other = len(values) - 1
    instructions = [
        P.KernelCall(0, [0, 1, 1]),
        P.DelegateCall(delegate_index, [1, 2] if delegate_args is None else delegate_args),
        P.KernelCall(1, [2, other, 4, 3, 3]),
    ]
    delegate = P.BackendDelegate(
        backend, P.BackendDelegateDataReference(location, processed_index), [P.CompileSpec("opcode", b"\x01")]
    )
    plan = P.ExecutionPlan(
        name="forward",
        values=values,
        inputs=[0],
        outputs=[3],
        chains=[P.Chain(inputs=[0], outputs=[3], instructions=instructions)],
        operators=[P.Operator("aten::relu", "out"), P.Operator("aten::add", "out")],
        non_const_buffer_sizes=[0, 4 * 32],
        delegates=[delegate],
    )
    program = P.Program(execution_plan=[plan], constant_buffer=constants)
    if location == INLINE:
        program.backend_delegate_data = [blob]
    else:
        program.segments = [P.DataSegment(0, len(blob))]
        program.segment_data = blob
    return program


def with_second_delegate(program: P.Program, blob: bytes) -> P.Program:
    """Adds delegate 1 (inline blob), run in place on the first delegate's output before aten::add."""
    plan = program.method()
    plan.delegates.append(P.BackendDelegate("MxTestDelegate", P.BackendDelegateDataReference(INLINE, 1)))
    program.backend_delegate_data.append(blob)
    plan.chains[0].instructions.insert(2, P.DelegateCall(1, [2, 2]))
    return program


def reference(x: np.ndarray, op, constant: bool = False) -> np.ndarray:
    other = np.arange(6, dtype=np.float32).reshape(SHAPE) if constant else x
    return (op(np.maximum(x, 0)) + other).astype(np.float32)


X = np.array([[-1.5, 0.0, 2.0], [3.25, -4.0, 0.5]], np.float32)


def write(tmp_path, program: P.Program, name: str = "m.pte"):
    path = tmp_path / name
    path.write_bytes(write_program(program))
    return path


@pytest.mark.parametrize("location", [INLINE, SEGMENT], ids=["inline", "segment"])
@pytest.mark.parametrize("constant", [False, True], ids=["input", "constant"])
def test_affine_delegate_between_kernels(tmp_path, location, constant):
    path = write(tmp_path, delegate_program(affine_blob(-2.0, 0.25), location=location, constant=constant))
    (out,) = run_pte(path, [X])
    np.testing.assert_array_equal(out, reference(X, lambda r: r * np.float32(-2.0) + np.float32(0.25), constant))


def test_relu_delegate(tmp_path):
    (out,) = run_pte(write(tmp_path, delegate_program(relu_blob(), location=SEGMENT)), [X])
    np.testing.assert_array_equal(out, reference(X, lambda r: np.maximum(r, 0)))


def test_two_delegates_one_backend(tmp_path):
    """Each delegate has its own state: the second call must not see the first one's operands."""
    program = with_second_delegate(delegate_program(affine_blob(2.0, 1.0)), affine_blob(0.5, -3.0))
    (out,) = run_pte(write(tmp_path, program), [X])
    np.testing.assert_array_equal(
        out, reference(X, lambda r: (r * np.float32(2) + np.float32(1)) * np.float32(0.5) - np.float32(3))
    )


def fails(tmp_path, program: P.Program) -> str:
    with pytest.raises(RuntimeFailure) as info:
        run_pte(write(tmp_path, program), [X])
    return str(info.value)


def test_unknown_backend_is_named_at_load(tmp_path):
    msg = fails(tmp_path, delegate_program(relu_blob(), backend="NoSuchNpu"))
    assert msg == f"mx_run: error: {ERR_BACKEND} (method forward, delegate 0 NoSuchNpu)"


@pytest.mark.parametrize(
    "blob",
    [
        b"MXTX" + struct.pack("<I", 1),
        b"MXTD" + struct.pack("<I", 7),
        b"MXT",
        relu_blob() + b"\0",
        affine_blob(1, 2)[:12],
    ],
    ids=["magic", "opcode", "short", "trailing", "operands"],
)
def test_bad_blob_is_refused_at_init(tmp_path, blob):
    msg = fails(tmp_path, delegate_program(blob))
    assert msg == f"mx_run: error: {ERR_DATA} (method forward, delegate 0 MxTestDelegate)"


@pytest.mark.parametrize("index", [1, -1])
def test_delegate_index_out_of_range(tmp_path, index):
    msg = fails(tmp_path, delegate_program(relu_blob(), delegate_index=index))
    assert msg == f"mx_run: error: {ERR_INDEX} (method forward, instruction 1)"


class _Unmapped(dict):
    """A segment map that passes unknown indices through, so the writer can write a dangling one."""

    def __missing__(self, key):
        return key


@pytest.mark.parametrize("location", [INLINE, SEGMENT], ids=["inline", "segment"])
def test_processed_index_out_of_range(tmp_path, monkeypatch, location):
    from mcu_export.pte import writer

    layout = writer._layout_segments
    monkeypatch.setattr(
        writer, "_layout_segments", lambda *a, **k: (lambda r: (r[0], r[1], _Unmapped(r[2]), r[3]))(layout(*a, **k))
    )
    msg = fails(tmp_path, delegate_program(relu_blob(), location=location, processed_index=3))
    assert msg == f"mx_run: error: {ERR_INDEX} (method forward, delegate 0 MxTestDelegate)"


def test_bad_args_are_an_execute_error(tmp_path):
    msg = fails(tmp_path, delegate_program(relu_blob(), delegate_args=[1, 2, 3]))
    assert msg == (
        "mx_run: error: a kernel received the wrong number of arguments "
        "(method forward, instruction 1, delegate 0 MxTestDelegate)"
    )
    msg = fails(tmp_path, delegate_program(relu_blob(), delegate_args=[1, 4]))
    assert "a kernel argument has the wrong type" in msg and "delegate 0 MxTestDelegate" in msg


def test_executorch_delegated_program_parses_and_names_its_backend(tmp_path):
    """ExecuTorch's own delegate layout (its demo backend over aten.mm + aten.add, args = inputs then outputs)
    reads in our runtime; a build without that backend refuses it at load, naming it."""
    import torch
    from executorch.exir import to_edge
    from executorch.exir.backend.test.op_partitioner_demo import AddMulPartitionerDemo

    class MmAddRelu(torch.nn.Module):
        def forward(self, a, x, b):
            return torch.relu(torch.mm(a, x) + b)

    inputs = tuple(torch.randn(2, 2) for _ in range(3))
    edge = to_edge(torch.export.export(MmAddRelu(), inputs)).to_backend(AddMulPartitionerDemo())
    path = tmp_path / "et.pte"
    path.write_bytes(edge.to_executorch().buffer)
    info = program_info(path)
    assert len(info.inputs) == 3 and dict(info.meta_counts)["delegates"] == 1
    with pytest.raises(RuntimeFailure) as failure:
        run_pte(path, [t.numpy() for t in inputs])
    assert str(failure.value) == f"mx_run: error: {ERR_BACKEND} (method forward, delegate 0 BackendWithCompilerDemo)"


def test_runner_without_backends_refuses_delegate_calls(tmp_path):
    runner = build_host_runner(backends=())
    with pytest.raises(RuntimeFailure) as info:
        run_pte(write(tmp_path, delegate_program(relu_blob())), [X], runner=runner)
    assert str(info.value) == f"mx_run: error: {ERR_BACKEND} (method forward, instruction 1)"


def test_pool_is_exact_with_delegate_state(tmp_path):
    runner = build_host_runner()
    path = write(tmp_path, delegate_program(affine_blob(1, 2)))
    info = subprocess.run([str(runner), str(path), "--info"], capture_output=True, text=True, check=True).stdout
    pool = int(re.search(r"^meta_pool (\d+)$", info, re.M).group(1))
    ok = subprocess.run([str(runner), str(path), "--load-only", "--meta-pool-size", str(pool)], capture_output=True)
    assert ok.returncode == 0
    short = subprocess.run(
        [str(runner), str(path), "--load-only", "--meta-pool-size", str(pool - 8)], capture_output=True, text=True
    )
    assert short.returncode == 3 and "metadata pool is too small" in short.stderr


def test_inspect_shows_the_delegate(tmp_path):
    result = cli("inspect", write(tmp_path, delegate_program(affine_blob(1, 2), location=SEGMENT)))
    assert result.code == 0, result.err
    assert "    [1] delegate#0 MxTestDelegate(%1:f32[2,3]@arena1+0x20, %2:f32[2,3]@arena1+0x40)" in result.out
    # the writer puts its (empty) constant segment first: the blob is segment 1 in the file
    assert "  delegates:\n    [0] MxTestDelegate: 16 B (segment 1)\n        opcode = 0x01 (1 B)\n" in result.out


@pytest.mark.parametrize(
    "kw, fragment",
    [
        (dict(processed_index=4), "processed.index: index 4 outside the 1 backend_delegate_data entries"),
        (dict(delegate_index=2), "delegate_index"),
    ],
    ids=["processed", "delegate"],
)
@pytest.mark.slow
def test_inspect_refuses_dangling_delegate_references(tmp_path, kw, fragment):
    assert_one_line_error(cli("inspect", write(tmp_path, delegate_program(relu_blob(), **kw))), fragment)


# --- the exporter's metadata-pool counts are the runtime's ---------------------------------------------


def assert_counts_match(path, plan):
    from mcu_export.firmware.model_project import pool_counts

    info = program_info(path)
    counted = dict(info.meta_counts)
    expected = dataclasses.asdict(pool_counts(plan, HOST_BACKENDS))
    assert set(counted) == set(expected)  # every count the pool layout uses, and no other
    assert counted == expected
    # the pool the loader asks for is what a firmware's static pool sums from these counts
    lasting, load, where = info.meta_blocks
    assert info.meta_pool_bytes == lasting + (load if where == "pool" else 0)


def test_pool_counts_match_the_runtime_for_delegate_programs(tmp_path):
    two = with_second_delegate(delegate_program(affine_blob(2.0, 1.0), constant=True), relu_blob())
    for k, program in enumerate([delegate_program(relu_blob(), location=SEGMENT), two]):
        path = write(tmp_path, program, f"d{k}.pte")
        assert_counts_match(path, program.method())
    assert dict(program_info(path).meta_counts)["delegate_state"] == 2 * 16  # 12 bytes each, rounded to 8


def test_pool_counts_refuse_a_delegate_no_linked_backend_runs():
    from mcu_export.errors import UsageError
    from mcu_export.firmware.model_project import pool_counts

    plan = delegate_program(relu_blob()).method()
    with pytest.raises(
        UsageError,
        match=r"^delegate 0 \(MxTestDelegate\): no backend for it in this build "
        r"\(linked: none\)$",
    ):
        pool_counts(plan)  # firmware links no backend yet
    assert pool_counts(plan, HOST_BACKENDS).delegate_state == 16


def test_test_delegate_state_bytes_match_its_source():
    from mcu_export.assets import asset_dir
    from mcu_export.host_runtime import TEST_DELEGATE

    source = (asset_dir("runtime_c") / "host" / "mx_test_delegate.c").read_text()
    fields = re.search(r"typedef struct test_state \{(.*?)\} test_state;", source, re.S).group(1)
    # fixed-width 4-byte fields only, so sizeof is the same on every target
    names = re.findall(r"(?:uint32_t|float)\s+([\w, ]+);", fields)
    assert sum(len(n.split(",")) for n in names) * 4 == TEST_DELEGATE.state_bytes
    assert f'"{TEST_DELEGATE.id}", sizeof(test_state)' in source


@pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")
@pytest.mark.parametrize("name", ["kws_dscnn", "resnet8", "mnist_mlp", "autoencoder"])
@pytest.mark.parametrize("quantize", [False, True], ids=["fp32", "int8"])
@pytest.mark.slow
def test_pool_counts_match_the_runtime_for_examples(tmp_path, name, quantize):
    import example_models
    import mcu_export.api

    if quantize:
        model, inputs = example_models.model_and_inputs(name)
        artifact = mcu_export.api.export(model, inputs, quantize="int8")
    else:
        artifact = example_models.exported(name)
    path = tmp_path / "model.pte"
    path.write_bytes(artifact.pte)
    assert_counts_match(path, artifact.program.method())


# --- under AddressSanitizer + UBSan: bad delegate programs are errors, never crashes ----------------------

SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:exitcode=99",
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=98:print_stacktrace=1",
}


@pytest.mark.slow
def test_sanitized_runs_and_corrupted_words(tmp_path):
    import os
    from concurrent.futures import ThreadPoolExecutor

    runner = build_host_runner(sanitize=True)
    for location in (INLINE, SEGMENT):
        program = delegate_program(affine_blob(3.0, -1.0), location=location, constant=True)
        (out,) = run_pte(write(tmp_path, program), [X], runner=runner)
        np.testing.assert_array_equal(out, reference(X, lambda r: r * np.float32(3) - np.float32(1), True))

    data = write_program(delegate_program(affine_blob(3.0, -1.0), location=SEGMENT))
    env = dict(os.environ, **SAN_ENV)

    def one(job):
        pos, value = job
        bad = bytearray(data)
        bad[pos : pos + 4] = struct.pack("<I", value)
        path = tmp_path / f"w{pos}_{value:x}.pte"
        path.write_bytes(bytes(bad))
        proc = subprocess.run(
            [str(runner), str(path), "--load-only"],
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            timeout=60,
        )
        path.unlink()
        lines = proc.stderr.splitlines()
        assert proc.returncode == 0 or (
            proc.returncode == 3 and len(lines) == 1 and lines[0].startswith("mx_run: error: ")
        ), (pos, value, proc.stderr[-2000:])
        return proc.returncode

    jobs = [(pos, v) for pos in range(0, len(data) - 3, 4) for v in (0, 3, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFC)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        codes = list(pool.map(one, jobs))
    assert codes.count(3) > len(jobs) // 4  # the corpus does reach the error paths
