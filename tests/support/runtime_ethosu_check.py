"""What test_runtime_ethosu.py and test_runtime_ethosu85.py hold an Ethos-U job to on mx_run's check build
(build_host_runner(npu_check=True): runtime_c/host/mx_run_npu_check.c reports the programmed job instead of
simulating): where the program says QBASE, QSIZE and each BASEPn must point, the reports parsed, and a run with
inputs that quantize exactly whose outputs come from the check hook's pattern through the program's dequantize."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import numpy as np

from mcu_export.ethosu import blob as B
from mcu_export.pte import program as P
from runtime_ethosu_tools import delegate_call  # tests/support

PATTERN = (np.arange(1 << 16) * 29 + 11).astype(np.uint8)  # what the check hook leaves at scratch offset i


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
