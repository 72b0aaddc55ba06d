"""Model firmware end to end: every example model, exported fp32, built for corstone-300 and mps2-an505,
run under QEMU, matches torch and the host C runtime; one ELF serves many inputs; the ELF links exactly
the model's kernels; per-op instruction counts; the generated project builds on its own elsewhere;
faults name the running op; timeouts, I/O errors and a missing FVP are reported as such."""

import json
import shutil
import subprocess

import numpy as np
import pytest
import torch

from mcu_export import api, examples
from mcu_export.boards import load_board
from mcu_export.errors import RuntimeFailure, ToolchainError
from mcu_export.firmware.build import BuildResult
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.fvp import fvp_available
from mcu_export.firmware.model_project import build_model_firmware, model_ops, project_of
from mcu_export.firmware.qemu import run_qemu
from mcu_export.firmware.results import FirmwareFault, FirmwareTimeout, RunResult
from mcu_export.firmware.stack import load_report as load_stack_report
from mcu_export.model_spec import load_model
from mcu_export.runners import run_model_firmware
from mcu_export.runners.firmware import raise_for
from mcu_export.runners.report import format_per_op_table, write_run_json

pytestmark = [
    pytest.mark.skipif(
        any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")),
        reason="needs gcc-arm-none-eabi, qemu-system-arm, cmake and ninja",
    ),
    pytest.mark.slow,
]

BOARDS = ["corstone-300", "mps2-an505"]
MODELS = list(examples.EXAMPLES)


class Exported:
    def __init__(self, name, out_dir):
        self.name = name
        self.model, self.inputs = load_model(examples.spec(name))
        self.model.eval()
        self.artifact = api.export(self.model, self.inputs)
        self.out_dir = self.artifact.save(out_dir)
        self.builds = {}

    def torch_out(self, inputs):
        with torch.no_grad():
            return self.model(*inputs).numpy()

    def build(self, board):
        if board not in self.builds:
            self.builds[board] = build_model_firmware(self.out_dir, board, model=self.artifact)
        return self.builds[board]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = Exported(name, tmp_path_factory.mktemp(name))
        return cache[name]

    return get


def _second_input(inputs, seed=7):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(x.shape, generator=g, dtype=x.dtype) for x in inputs)


def _numpy(inputs):
    return [x.numpy() for x in inputs]


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("name", MODELS)
def test_example_matches_torch_and_host(exported, name, board):
    ex = exported(name)
    build = ex.build(board)
    stamp = build.elf.stat().st_mtime_ns
    run = run_model_firmware(build, board, _numpy(ex.inputs))
    assert len(run.outputs) == 1
    np.testing.assert_allclose(run.outputs[0], ex.torch_out(ex.inputs), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(run.outputs[0], ex.artifact.run(*ex.inputs)[0], rtol=1e-5, atol=1e-6)

    # The metadata pool generated for 32-bit Cortex-M is exactly what the runtime asks for on the device.
    line = [l for l in run.uart_text.splitlines() if l.startswith("mx: ok")][0]
    need, have = line.split("pool=")[1].split("/")
    assert int(need) == int(have) == run.meta_pool_bytes
    assert 0 < run.stack_used <= load_stack_report(build.elf)["worst"] < load_board(board).stack_size
    assert run.ticks > 0

    # Instruction counts: one per kernel call, nested in the inference, nested in the whole run.
    plan = ex.artifact.program.method("forward")
    calls = [i for i, ins in enumerate(plan.chains[0].instructions) if hasattr(ins, "op_index")]
    assert [o.index for o in run.per_op] == calls
    assert [o.op for o in run.per_op] == [
        plan.operators[plan.chains[0].instructions[i].op_index].qualified for i in calls
    ]
    assert all(o.instructions and o.instructions > 0 for o in run.per_op)
    assert sum(o.instructions for o in run.per_op) <= run.instructions_per_inference < run.total_instructions
    # The load (the program's validation) has its own region, outside the inference's.
    assert 0 < run.instructions_per_load < run.total_instructions - run.instructions_per_inference

    # A second, different input through the same ELF: no rebuild, still right.
    other = _second_input(ex.inputs)
    again = run_model_firmware(build, board, _numpy(other))
    assert build.elf.stat().st_mtime_ns == stamp
    np.testing.assert_allclose(again.outputs[0], ex.torch_out(other), rtol=1e-4, atol=1e-5)
    assert not np.allclose(again.outputs[0], run.outputs[0])


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("name", MODELS)
def test_elf_links_exactly_the_models_kernels(exported, name, board):
    ex = exported(name)
    symbols = Elf(ex.build(board).elf).symbols()
    kernels = {n for n, s in symbols.items() if n.startswith("mx_k_") and s.kind == 2}  # functions
    # each kernel is its execute function and its load-time check
    ops = model_ops(ex.artifact.program.method("forward"))
    assert kernels == {op.kernel for op in ops} | {op.kernel + "_check" for op in ops}
    # A loader fusion is linked only with the kernel it ends in.
    assert {n for n in symbols if n.startswith("mx_fuse_")} == {op.fused_by for op in ops if op.fused_by}
    # No heap and no formatted printing anywhere in the image.
    assert not {"malloc", "_malloc_r", "_sbrk", "printf", "_printf_r", "_vfprintf_r"} & set(symbols)


@pytest.mark.parametrize("name", MODELS)
def test_model_data_in_place_and_arenas_in_arena_regions(exported, name):
    board = load_board("corstone-300")
    ex = exported(name)
    elf = Elf(ex.build(board.name).elf)
    symbols = elf.symbols()

    def region_of(address):
        return next(r.name for r in board.memory if r.origin <= address < r.origin + r.length)

    pte = symbols["mx_model_pte"]
    assert pte.address % 16 == 0 and pte.size == len(ex.artifact.pte)
    # Small models stay in BRAM; the ~1.1 MB autoencoder is over BRAM's 1 MiB and runs from DDR.
    assert region_of(pte.address) == ("ddr" if len(ex.artifact.pte) > 1 << 20 else "bram")
    assert elf.section_bytes(f".mx_model.{region_of(pte.address)}")[: len(ex.artifact.pte)] == ex.artifact.pte
    assert elf.sections[".data"].size < 1024  # weights are never copied to RAM
    sizes = ex.artifact.program.method("forward").non_const_buffer_sizes
    for memory_id, size in enumerate(sizes[1:], start=1):
        arena = symbols[f"mx_model_arena_{memory_id}"]
        assert arena.size == size and arena.address % 16 == 0
        assert region_of(arena.address) in board.sections.arenas


def test_project_builds_on_its_own_after_copy(exported, tmp_path):
    ex = exported("mnist_mlp")
    board = "mps2-an505"
    project = project_of(ex.build(board))
    copy = tmp_path / "my firmware"  # a space in the path, as users' trees have
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("build", "artifacts"))
    for cmd in (["cmake", "-G", "Ninja", "-S", ".", "-B", "build"], ["ninja", "-C", "build"]):
        proc = subprocess.run(cmd, cwd=copy, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    copied = BuildResult(elf=copy / "build" / "firmware.elf", map=copy / "build" / "firmware.map")
    run = run_model_firmware(copied, board, _numpy(ex.inputs), icount=False)
    np.testing.assert_allclose(run.outputs[0], ex.torch_out(ex.inputs), rtol=1e-4, atol=1e-5)
    assert run.instructions_per_inference is None and all(o.instructions is None for o in run.per_op)


def test_fault_names_the_running_op(exported, tmp_path):
    ex = exported("mnist_mlp")
    plan = ex.artifact.program.method("forward")
    instrs = plan.chains[0].instructions
    index = [i for i, ins in enumerate(instrs) if hasattr(ins, "op_index")][3]
    op = plan.operators[instrs[index].op_index].qualified
    build = build_model_firmware(tmp_path, "corstone-300", model=ex.artifact, fault_at_instruction=index)
    with pytest.raises(FirmwareFault, match=rf"while running instruction {index} \({op}\)") as info:
        run_model_firmware(build, "corstone-300", _numpy(ex.inputs))
    assert {"CFSR", "HFSR", "PC", "LR"} <= set(info.value.registers)
    assert "mx_platform_op_begin" in str(info.value)  # the PC of the trap, symbolized


def test_timeout_is_an_error(exported):
    ex = exported("resnet8")
    with pytest.raises(FirmwareTimeout, match="did not exit within"):
        run_model_firmware(ex.build("corstone-300"), "corstone-300", _numpy(ex.inputs), timeout=0.02)


def test_input_file_of_the_wrong_size_is_an_io_error(exported, tmp_path):
    ex = exported("mnist_mlp")
    build = ex.build("mps2-an505")
    (tmp_path / "in0.bin").write_bytes(b"\0" * 12)
    result = run_qemu("mps2-an505", build.elf, semihosting_dir=tmp_path, timeout=10)
    assert result.exit_code == 2
    assert "mx: io error: wrong size: in0.bin (12 bytes, the tensor has 3136)" in result.uart_text
    assert not (tmp_path / "out0.bin").exists()


def test_firmware_error_line_becomes_the_message(exported):
    ex = exported("mnist_mlp")
    build = ex.build("mps2-an505")
    manifest = json.loads((project_of(build) / "model" / "model.json").read_text())
    said = "mx: error 0x0305 a kernel received tensors of inconsistent shapes (instruction 3, op aten::addmm.out)"
    result = RunResult(exit_code=1, uart_text=f"boot\n{said}\n", timed_out=False, seconds=0.1, command=())
    with pytest.raises(RuntimeFailure, match="runtime error: " + said.replace("(", r"\(").replace(")", r"\)")):
        raise_for(result, "mps2-an505 (qemu)", build.elf, manifest["kernel_calls"], 10)


def test_run_json_and_per_op_table(exported, tmp_path):
    ex = exported("kws_dscnn")
    run = run_model_firmware(ex.build("corstone-300"), "corstone-300", _numpy(ex.inputs))
    data = json.loads(write_run_json(tmp_path / "run.json", run).read_text())
    assert data["instructions_per_inference"] == run.instructions_per_inference > 0
    assert [(o["index"], o["op"], o["instructions"]) for o in data["per_op"]] == [
        (o.index, o.op, o.instructions) for o in run.per_op
    ]
    table = format_per_op_table(run).splitlines()
    assert len(table) == len(run.per_op) + 2
    heaviest = max(run.per_op, key=lambda o: o.instructions)
    row = next(l for l in table[1:] if l.split()[0] == str(heaviest.index))
    share = 100.0 * heaviest.instructions / run.instructions_per_inference
    assert row.split()[1] == heaviest.op and row.endswith(f"{share:.1f}%")
    assert table[-1].split()[-2] == f"{run.instructions_per_inference:,}"


class HardActivations(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.hardswish(x) + torch.nn.functional.hardsigmoid(x)


def test_loader_fuses_hard_activations_on_the_device(tmp_path):
    model, x = HardActivations(), torch.randn(2, 40, generator=torch.Generator().manual_seed(0)) * 4
    artifact = api.export(model, (x,))
    build = build_model_firmware(artifact.save(tmp_path / "out"), "corstone-300", model=artifact)
    run = run_model_firmware(build, "corstone-300", [x.numpy()])
    np.testing.assert_array_equal(run.outputs[0], artifact.run(x)[0])
    np.testing.assert_allclose(run.outputs[0], model(x).numpy(), rtol=1e-5, atol=1e-6)
    # add, clamp, mul, div | add, clamp, div | add: the first call of each ramp runs the fused kernel.
    counted = [o.instructions is not None for o in run.per_op]
    assert counted == [True, False, False, False, True, False, False, True]
    assert "fused" in format_per_op_table(run).splitlines()[2]
    symbols = Elf(build.elf).symbols()
    assert {"mx_k_aten_hardswish_out", "mx_k_aten_hardsigmoid_out", "mx_fuse_hard_ramps"} <= set(symbols)


def test_fvp_missing_says_which_binary(exported):
    board = load_board("corstone-300")
    if fvp_available(board):
        pytest.skip(f"{board.fvp.binary} is installed: the missing-FVP message cannot be shown")
    ex = exported("mnist_mlp")
    with pytest.raises(ToolchainError, match=f"{board.fvp.binary} is not on PATH"):
        run_model_firmware(ex.build(board.name), board, _numpy(ex.inputs), sim="fvp")


def test_fvp_run_matches_torch(exported):
    board = load_board("corstone-300")
    if not fvp_available(board):
        pytest.skip(f"{board.fvp.binary} is not on PATH (Arm's FVPs cannot be downloaded here)")
    ex = exported("kws_dscnn")
    run = run_model_firmware(ex.build(board.name), board, _numpy(ex.inputs), sim="fvp", timeout=120)
    np.testing.assert_allclose(run.outputs[0], ex.torch_out(ex.inputs), rtol=1e-4, atol=1e-5)


def test_run_command_reuses_the_build_and_writes_npz_and_json(exported, tmp_path, capsys):
    from mcu_export.firmware.model_cli import current_build
    from mcu_export.runners.command import run_command

    ex = exported("kws_dscnn")
    build = ex.build("mps2-an505")
    assert current_build(ex.out_dir, "mps2-an505") == build
    np.save(tmp_path / "x.npy", ex.inputs[0].numpy())
    stamp = build.elf.stat().st_mtime_ns
    assert (
        run_command(
            ex.out_dir,
            board="mps2-an505",
            input_paths=[str(tmp_path / "x.npy")],
            output_path=str(tmp_path / "y.npz"),
            json_path=str(tmp_path / "run.json"),
        )
        == 0
    )
    assert build.elf.stat().st_mtime_ns == stamp
    np.testing.assert_allclose(np.load(tmp_path / "y.npz")["output_0"], ex.torch_out(ex.inputs), rtol=1e-4, atol=1e-5)
    printed = capsys.readouterr().out
    assert "aten::convolution.out" in printed and "total (inference)" in printed
    assert json.loads((tmp_path / "run.json").read_text())["instructions_per_inference"] > 0
    # a firmware built from other runtime sources (an older mcu-export) is stale, whatever its model
    from mcu_export.firmware import fingerprint

    (build.elf.parent / fingerprint.FILE).write_text("0" * 64 + "\n")
    assert current_build(ex.out_dir, "mps2-an505") is None
    fingerprint.record(build.elf.parent)
    assert current_build(ex.out_dir, "mps2-an505") == build
