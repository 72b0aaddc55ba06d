"""EthosUBackend's load-time refusals in the C runtime (runtime_c/backends/ethosu/): malformed blobs, a payload for
a product the driver does not run (CONFIG.product 3; a U85's loads) and DelegateCalls that disagree with the blob's
I/O records are load errors naming the delegate; corrupted blobs never fault under ASan/UBSan. The runs and the programmed job are in
test_runtime_ethosu.py."""

from __future__ import annotations

import copy
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mcu_export.ethosu import blob as B
from mcu_export.host_runtime import build_host_runner
from mcu_export.pte import program as P
from mcu_export.pte.writer import write_program
from runtime_ethosu_tools import ERR_DATA, SITE, Exported, delegate_call, export_for  # tests/support

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="mx-ethosu-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def exported(workdir) -> Exported:
    return export_for("ethos-u55-128", workdir)


# --- load-time refusals ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_an_ethos_u85_payload_loads_and_one_for_no_known_product_is_refused(workdir):
    """Our driver runs U55, U65 and U85 command streams (whether the NPU is that product is checked at the run:
    test_runtime_ethosu85.py); a payload whose OPTIMIZER_CONFIG names product 3 cannot run anywhere."""
    u85 = export_for("ethos-u85-256", workdir)
    runner = str(build_host_runner())
    ok = subprocess.run([runner, str(u85.path), "--load-only"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stderr == "", ok.stderr
    product_3 = edit_block("cmd_data", lambda d: d[:8] + struct.pack("<I", 0x30000118) + d[12:])
    processed = bytes(u85.program.backend_delegate_data[0])
    assert struct.unpack_from("<I", B.unpack(processed).cmd_data, 8)[0] >> 28 == 2  # the U85's CONFIG word
    path = with_blob(u85, product_3(processed), workdir / "product-3.pte")
    proc = subprocess.run([runner, str(path), "--load-only"], capture_output=True, text=True)
    assert proc.returncode == 3 and proc.stderr == f"mx_run: error: {ERR_DATA} {SITE}\n", proc.stderr


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
