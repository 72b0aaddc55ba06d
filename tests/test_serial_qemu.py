"""Serving firmware (runtime_c/firmware/serve_main.c) under QEMU as a stand-in board: the serial protocol on the
UART of corstone-300 (through a real TCP socket) and mps2-an505 (through a real pty), pyserial on the host side.
Outputs are held bit for bit to the host runtime's; the A/B slots must keep the previous model answering
through a cut transfer, damaged bytes, a stalled host and a power cut (QEMU killed mid-transfer). Few boots:
each test boots once and checks many things. Small models keep the loads short."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from mcu_export.errors import DeviceError, SerialLinkError
from mcu_export.firmware.serve_project import build_serve_firmware, resolve_ops
from mcu_export.firmware.sim import SerialSim, free_tcp_port
from mcu_export.serial import SerialClient
from mcu_export.serial import protocol as p
from serial_link import TcpProxy, drop_byte, every_nth_frame, flip_bit
from small_conv_model import model_spec as conv_spec
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:int8 calibration used only the example inputs"),
    NEEDS_ARM_QEMU,
]

MLP = """
import torch


def factory():
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(32, 48), torch.nn.ReLU(), torch.nn.Linear(48, 4))
    return model.eval(), (torch.randn(1, 32),)
"""
CONV2 = """
import torch


def factory():
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 6, 3, padding=1), torch.nn.ReLU())
    return model.eval(), (torch.randn(1, 3, 10, 10),)
"""


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """name -> (export folder, .pte bytes, inputs, the host runtime's outputs): two convs (the same operators)
    and an MLP (others)."""
    import mcu_export.api
    from mcu_export.runners import runner_for

    root = tmp_path_factory.mktemp("models")
    specs = {"conv": conv_spec(root)}
    for name, source in (("mlp", MLP), ("conv2", CONV2)):
        (root / f"{name}.py").write_text(source)
        specs[name] = f"{root / name}.py:factory"
    out = {}
    for name, spec in specs.items():
        folder = mcu_export.api.export_spec(spec, quantize="int8").save(root / name)
        runner = runner_for("host")
        runner.open(folder)
        arrays = [np.random.default_rng(7).standard_normal(s.shape).astype(s.numpy_dtype) for s in runner.inputs]
        out[name] = (folder, (folder / "model.pte").read_bytes(), arrays, runner.run(arrays).outputs)
    return out


@pytest.fixture(scope="module")
def firmware(models, tmp_path_factory):
    """board -> (OUT, ELF): corstone-300 links the operators of all three models, mps2-an505 the convs' only."""
    mlp, conv = models["mlp"][0], models["conv"][0]
    linked = {
        "corstone-300": {op.qualified: op for op in resolve_ops("model", mlp) + resolve_ops("model", conv)},
        "mps2-an505": {op.qualified: op for op in resolve_ops("model", conv)},
    }
    out = {}
    for board, ops in linked.items():
        folder = tmp_path_factory.mktemp(board)
        out[board] = (folder, build_serve_firmware(folder, board, list(ops.values())).elf)
    return out


def answers_as(client, models, name) -> bool:
    _, _, arrays, expected = models[name]
    outputs, _ = client.run(arrays)
    return len(outputs) == len(expected) and all(np.array_equal(a, b) for a, b in zip(outputs, expected))


def profile_adds_up(client) -> bool:
    """Per-op ticks sum to the invoke's within 1 % (the rest: dispatch and the clock reads; -icount makes
    SysTick count instructions, so the figures do not move between runs)."""
    profile = client.profile()
    per_op = sum(o.ticks for o in profile.ops)
    return profile.total_ticks > 0 and abs(profile.total_ticks - per_op) <= 0.01 * profile.total_ticks


def test_corstone300_over_a_socket(firmware, models, tmp_path):
    _, elf = firmware["corstone-300"]
    port = free_tcp_port()
    sim = SerialSim("corstone-300", elf, tmp_path, f"socket://127.0.0.1:{port}")
    proxy = TcpProxy(port)
    url = sim.start()
    try:
        with SerialClient(url, timeout=0.3) as client:
            info = client.info()
            assert (info.board, info.protocol, info.max_frame, info.active_slot) == ("corstone-300", 1, 512, None)
            assert "cortex_m::quantized_conv2d.out" in info.operators
            with pytest.raises(DeviceError, match=r"refused a 600-byte SET_INPUT frame: frame larger than"):
                client.request("SET_INPUT", bytes(600 - p.FRAME_OVERHEAD))

            assert client.load(models["mlp"][1]) == 1
            assert answers_as(client, models, "mlp")
            assert client.load(models["conv"][1]) == 2  # the second model, into the other slot
            assert client.info().active_slot == 1
            assert answers_as(client, models, "conv")
            assert profile_adds_up(client)

            image = models["mlp"][1]
            assert client.load(image, stop_at=len(image) // 2) == -1  # the cable is pulled half way
            with pytest.raises(DeviceError, match="image CRC mismatch"):
                client.request("LOAD_END")
            assert answers_as(client, models, "conv")

            stalled: list = []

            def stall(done, total):
                if done >= total // 2 and not stalled:
                    stalled.append(done)
                    time.sleep(1.0)  # the firmware has no timeout of its own: it waits

            assert client.load(image, progress=stall) == 3 and stalled
            assert answers_as(client, models, "mlp")

        proxy.to_device = every_nth_frame(5, flip_bit)
        proxy.to_host = every_nth_frame(4, drop_byte)
        with SerialClient(proxy.url, timeout=0.3) as client:
            assert client.load(models["conv"][1]) == 4
            assert answers_as(client, models, "conv")
            assert client.resends > 0
        proxy.to_device = proxy.to_host = None

        with SerialClient(url, timeout=0.3) as client:
            client.load(image, stop_at=len(image) // 2)
        sim.kill()  # power cut while the inactive slot is half written
        url = sim.start()
        with SerialClient(url, timeout=0.3) as client:
            info = client.info()
            assert (info.active_slot, info.generation) == (1, 4)
            assert answers_as(client, models, "conv")
            assert client.load(image) == 5  # and the next transfer goes through
            assert answers_as(client, models, "mlp")
    finally:
        proxy.close()
        sim.stop()


def test_an505_over_a_pty(firmware, models, tmp_path):
    _, elf = firmware["mps2-an505"]
    sim = SerialSim("mps2-an505", elf, tmp_path, "pty")
    try:
        with SerialClient(sim.start(), timeout=0.3) as client:
            info = client.info()
            assert (info.board, info.max_frame, info.active_slot) == ("mps2-an505", 512, None)
            assert "cortex_m::quantized_linear.out" not in info.operators
            with pytest.raises(DeviceError, match=r"frame larger than"):
                client.request("LOAD_CHUNK", bytes(513 - p.FRAME_OVERHEAD))
            assert client.load(models["conv"][1]) == 1
            assert answers_as(client, models, "conv")
            assert client.load(models["conv2"][1]) == 2
            assert answers_as(client, models, "conv2")
            assert profile_adds_up(client)
            with pytest.raises(
                DeviceError, match=r"no kernel in this build \(.*operator cortex_m::quantized_linear\.out\)"
            ):
                client.load(models["mlp"][1])
            assert client.info().active_slot == 1
            assert answers_as(client, models, "conv2")

            def power_cut(done, total):
                if done >= total // 2:
                    sim.kill()  # while the transfer runs: the firmware may be inside a slot write

            with pytest.raises(SerialLinkError, match="lost the link"):
                client.load(models["conv"][1], progress=power_cut)
        with SerialClient(sim.start(), timeout=0.3) as client:  # slots.bin kept them
            assert (client.info().active_slot, client.info().generation) == (1, 2)
            assert answers_as(client, models, "conv2")
    finally:
        sim.stop()


def test_cli_sim_and_serial_commands(firmware, models, tmp_path, capsys):
    """`mcu-export sim` prints the endpoint alone on its first line, serves until Ctrl-C, and ends QEMU then."""
    from mcu_export.cli import main

    out, _ = firmware["corstone-300"]
    port = free_tcp_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    cmd = [sys.executable, "-m", "mcu_export.cli", "sim", str(out), "--board", "corstone-300"]
    proc = subprocess.Popen(
        [*cmd, "--serial", f"socket://127.0.0.1:{port}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        url = proc.stdout.readline().decode().strip()
        assert url == f"socket://127.0.0.1:{port}"
        folder, image, arrays, expected = models["conv"]
        assert main(["serial", "load", str(folder), "--port", url]) == 0
        assert f"loaded {len(image)} bytes into slot 0 (generation 1)" in capsys.readouterr().out
        np.save(tmp_path / "x.npy", arrays[0])
        result = tmp_path / "y.npz"
        assert (
            main(["serial", "invoke", "--port", url, "--input", str(tmp_path / "x.npy"), "--output", str(result)]) == 0
        )
        assert np.array_equal(np.load(result)["output_0"], expected[0])
        assert main(["serial", "profile", "--port", url]) == 0
        assert "cortex_m::quantized_conv2d.out" in capsys.readouterr().out
        run = ["run", str(folder), "--board", "corstone-300", "--sim", "serial", "--port", url]
        assert main([*run, "--input", str(tmp_path / "x.npy")]) == 0  # the runner target: no second load
        assert "corstone-300 (serial):" in capsys.readouterr().out
        assert main(["serial", "info", "--port", url]) == 0
        assert "active model: slot 0 (generation 1)" in capsys.readouterr().out
    finally:
        proc.send_signal(signal.SIGINT)
        # 30 s: under the full suite on 2 cores sim's stop (QEMU's exit, the slot file's flush) took over 10 s twice
        assert proc.wait(timeout=30) == 0
    assert "sim: stopped" in proc.stderr.read().decode()
    assert (out / "firmware" / "corstone-300-serial" / "run" / "slots.bin").stat().st_size == 2 * 1024 * 1024
    with pytest.raises(ConnectionRefusedError):  # QEMU went with it: nobody listens any more
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()


def test_cli_usage_errors(tmp_path, capsys):
    from mcu_export.cli import main

    cases = [
        (["build", str(tmp_path), "--board", "mps2-an505", "--ops", "all"], "--ops goes with --serve"),
        (["build", str(tmp_path), "--board", "mps2-an505", "--serve", "--ops", "aten::nope.out"], "unknown operator"),
        (["build", str(tmp_path), "--board", "mps2-an505", "--serve", "--ops", "model"], "model.pte does not exist"),
        (["sim", str(tmp_path), "--board", "mps2-an505", "--serial", "tcp:1234"], "give socket://127.0.0.1:PORT"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_what_the_protocol_adds_to_serving_firmware(firmware):
    """The budget of docs/serial-protocol.md in a linked serving firmware (its map): under 3 KiB of code and
    read-only data for runtime_c/serial/, under 1 KiB of RAM for the protocol's state, the slot store's and
    serve_main's, beyond the work area and the slots."""
    from mcu_export.firmware.mapfile import parse_map

    for board, (out, _) in firmware.items():
        code = ram = 0
        for section in parse_map(out / "firmware" / f"{board}-serial" / "artifacts" / "firmware.map").outputs:
            for piece in section.inputs:
                if section.name in (".text", ".rodata") and "/runtime/serial/" in piece.object:
                    code += piece.size
                if section.name in (".data", ".bss") and (
                    "serve/serve_main" in piece.object or "slot_store" in piece.object
                ):
                    ram += piece.size
        assert 2048 < code < 3072 and 800 < ram < 1024, (board, code, ram)
