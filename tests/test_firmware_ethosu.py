"""Model firmware that runs EthosUBackend delegates (mcu_export/firmware/npu.py, boards/ethosu/npu_platform.c): an int8
export for corstone-300 builds one ELF with the delegate kernel, the driver and both register accesses, its .pte and
the arena holding the NPU scratch in memory the NPU reaches; on QEMU (no NPU: the ID register reads 0) each job goes
to the host over the semihosting seam, where a test executor checks the job and answers with a pattern that comes
out through the program's dequantize, a job the simulator refuses fails the run in one line naming the delegate, and
our simulator (mcu_export/ethosu/simulator.py) gives outputs equal to the host runtime's and the int8 reference's.
Boards without the NPU fields, and programs without delegates, render the same project as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from cli_runner import cli  # tests/support
from mcu_export.assets import asset_dir
from mcu_export.boards import BoardFileError, load_board
from mcu_export.errors import RuntimeFailure, UsageError
from mcu_export.ethosu import blob as B
from mcu_export.ethosu import simulator as S
from mcu_export.examples import spec
from mcu_export.pte import program as P
from mcu_export.pte.reader import read_program
from npu_test_tools import FIRMWARE_TOOLS, memory_of, missing, needs, stream_words  # tests/support

pytestmark = pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs")

BOARD = "corstone-300"
ROOT = Path(__file__).resolve().parents[1]
QEMU_TIMEOUT = 60.0


needs_firmware = needs(*FIRMWARE_TOOLS)
needs_qemu = needs("qemu-system-arm", *FIRMWARE_TOOLS)
needs_cc = needs("cc", "ar")


# --- what the program says --------------------------------------------------------------------------------------


def delegate_call(plan: P.ExecutionPlan):
    (index,) = [i for i, ins in enumerate(plan.chains[0].instructions) if isinstance(ins, P.DelegateCall)]
    return index, plan.chains[0].instructions[index]


def blob_of(program: P.Program) -> B.VelaBlob:
    return B.unpack(bytes(program.backend_delegate_data[program.method().delegates[0].processed.index]))


def record_bytes(record) -> int:
    size = record.elem_size
    for dim in record.shape:
        size *= dim
    return size


def quantize_params(plan: P.ExecutionPlan, value: int, kind: str, position: int) -> tuple:
    """(scale, zero point) of the quantize writing (position -1) or the dequantize reading (0) `value`."""
    (k,) = [
        k
        for k in plan.chains[0].instructions
        if isinstance(k, P.KernelCall) and k.args[position] == value and plan.operators[k.op_index].name.endswith(kind)
    ]
    return plan.values[k.args[1]].double_val, plan.values[k.args[2]].int_val


def exact_inputs(program: P.Program, seed: int = 1):
    """Float inputs that the program's quantize turns into known int8 values: (floats, their int8 values)."""
    plan = program.method()
    _, call = delegate_call(plan)
    rng = np.random.default_rng(seed)
    floats, quantized = [], []
    for i, v in enumerate(plan.inputs):
        assert call.args[i] != v  # the delegate's input is the quantize's output
        scale, zp = quantize_params(plan, call.args[i], "::quantize_per_tensor", -1)
        q = rng.integers(-128, 128, size=plan.values[v].sizes).astype(np.int8)
        floats.append(((q.astype(np.float64) - zp) * scale).astype(np.float32))
        quantized.append(q)
    return floats, quantized


# --- exports, shared by the module ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    """mnist_mlp exported in int8 for corstone-300 (wholly on the NPU), saved: (artifact, export folder)."""
    pytest.importorskip("tosa_serializer")
    from mcu_export.api import export_spec

    artifact = export_spec(spec("mnist_mlp"), quantize="int8", board=BOARD)
    assert [d.id for d in artifact.program.method().delegates] == ["EthosUBackend"]
    return artifact, artifact.save(tmp_path_factory.mktemp("mlp") / "out")


@pytest.fixture(scope="module")
def mlp_build(mlp):
    from mcu_export.firmware.flow import build_for_board

    return build_for_board(mlp[1], BOARD)


@pytest.fixture(scope="module")
def cpu_mlp():
    """The same model in int8 for the CPU only (--backend cortex-m): no delegate."""
    from mcu_export.api import export_spec

    return export_spec(spec("mnist_mlp"), quantize="int8", board=BOARD, backend="cortex-m")


def board_folder(tmp_path: Path, edit) -> Path:
    """A boards/ folder whose corstone-300.toml is `edit` of ours (with the C files it names)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    text = (asset_dir("boards") / f"{BOARD}.toml").read_text()
    (tmp_path / f"{BOARD}.toml").write_text(edit(text))
    shutil.copytree(asset_dir("boards") / "include", tmp_path / "include", dirs_exist_ok=True)
    shutil.copytree(asset_dir("boards") / "cortex_m", tmp_path / "cortex_m", dirs_exist_ok=True)
    return tmp_path


def board_without_npu(tmp_path: Path):
    """corstone-300 from a copy of its file without npu_base/npu_irq/npu_reachable (same name, another folder)."""

    def edit(text: str) -> str:
        kept = [line for line in text.splitlines() if not line.startswith(("npu_base", "npu_irq", "npu_reachable"))]
        return "\n".join(kept) + "\n"

    board = load_board(BOARD, directory=board_folder(tmp_path, edit))
    assert board.npu_base is None and board.npu == "ethos-u55-128"
    return board


# --- the board file ---------------------------------------------------------------------------------------------


def test_corstone_300_says_where_its_npu_is_and_what_it_reaches():
    board = load_board(BOARD)
    assert (board.npu_base, board.npu_irq) == (0x58102000, 56)
    assert board.npu_reachable == ("bram", "isram", "ddr")
    c320 = load_board("corstone-320")  # its Ethos-U85 (test_firmware_ethosu85.py builds for it)
    assert (c320.npu_base, c320.npu_irq, c320.npu_reachable) == (0x50004000, 16, ("sram", "ddr"))
    readme = (asset_dir("boards") / "README.md").read_text()
    assert all(f"`{field}`" in readme for field in ("npu_base", "npu_irq", "npu_reachable"))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("npu_irq = 56\n", ""), r"field 'npu_irq': missing: npu_base, npu_reachable needs npu_irq"),
        (lambda t: t.replace('npu_reachable = ["bram",', 'npu_reachable = ["sram",'), r"'npu_reachable': no memory region named 'sram'"),
        (lambda t: t.replace('npu_reachable = ["bram", "isram", "ddr"]', 'npu_reachable = ["itcm"]'), r"none of \[sections\].arenas \(dtcm, isram, ddr\)"),
        (lambda t: t.replace("npu_base = 0x58102000", "npu_base = 0x58102004"), r"'npu_base': 0x58102004 is not a 16-byte"),
        (lambda t: t.replace("npu_irq = 56", "npu_irq = 480"), r"'npu_irq': 480 is not an external interrupt"),
        (lambda t: t.replace('npu = "ethos-u55-128"\n', ""), r"'npu_base': the firmware drives an Ethos-U55, U65 or U85 only, and 'npu' is None"),
        (lambda t: t.replace('npu_reachable = ["bram", "isram", "ddr"]', 'npu_reachable = "bram"'), r"'npu_reachable': expected list"),
    ],
)  # fmt: skip
def test_bad_npu_fields_are_one_line_board_errors(tmp_path, edit, message):
    folder = board_folder(tmp_path, edit)
    with pytest.raises(BoardFileError, match=message) as err:
        load_board(BOARD, directory=folder)
    assert "\n" not in str(err.value)


# --- the simulator from Python --------------------------------------------------------------------------------


@pytest.mark.slow
@needs_cc
def test_the_simulator_refuses_a_job_it_cannot_run_saying_why():
    sim = S.Simulator()
    assert sim.library == S.build_library()  # cached
    status, error = sim.execute([0x3FF], [bytearray(16), bytearray(32)])
    assert status == S.CMD_PARSE_ERROR and error == "word 0: unknown opcode (0x03FF): no cmd0 command has opcode 0x3FF"
    with pytest.raises(S.SimulatorError, match="^word 0: unknown opcode"):
        S.seam_executor(sim=sim)(bytes([0xFF, 0x03, 0, 0]), [bytearray(16)] + [bytearray()] * 7)
    with pytest.raises(ValueError, match="not whole 32-bit words"):
        sim.execute(b"\0" * 6, [])


@pytest.mark.slow
@needs_cc
def test_the_simulator_runs_a_delegate_as_the_host_runtime_does(mlp):
    """The blob's job on the simulator through ctypes: the output bytes equal those the int8 reference's delegate
    (TOSA's reference model) gives, for the same int8 input."""
    from mcu_export.ethosu.reference import tosa_delegate

    artifact, _ = mlp
    program = artifact.program
    blob = blob_of(program)
    rng = np.random.default_rng(3)
    q = rng.integers(-128, 128, size=record_bytes(blob.inputs[0]), dtype=np.int8)
    scratch = bytearray(blob.scratch_size)
    scratch[blob.inputs[0].offset : blob.inputs[0].offset + q.size] = q.tobytes()
    regions = [bytearray(blob.weight_data), scratch] + [bytearray()] * 6
    status, error = S.execute(stream_words(blob.cmd_data), regions, 0x1807)
    assert (status, error) == (S.OK, "")
    assert regions[0] == blob.weight_data  # weights untouched
    out = blob.outputs[0]
    got = np.frombuffer(bytes(scratch[out.offset : out.offset + record_bytes(out)]), np.int8)
    plan = program.method()
    _, call = delegate_call(plan)
    run = tosa_delegate(artifact.npu_graphs)
    processed = bytes(program.backend_delegate_data[plan.delegates[0].processed.index])
    want = run(0, plan.delegates[0], processed, [q.reshape(plan.values[call.args[0]].sizes)])
    np.testing.assert_array_equal(got, np.asarray(want[1]).reshape(-1))


# --- building --------------------------------------------------------------------------------------------------


@pytest.mark.slow
@needs_firmware
def test_the_firmware_links_the_npu_pieces_and_places_what_the_npu_reads(mlp, mlp_build):
    from mcu_export.firmware.elf import Elf

    artifact, out = mlp
    symbols = Elf(mlp_build.elf).symbols()
    for name in (
        "mx_ethosu_backend",  # the delegate kernel, in the kernel table's backends
        "mx_ethosu_init",
        "mx_ethosu_run",  # the driver
        "mx_ethosu_io_read",
        "mx_ethosu_io_write",  # the seam, forwarded by npu_platform.c to ...
        "mx_ethosu_mmio_read",
        "mx_ethosu_io_mmio_init",  # ... ethosu_io_mmio.c
        "mx_ethosu_semihost_read",
        "mx_ethosu_semihost_region",  # ... or ethosu_io_semihost.c
        "mx_ethosu_platform_begin",
        "mx_ethosu_platform_end",
    ):
        assert name in symbols, name
    project = Path(mlp_build.elf).parent.parent
    cmake = (project / "CMakeLists.txt").read_text()
    assert "SOURCE npu/ethosu_io_mmio.c APPEND PROPERTY COMPILE_DEFINITIONS mx_ethosu_io=mx_ethosu_mmio_io" in cmake
    assert "MX_NPU_BASE=0x58102000u" in cmake and "MX_NPU_CONFIG=0x00001807u" in cmake
    # Its delegate carries its scratch argument: no platform scratch (ExecuTorch's programs get one).
    assert "mx_npu_scratch" not in cmake and "mx_npu_scratch" not in symbols
    # The .pte (payload and weights used in place) and the arena of the delegate's scratch where the NPU reaches.
    plan = artifact.program.method()
    _, call = delegate_call(plan)
    scratch = plan.values[call.args[-1]]
    assert scratch.scalar_type == P.ScalarType.BYTE and scratch.nbytes >= blob_of(artifact.program).scratch_size
    arena = symbols[f"mx_model_arena_{scratch.allocation_info.memory_id}"]
    reachable = load_board(BOARD).npu_reachable
    assert memory_of(BOARD, symbols["mx_model_pte"].address) in reachable
    assert memory_of(BOARD, arena.address) in reachable and arena.size == plan.non_const_buffer_sizes[1]
    assert memory_of(BOARD, symbols["mx_model_pte"].address) == "bram" and memory_of(BOARD, arena.address) == "isram"
    # The metadata pool counts the backend's state: the firmware's own count matches (main.c checks it at load).
    from mcu_export.firmware.model_project import pool_counts
    from mcu_export.host_runtime import ETHOSU

    assert pool_counts(plan, (ETHOSU,)).delegate_state == ETHOSU.state_bytes
    manifest = (project / "model" / "model.json").read_text()
    assert '"backend": "EthosUBackend"' in manifest


@pytest.mark.slow
def test_without_npu_fields_or_delegates_the_project_is_as_before(mlp, cpu_mlp, tmp_path):
    """A CPU program renders the same project on corstone-300 as on a copy of it without the NPU fields (so its
    firmware is the one built before those fields existed), with nothing of the NPU; a delegate program on the copy
    is refused in one line; re-rendering a CPU program where a delegate one was removes the NPU files."""
    from mcu_export.firmware.model_project import place_program, render_model_project

    plain = board_without_npu(tmp_path / "boards")
    npu_board = load_board(BOARD)
    a = render_model_project(cpu_mlp, npu_board, tmp_path / "a")
    b = render_model_project(cpu_mlp, plain, tmp_path / "b")
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        if rel != Path("board") / f"{BOARD}.toml":
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    assert not (a / "npu").exists() and not (a / "runtime" / "backends").exists()
    cmake = (a / "CMakeLists.txt").read_text()
    assert "MX_NPU" not in cmake and "COMPILE_DEFINITIONS" not in cmake
    assert "mx_backend_table_len = 0" in (a / "model" / "kernel_table.c").read_text()
    region, arenas = place_program(npu_board, cpu_mlp.program.method(), len(cpu_mlp.pte))
    assert (region, [x.region for x in arenas]) == ("bram", ["dtcm"])  # the board's first fit, as before

    artifact, _ = mlp
    with pytest.raises(UsageError, match=r"delegate 0 \(EthosUBackend\): no backend for it in this build") as err:
        render_model_project(artifact, plain, tmp_path / "c")
    assert "no Ethos-U driver (its board file gives no npu_base)" in str(err.value) and "--backend cortex-m" in str(
        err.value
    )
    d = render_model_project(artifact, npu_board, tmp_path / "d")
    assert (d / "npu" / "npu_platform.c").is_file() and (d / "runtime" / "backends" / "ethosu").is_dir()
    render_model_project(cpu_mlp, npu_board, tmp_path / "d")
    assert not (d / "npu").exists() and not (d / "runtime" / "backends").exists()


# --- on QEMU, over the seam ------------------------------------------------------------------------------------


class Checker:
    """A test executor: checks the job against the blob and the inputs, leaves PATTERN at the output offsets."""

    PATTERN = (np.arange(1 << 16) * 29 + 11).astype(np.uint8)  # as mx_run's npu-check hook (mx_run_npu_check.c)

    def __init__(self, blob: B.VelaBlob, inputs):
        self.blob, self.inputs, self.calls = blob, inputs, 0

    def __call__(self, words: bytes, regions):
        self.calls += 1
        blob = self.blob
        assert words == stream_words(blob.cmd_data)
        assert len(regions[0]) == len(blob.weight_data) and bytes(regions[0]) == blob.weight_data
        assert len(regions[1]) >= blob.scratch_size
        assert [len(r) for r in regions[2:]] == [0] * 6  # no fast scratch (Shared_Sram)
        for q, record in zip(self.inputs, blob.inputs):
            assert bytes(regions[1][record.offset : record.offset + q.nbytes]) == q.tobytes()
        for record in blob.outputs:
            n = record_bytes(record)
            regions[1][record.offset : record.offset + n] = self.PATTERN[record.offset : record.offset + n].tobytes()
        return 0x22  # cmd_end_reached | irq_raised


def qemu_runner(build, **options):
    from mcu_export.runners import runner_for

    return runner_for(BOARD, "qemu", timeout=QEMU_TIMEOUT, profile=False, **options).use_build(build)


@pytest.mark.slow
@needs_qemu
def test_on_qemu_the_job_reaches_the_host_and_its_outputs_come_out_dequantized(mlp, mlp_build):
    from mcu_export.host_runtime import build_host_runner
    from mcu_export.runners.host import mx_run

    artifact, out = mlp
    program = artifact.program
    floats, quantized = exact_inputs(program)
    checker = Checker(blob_of(program), quantized)
    run = qemu_runner(mlp_build, npu_executor=checker).run(floats)
    assert checker.calls == 1
    # The outputs are the pattern's bytes at the output offsets, through the program's dequantize: as the host
    # runtime's check build (whose NPU writes the same pattern) gives them, bit for bit.
    plan = program.method()
    _, call = delegate_call(plan)
    blob = checker.blob
    scale, zp = quantize_params(plan, call.args[len(blob.inputs)], "::dequantize_per_tensor", 0)
    record = blob.outputs[0]
    q = Checker.PATTERN[record.offset : record.offset + record_bytes(record)].view(np.int8)
    got = run.outputs[0].reshape(-1)
    np.testing.assert_allclose(got, (q.astype(np.float32) - zp) * np.float32(scale), rtol=1e-6)
    feeds = [(6, f.shape, f.tobytes()) for f in floats]
    (host,) = mx_run([str(build_host_runner(npu_check=True))], out / "model.pte", "forward", feeds, 1)
    assert got.tobytes() == host


@pytest.mark.slow
@needs_qemu
def test_on_qemu_a_job_the_simulator_refuses_fails_the_run_in_one_line_naming_the_delegate(mlp_build):
    simulate = S.seam_executor()

    def corrupted(words: bytes, regions):  # the job's first command word becomes an opcode no NPU has
        return simulate(bytes([0xFF, 0x03, 0, 0]) + words[4:], regions)

    with pytest.raises(RuntimeFailure) as err:
        qemu_runner(mlp_build, npu_executor=corrupted).run([np.zeros((1, 1, 28, 28), np.float32)])
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(
        "firmware on corstone-300 (qemu) failed with a runtime error in delegate 0 (EthosUBackend, instruction 1): "
        "NPU job 1: word 0: unknown opcode (0x03FF)"
    ), message
    assert "a delegate's backend failed while running it" in message


@pytest.mark.slow
@needs_qemu
def test_an_executor_that_raises_or_faults_is_named_too(mlp_build):
    def bus_error(words, regions):
        return 0x4 | 0x2  # bus_status | irq_raised

    with pytest.raises(RuntimeFailure) as err:
        qemu_runner(mlp_build, npu_executor=bus_error).run([np.zeros((1, 1, 28, 28), np.float32)])
    message = str(err.value)
    assert "\n" not in message and "in delegate 0 (EthosUBackend, instruction 1): mx: npu: job: " in message, message


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    """`mcu-export export examples/kws_dscnn.py:factory -o OUT --quantize int8 --board corstone-300`: the export
    and its firmware, as a user gets them."""
    pytest.importorskip("tosa_serializer")
    if missing(*FIRMWARE_TOOLS):
        pytest.skip(f"needs {', '.join(missing(*FIRMWARE_TOOLS))}")
    out = tmp_path_factory.mktemp("kws") / "out"
    result = cli("export", spec("kws_dscnn"), "-o", out, "--quantize", "int8", "--board", BOARD, timeout=600)
    assert result.code == 0, result.err
    assert "ethos-u55-128: 1 NPU subgraph(s) with 12 of 12 operators" in result.out
    assert (out / "firmware" / BOARD / "artifacts" / "firmware.elf").is_file()
    return out


@pytest.mark.slow
@needs_qemu
def test_kws_on_qemu_with_the_simulator_equals_the_host_runtime_and_the_reference(kws):
    from mcu_export.ethosu.reference import tosa_delegate
    from mcu_export.int8.interpreter import run_reference
    from mcu_export.runners import runner_for

    program = read_program((kws / "model.pte").read_bytes())
    graphs = [(kws / "npu" / "subgraph_0.tosa").read_bytes()]
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 1, 49, 10)).astype(np.float32)
    on_qemu = runner_for(BOARD, "qemu", timeout=QEMU_TIMEOUT)
    on_qemu.open(kws)
    run = on_qemu.run([x])
    host = runner_for("host")
    host.open(kws)
    (want,) = run_reference(program, [x], delegate=tosa_delegate(graphs))
    np.testing.assert_array_equal(run.outputs[0], host.run([x]).outputs[0])
    np.testing.assert_array_equal(run.outputs[0], want)
    assert run.instructions_per_inference is not None and run.stack_used > 0
    # the CLI runs it the same way
    np.save(kws.parent / "x.npy", x)
    ran = cli("run", kws, "--board", BOARD, "--input", kws.parent / "x.npy", "--output", kws.parent / "y.npz")
    assert ran.code == 0, ran.err
    np.testing.assert_array_equal(np.load(kws.parent / "y.npz")["output_0"], want)
