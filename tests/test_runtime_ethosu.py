"""EthosUBackend in the C runtime (runtime_c/backends/ethosu/) and mx_run's host NPU (runtime_c/host/mx_run_npu*.c):
an int8 export for ethos-u55-128 loads (init parses and checks the blob, the DelegateCall's arguments are checked
against its I/O records), its metadata pool is what the exporter counts, and a run reaches the simulator. A build
whose NPU reports the programmed job instead of simulating (build_host_runner(npu_check=True)) proves the plumbing
without the simulator: QBASE at the payload's command words in the loaded program, BASEP0 at weight_data in
place, BASEP1 at the call's scratch tensor in the planned arena, the inputs at their Vela offsets, and the
bytes the "NPU" leaves at each output offset in the program's outputs, through the float dequantize. Malformed
blobs and calls are load errors naming the delegate, never faults (ASan/UBSan). ExecuTorch's own Ethos-U .pte (no
scratch argument) runs on the platform's scratch."""

from __future__ import annotations

import copy
import dataclasses
import re
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch

from mcu_export.assets import asset_dir
from mcu_export.errors import RuntimeFailure
from mcu_export.ethosu import blob as B
from mcu_export.host_runtime import ETHOSU, HOST_BACKENDS, build_host_runner
from mcu_export.pte import program as P
from mcu_export.pte.writer import write_program
from mcu_export.runners.host import program_info, run_pte

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")

SIMULATOR_BUILT = (asset_dir("fvp") / "ethosu_sim" / "npu_exec.c").is_file()
ERR_DATA = "a delegate's processed data is malformed or not what its backend runs"
ERR_FAILED = "a delegate's backend failed while running it (e.g. an NPU fault)"
SITE = "(method forward, delegate 0 EthosUBackend)"  # where init's refusals point
PATTERN = (np.arange(1 << 16) * 29 + 11).astype(np.uint8)  # what the check hook leaves at scratch offset i


class TwoInTwoOut(torch.nn.Module):
    """One NPU subgraph with two inputs and two outputs (Vela places an output over an input's bytes)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(16, 12), torch.nn.Linear(8, 12)

    def forward(self, x, y):
        h = self.a(x) + self.b(y)
        return torch.relu(h), h * 2


def model_and_inputs():
    torch.manual_seed(0)
    model = TwoInTwoOut().eval()
    return model, (torch.randn(2, 16), torch.randn(2, 8))


@dataclasses.dataclass
class Exported:
    program: P.Program
    pte: bytes
    path: Path


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="mx-ethosu-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def exported(workdir) -> Exported:
    return export_for("ethos-u55-128", workdir)


@pytest.fixture(scope="module")
def check_runner():
    return build_host_runner(npu_check=True)


# --- what the program says a job must look like -----------------------------------------------------------


def delegate_call(plan: P.ExecutionPlan):
    (index,) = [i for i, ins in enumerate(plan.chains[0].instructions) if isinstance(ins, P.DelegateCall)]
    return index, plan.chains[0].instructions[index]


def stream_start(cmd_data: bytes) -> tuple:
    """(byte offset of the first command word, stream bytes) in Vela's payload, by its layout."""
    words = struct.unpack(f"<{len(cmd_data) // 4}I", cmd_data)
    at = 1
    while at < len(words):
        action, length = words[at] & 0xFF, (words[at] >> 16) | ((words[at] >> 8) & 0xFF) << 16
        at += 1
        if action == 2:
            return 4 * at, 4 * length
        at += 2 if action == 1 else 0
    raise AssertionError("no command stream")


def expected_job(program: P.Program, pte: bytes, scratch_where: str) -> dict:
    plan = program.method()
    _, call = delegate_call(plan)
    processed = bytes(program.backend_delegate_data[plan.delegates[0].processed.index])
    assert pte.count(processed) == 1
    at = pte.index(processed)
    blocks = {b.name: b for b in B.blocks(processed)}
    stream, stream_bytes = stream_start(processed[blocks["cmd_data"].offset :][: blocks["cmd_data"].length])
    blob = B.unpack(processed)
    return {
        "qbase": f"program+{at + blocks['cmd_data'].offset + stream}",
        "qsize": stream_bytes,
        "basep": {
            0: (f"program+{at + blocks['weight_data'].offset}", len(blob.weight_data)),
            1: (scratch_where, blob.scratch_size),
            2: ("fast_scratch+0", 2 << 20),
            **{n: ("0", 0) for n in range(3, 8)},
        },
        "blob": blob,
        "call": call,
    }


def planned_scratch(program: P.Program) -> str:
    """Where the DelegateCall's last argument, the scratch tensor, sits: arena<id>+<offset>."""
    plan = program.method()
    scratch = plan.values[delegate_call(plan)[1].args[-1]]
    assert scratch.scalar_type == P.ScalarType.BYTE
    return f"arena{scratch.allocation_info.memory_id}+{scratch.allocation_info.memory_offset}"


def jobs(stderr: str) -> list:
    """The check hook's reports (runtime_c/host/mx_run_npu_check.c), one dict a job."""
    found: list = []
    for line in stderr.splitlines():
        fields = line.split()
        if fields[:2] != ["mx_run:", "npu-check"]:
            continue
        if fields[2] == "job":
            found.append({"qbase": fields[5], "qsize": int(fields[7]), "basep": {}})
        elif fields[2] == "basep":
            found[-1]["basep"][int(fields[3])] = (fields[4], int(fields[6]))
        elif fields[2] == "scratch":
            found[-1]["scratch"] = bytes.fromhex(fields[3] if len(fields) > 3 else "")
    return found


def quantization_around(plan: P.ExecutionPlan, call: P.DelegateCall, blob: B.VelaBlob) -> tuple:
    """For each delegate input: (program input index, scale, zero point) of the quantize feeding it; for each
    delegate output: (program output index, scale, zero point) of the dequantize reading it."""
    kernels = [i for i in plan.chains[0].instructions if isinstance(i, P.KernelCall)]

    def around(value, position, kind, io):
        (k,) = [k for k in kernels if k.args[position] == value and plan.operators[k.op_index].name.endswith(kind)]
        return (
            io.index(k.args[0 if position == -1 else -1]),
            plan.values[k.args[1]].double_val,
            plan.values[k.args[2]].int_val,
        )

    n_in, n_out = len(blob.inputs), len(blob.outputs)
    ins = [around(v, -1, "::quantize_per_tensor", plan.inputs) for v in call.args[:n_in]]
    outs = [around(v, 0, "::dequantize_per_tensor", plan.outputs) for v in call.args[n_in : n_in + n_out]]
    return ins, outs


def run_checked(runner, path: Path, program: P.Program, workdir: Path, seed: int = 1):
    """Runs `path` on the check build with inputs that quantize exactly; returns (report, expected input bytes
    per program input, outputs)."""
    plan = program.method()
    rng = np.random.default_rng(seed)
    feeds, q_inputs = [], []
    _, call = delegate_call(plan)
    ins, _ = quantization_around(plan, call, B.unpack(bytes(program.backend_delegate_data[0])))
    by_input = {i: (s, z) for i, s, z in ins}
    args = [str(runner), str(path)]
    outs = []
    for i, v in enumerate(plan.inputs):
        t = plan.values[v]
        scale, zp = by_input[i]
        q = rng.integers(-128, 128, size=t.sizes).astype(np.int8)
        x = ((q.astype(np.float64) - zp) * scale).astype(np.float32)
        q_inputs.append(q)
        f = workdir / f"in{i}.bin"
        x.tofile(f)
        args += ["--input", f"6:{'x'.join(map(str, t.sizes))}:{f}"]
        feeds.append(x)
    for i in range(len(plan.outputs)):
        outs.append(workdir / f"out{i}.bin")
        args += ["--output", str(outs[-1])]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return jobs(proc.stderr), q_inputs, [np.fromfile(o, np.float32) for o in outs]


def assert_job_as_programmed(program, pte, report, q_inputs, outputs, scratch_where):
    plan = program.method()
    want = expected_job(program, pte, scratch_where)
    (job,) = report
    assert job["qbase"] == want["qbase"] and job["qsize"] == want["qsize"]
    assert job["basep"] == want["basep"]
    blob, call = want["blob"], want["call"]
    assert len(job["scratch"]) == blob.scratch_size
    ins, outs = quantization_around(plan, call, blob)
    # each input's bytes at scratch + its Vela offset (in order: the records follow the call's inputs)
    for (index, _, _), record in zip(ins, blob.inputs):
        n = q_inputs[index].nbytes
        assert job["scratch"][record.offset : record.offset + n] == q_inputs[index].tobytes()
    # each output read from scratch + its offset, then dequantized on the CPU
    assert len(outs) == len(blob.outputs)
    for (index, scale, zp), record in zip(outs, blob.outputs):
        q = PATTERN[record.offset : record.offset + outputs[index].size].view(np.int8)
        np.testing.assert_allclose(outputs[index], (q.astype(np.float32) - zp) * np.float32(scale), rtol=1e-6)


# --- the backend as the exporter sees it ----------------------------------------------------------------


def test_state_bytes_are_the_backend_source():
    header = (asset_dir("runtime_c") / "backends" / "ethosu" / "ethosu_backend.h").read_text()
    source = (asset_dir("runtime_c") / "backends" / "ethosu" / "ethosu_backend.c").read_text()
    assert f"#define MX_ETHOSU_STATE_BYTES {ETHOSU.state_bytes}u" in header
    assert "_Static_assert(sizeof(ethosu_state) == MX_ETHOSU_STATE_BYTES" in source
    assert f'"{ETHOSU.id}", sizeof(ethosu_state)' in source and ETHOSU.id == B.BACKEND_ID


def test_loads_with_the_pool_the_exporter_counts(exported):
    from mcu_export.firmware.model_project import pool_counts

    counted = dict(program_info(exported.path).meta_counts)
    assert counted == dataclasses.asdict(pool_counts(exported.program.method(), HOST_BACKENDS))
    assert counted["delegates"] == 1 and counted["delegate_state"] == ETHOSU.state_bytes
    runner = build_host_runner()
    info = subprocess.run([str(runner), str(exported.path), "--info"], capture_output=True, text=True, check=True)
    pool = int(re.search(r"^meta_pool (\d+)$", info.stdout, re.M).group(1))
    ok = subprocess.run([str(runner), str(exported.path), "--load-only", "--meta-pool-size", str(pool)])
    assert ok.returncode == 0  # init and the call's check pass with exactly that pool
    short = subprocess.run(
        [str(runner), str(exported.path), "--load-only", "--meta-pool-size", str(pool - 8)],
        capture_output=True,
        text=True,
    )
    assert short.returncode == 3 and "metadata pool is too small" in short.stderr


@pytest.mark.skipif(SIMULATOR_BUILT, reason="the simulator's executor is built: the run goes through")
def test_a_run_reaches_the_simulator(exported):
    with pytest.raises(RuntimeFailure) as failure:
        run_pte(exported.path, [np.zeros((2, 16), np.float32), np.zeros((2, 8), np.float32)])
    index, _ = delegate_call(exported.program.method())
    assert str(failure.value) == (
        f"mx_run: error: {ERR_FAILED} (method forward, instruction {index}, delegate 0 EthosUBackend: "
        "NPU: simulator not built (fvp/ethosu_sim/npu_exec.c was missing when mx_run was built))"
    )


def test_the_job_is_programmed_as_the_program_says(exported, check_runner, workdir):
    report, q_inputs, outputs = run_checked(check_runner, exported.path, exported.program, workdir)
    assert_job_as_programmed(
        exported.program, exported.pte, report, q_inputs, outputs, planned_scratch(exported.program)
    )


def export_for(accelerator: str, workdir: Path) -> Exported:
    import mcu_export

    model, inputs = model_and_inputs()
    artifact = mcu_export.export(model, inputs, quantize="int8", backend=accelerator)
    path = workdir / f"{accelerator}.pte"
    path.write_bytes(artifact.pte)
    return Exported(artifact.program, artifact.pte, path)


@pytest.mark.slow
def test_an_ethos_u65_job_gets_the_fast_scratch(check_runner, workdir):
    """The host NPU plays the product the payload was compiled for (U65: 40-bit addresses in Arm's driver,
    64 here); Vela's Dedicated_Sram mode, the U65's default, gets the platform's fast scratch as region 2."""
    u65 = export_for("ethos-u65-256", workdir)
    report, q_inputs, outputs = run_checked(check_runner, u65.path, u65.program, workdir)
    assert_job_as_programmed(u65.program, u65.pte, report, q_inputs, outputs, planned_scratch(u65.program))


@pytest.mark.slow
def test_an_ethos_u85_payload_is_refused_at_load(workdir):
    """Our driver runs U55/U65 command streams only: a payload compiled for a U85 cannot run."""
    u85 = export_for("ethos-u85-256", workdir)
    proc = subprocess.run([str(build_host_runner()), str(u85.path), "--load-only"], capture_output=True, text=True)
    assert proc.returncode == 3 and proc.stderr == f"mx_run: error: {ERR_DATA} {SITE}\n", proc.stderr


@pytest.mark.skipif(not SIMULATOR_BUILT, reason="fvp/ethosu_sim/npu_exec.c is not in this tree yet")
def test_simulated_run_equals_the_cpu_program(exported, workdir):
    """With the executor built, mx_run's NPU result is the CPU program's, bit for bit."""
    import mcu_export

    model, inputs = model_and_inputs()
    cpu = mcu_export.export(model, inputs, quantize="int8", backend="cortex-m")
    cpu_path = workdir / "cpu.pte"
    cpu_path.write_bytes(cpu.pte)
    feeds = [t.numpy() for t in inputs]
    for got, want in zip(run_pte(exported.path, feeds), run_pte(cpu_path, feeds)):
        np.testing.assert_array_equal(got, want)


# --- load-time refusals ------------------------------------------------------------------------------------


def with_blob(exported: Exported, processed: bytes, path: Path) -> Path:
    program = copy.deepcopy(exported.program)
    program.backend_delegate_data[program.method().delegates[0].processed.index] = processed
    path.write_bytes(write_program(program))
    return path


def raw_blocks(processed: bytes) -> list:
    return [[b.name, processed[b.offset : b.offset + b.length], b.external] for b in B.blocks(processed)]


def pack_raw(blocks) -> bytes:
    out = b""
    for name, data, external in blocks:
        out += struct.pack("<16sIB11s", name.encode(), len(data), int(external), bytes(11))
        out += data + bytes(-len(data) % 16)
    return out


def edit_block(name, fn):
    def edit(processed):
        blocks = raw_blocks(processed)
        for b in blocks:
            if b[0] == name:
                b[1] = fn(b[1])
        return pack_raw(blocks)

    return edit


def edit_record(block, index, field, value):
    """Sets field (0..5 shape, 6 elem_size, 7 offset, 8 region) of I/O record `index` of `block`."""

    def fn(data):
        data = bytearray(data)
        struct.pack_into("<i", data, 4 + 36 * index + 4 * field, value)
        return bytes(data)

    return edit_block(block, fn)


def drop_block(name):
    return lambda p: pack_raw([b for b in raw_blocks(p) if b[0] != name])


def swap_io(p):
    blocks = raw_blocks(p)
    blocks[4], blocks[5] = blocks[5], blocks[4]
    return pack_raw(blocks)


def set_external(p):
    blocks = raw_blocks(p)
    blocks[2][2] = True
    return pack_raw(blocks)


BAD_BLOBS = {
    "empty": lambda p: b"",
    "short-header": lambda p: p[:20],
    "truncated": lambda p: p[:-32],  # vela_end_stream's header gone
    "trailing": lambda p: p + bytes(16),
    "missing-weight-data": drop_block("weight_data"),
    "io-swapped": swap_io,
    "external-block": set_external,
    "length-past-end": lambda p: p[:16] + struct.pack("<I", len(p)) + p[20:],  # vela_bin_stream's length
    "scratch-size-3-bytes": edit_block("scratch_size", lambda d: d[:3]),
    "inputs-count-2-records-1": edit_block("inputs", lambda d: struct.pack("<i", 1) + d[4:]),
    "inputs-count-negative": edit_block("inputs", lambda d: struct.pack("<i", -1) + d[4:]),
    "inputs-no-count": edit_block("inputs", lambda d: b""),
    "output-past-scratch": edit_record("outputs", 0, 7, 90),  # 24 bytes at 90 of a 96-byte scratch
    "output-offset-negative": edit_record("outputs", 0, 7, -16),
    "input-region-2": edit_record("inputs", 0, 8, 2),
    "elem-size-0": edit_record("inputs", 1, 6, 0),
    "dim-negative": edit_record("inputs", 1, 0, -1),
    "dims-overflow": lambda p: edit_record("inputs", 0, 1, 1 << 30)(edit_record("inputs", 0, 0, 1 << 30)(p)),
    "payload-tag": edit_block("cmd_data", lambda d: b"XXXX" + d[4:]),
    "payload-odd-length": edit_block("cmd_data", lambda d: d[:-2]),
    "payload-unknown-action": edit_block("cmd_data", lambda d: d[:4] + struct.pack("<I", 9) + d[8:]),
    "payload-no-stream": edit_block("cmd_data", lambda d: d[:4]),
}


@pytest.mark.parametrize("name", sorted(BAD_BLOBS))
def test_bad_blobs_are_refused_at_init(exported, workdir, name):
    processed = bytes(exported.program.backend_delegate_data[0])
    path = with_blob(exported, BAD_BLOBS[name](processed), workdir / f"bad-{name}.pte")
    proc = subprocess.run([str(build_host_runner()), str(path), "--load-only"], capture_output=True, text=True)
    assert proc.returncode == 3 and proc.stderr == f"mx_run: error: {ERR_DATA} {SITE}\n", proc.stderr


def with_call(exported: Exported, path: Path, *, args=None, scratch=None) -> Path:
    program = copy.deepcopy(exported.program)
    plan = program.method()
    index, call = delegate_call(plan)
    if args is not None:
        plan.chains[0].instructions[index] = P.DelegateCall(call.delegate_index, args(list(call.args), plan))
    if scratch is not None:
        scratch(plan.values[call.args[-1]])
    path.write_bytes(write_program(program))
    return path


def first_int(plan: P.ExecutionPlan) -> int:
    return next(i for i, v in enumerate(plan.values) if isinstance(v, P.Int))


BAD_CALLS = {
    # (edit of the call or of the blob, error text, argument named)
    "two-args-short": (dict(args=lambda a, plan: a[2:]), "a kernel received the wrong number of arguments", None),
    "one-arg-short": (dict(args=lambda a, plan: a[1:]), "a kernel received tensors of inconsistent shapes", 0),
    "not-a-tensor": (
        dict(args=lambda a, plan: [a[0], first_int(plan), *a[2:]]),
        "a kernel argument has the wrong type",
        1,
    ),
    "scratch-too-small": (
        dict(scratch=lambda t: setattr(t, "sizes", [t.sizes[0] - 16])),
        "a kernel received tensors of inconsistent shapes",
        4,
    ),
    "scratch-not-uint8": (
        dict(scratch=lambda t: setattr(t, "scalar_type", P.ScalarType.CHAR)),
        "a kernel received a tensor of an unsupported dtype",
        4,
    ),
    "elem-size": (
        dict(blob=lambda p: edit_record("inputs", 1, 6, 2)(edit_record("inputs", 1, 2, 1)(p))),
        "a kernel received a tensor of an unsupported dtype",
        1,
    ),  # fmt: skip
    "byte-count": (dict(blob=edit_record("inputs", 1, 2, 1)), "a kernel received tensors of inconsistent shapes", 1),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_calls_that_disagree_with_the_blob_are_refused_at_load(exported, workdir, name):
    edit, text, arg = BAD_CALLS[name]
    path = workdir / f"call-{name}.pte"
    if "blob" in edit:
        with_blob(exported, edit["blob"](bytes(exported.program.backend_delegate_data[0])), path)
    else:
        with_call(exported, path, **edit)
    index, _ = delegate_call(exported.program.method())
    proc = subprocess.run([str(build_host_runner()), str(path), "--load-only"], capture_output=True, text=True)
    named = f", argument {arg}" if arg is not None else ""
    site = f"(method forward, instruction {index}{named}, delegate 0 EthosUBackend)"
    assert proc.returncode == 3 and proc.stderr == f"mx_run: error: {text} {site}\n", proc.stderr


# --- malformed blobs under AddressSanitizer + UBSan ------------------------------------------------------

SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:exitcode=99",
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=98:print_stacktrace=1",
}


@pytest.mark.slow
def test_corrupted_blobs_never_fault_under_sanitizers(exported, workdir):
    """Every word of the blob's headers, scratch size and I/O records, and the payload's first words, set to
    edge values: each program loads and runs (up to the check hook) or is one error line."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    runner = build_host_runner(sanitize=True, npu_check=True)
    env = dict(os.environ, **SAN_ENV)
    processed = bytes(exported.program.backend_delegate_data[0])
    blocks = B.blocks(processed)
    cmd = next(b for b in blocks if b.name == "cmd_data")
    positions = [p for b in blocks for p in range(b.offset - 32, b.offset, 4)]  # headers
    for b in blocks:
        if b.name in ("scratch_size", "inputs", "outputs"):
            positions += range(b.offset, b.offset + b.length, 4)
    positions += range(cmd.offset, cmd.offset + min(cmd.length, 64), 4)
    inputs = []
    for i, v in enumerate(exported.program.method().inputs):
        t = exported.program.method().values[v]
        f = workdir / f"san-in{i}.bin"
        np.zeros(t.sizes, np.float32).tofile(f)
        inputs += ["--input", f"6:{'x'.join(map(str, t.sizes))}:{f}"]

    def one(job):
        pos, value = job
        bad = bytearray(processed)
        bad[pos : pos + 4] = struct.pack("<I", value)
        path = with_blob(exported, bytes(bad), workdir / f"san-{pos}-{value:x}.pte")
        proc = subprocess.run(
            [str(runner), str(path), *inputs], capture_output=True, text=True, errors="replace", env=env, timeout=60
        )
        path.unlink()
        lines = [l for l in proc.stderr.splitlines() if not l.startswith("mx_run: npu-check ")]
        assert proc.returncode == 0 or (
            proc.returncode == 3 and len(lines) == 1 and lines[0].startswith("mx_run: error: ")
        ), (pos, value, proc.stderr[-2000:])
        return proc.returncode

    jobs_ = [(p, v) for p in positions for v in (0, 1, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        codes = list(pool.map(one, jobs_))
    assert codes.count(3) > len(jobs_) // 4 and codes.count(0) > 0


# --- ExecuTorch's own Ethos-U program: no scratch argument ------------------------------------------------


@pytest.fixture(scope="module")
def executorch_program(workdir):
    """TwoInTwoOut through ExecuTorch's Arm flow as aot_arm_compiler.py runs it for an Ethos-U target (its
    ReplaceQuantNodesPass included: the CPU's q/dq become cortex_m ops, which this runtime has)."""
    from et_ethosu_program import executorch_ethosu_pte  # tests/support
    from mcu_export.pte.reader import read_program

    model, inputs = model_and_inputs()
    pte, _ = executorch_ethosu_pte(model, inputs)
    path = workdir / "executorch.pte"
    path.write_bytes(pte)
    return Exported(read_program(pte), pte, path)


@pytest.mark.interop
@pytest.mark.slow
def test_executorch_program_runs_on_the_platform_scratch(executorch_program, check_runner, workdir):
    from mcu_export.firmware.model_project import pool_counts

    program = executorch_program.program
    plan = program.method()
    _, call = delegate_call(plan)
    blob = B.unpack(bytes(program.backend_delegate_data[0]))
    assert len(call.args) == len(blob.inputs) + len(blob.outputs)  # ExecuTorch's call: no scratch argument
    counted = dict(program_info(executorch_program.path).meta_counts)
    assert counted == dataclasses.asdict(pool_counts(plan, HOST_BACKENDS))
    report, q_inputs, outputs = run_checked(check_runner, executorch_program.path, program, workdir)
    assert_job_as_programmed(program, executorch_program.pte, report, q_inputs, outputs, "host_scratch+0")
