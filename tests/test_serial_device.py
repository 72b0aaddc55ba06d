"""The serial protocol end to end: mx_serial_device (runtime_c/serial/ with the real runtime and kernels) on
a pty, the pyserial client on another, a proxy between them that can damage the bytes (support/serial_link).
Outputs are held bit for bit to the host runtime's; A/B slots must keep the previous model answering through
every failed transfer."""

from __future__ import annotations

import struct
import time
import zlib

import numpy as np
import pytest

from mcu_export.errors import DeviceError
from mcu_export.host_runtime import build_serial_device, default_ops
from mcu_export.serial import SerialClient
from mcu_export.serial import protocol as p
from serial_link import PtyLink, drop_byte, every_nth, flip_bit, wait_until

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def device():
    return build_serial_device()


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Two int8 example models exported once: name -> (export folder, .pte bytes)."""
    import mcu_export.api
    import mcu_export.examples

    out = {}
    for name in ("mnist_mlp", "resnet8"):
        artifact = mcu_export.api.export_spec(mcu_export.examples.spec(name), quantize="int8")
        folder = artifact.save(tmp_path_factory.mktemp(name))
        out[name] = (folder, (folder / "model.pte").read_bytes())
    return out


@pytest.fixture(scope="module")
def reference(models):
    """name -> (inputs, the host runtime's outputs)."""
    from mcu_export.runners import runner_for

    ref = {}
    for name, (folder, _) in models.items():
        runner = runner_for("host")
        runner.open(folder)
        rng = np.random.default_rng(len(name))
        arrays = [rng.standard_normal(s.shape).astype(s.numpy_dtype) for s in runner.inputs]
        ref[name] = (arrays, runner.run(arrays).outputs)
    return ref


@pytest.fixture
def link(device, tmp_path):
    link = PtyLink(device, tmp_path / "slots.bin")
    yield link
    link.close()


@pytest.fixture
def client(link):
    with SerialClient(link.port, timeout=0.3) as c:
        yield c


def answers_as(client, reference, name):
    arrays, expected = reference[name]
    outputs, _ = client.run(arrays)
    return len(outputs) == len(expected) and all(np.array_equal(a, b) for a, b in zip(outputs, expected))


def test_info_fields(client):
    info = client.info()
    assert (info.protocol, info.max_frame, info.board) == (p.PROTOCOL_VERSION, 512, "host")
    assert info.firmware.startswith("mx_serial_device")
    assert info.active_slot is None and info.generation == 0
    assert info.work_bytes == 256 * 1024 and info.slot_bytes == 256 * 1024 - 32
    assert "cortex_m::quantized_linear.out" in info.operators
    assert len(info.operators) == len(default_ops())


def test_load_invoke_profile_equal_host_runtime(client, models, reference):
    _, image = models["mnist_mlp"]
    assert client.load(image) == 1
    info = client.info()
    assert (info.active_slot, info.image_bytes, info.image_crc) == (0, len(image), zlib.crc32(image))
    assert answers_as(client, reference, "mnist_mlp")
    profile = client.profile(page=2)  # several pages
    assert len(profile.ops) == client.model().instructions
    assert profile.ops[0].name == "cortex_m::quantize_per_tensor.out"
    assert 0 < sum(o.ticks for o in profile.ops) <= profile.total_ticks


def test_second_model_switches_slots_and_survives_restart(link, client, models, reference):
    client.load(models["mnist_mlp"][1])
    assert client.load(models["resnet8"][1]) == 2
    assert client.info().active_slot == 1
    assert answers_as(client, reference, "resnet8")
    link.kill_device()
    link.start_device()
    assert client.info().active_slot == 1  # the slots are in the file, as in flash
    assert answers_as(client, reference, "resnet8")


def test_corrupt_and_unloadable_images_keep_the_previous_model(client, models, reference):
    client.load(models["mnist_mlp"][1])
    image = models["resnet8"][1]
    client.request("LOAD_BEGIN", struct.pack("<II", len(image), zlib.crc32(image) ^ 1))
    for offset in range(0, len(image), 480):
        client.request("LOAD_CHUNK", struct.pack("<I", offset) + image[offset : offset + 480])
    with pytest.raises(DeviceError, match="image CRC mismatch"):
        client.request("LOAD_END")
    assert answers_as(client, reference, "mnist_mlp")

    broken = b"XXXXXXXX" + image[8:]  # checks on the wire, but is not a program
    with pytest.raises(DeviceError, match=r"LOAD_END failed on the device: 0x0102 not a \.pte program"):
        client.load(broken)
    info = client.info()
    assert (info.active_slot, info.generation) == (0, 1)
    assert answers_as(client, reference, "mnist_mlp")


def test_cut_transfer_and_power_cut_keep_the_previous_model(link, client, models, reference):
    client.load(models["mnist_mlp"][1])
    image = models["resnet8"][1]
    assert client.load(image, stop_at=len(image) // 2) == -1  # the cable is pulled half way
    with pytest.raises(DeviceError, match="image CRC mismatch"):
        client.request("LOAD_END")  # what a confused host would do next
    assert answers_as(client, reference, "mnist_mlp")

    client.load(image, stop_at=len(image) // 2)
    link.kill_device()  # power cut in the middle of writing the inactive slot
    link.start_device()
    assert client.info().active_slot == 0
    assert answers_as(client, reference, "mnist_mlp")
    assert client.load(image) == 2  # and the next transfer goes through
    assert answers_as(client, reference, "resnet8")


def test_flipped_bits_and_dropped_bytes_are_recovered(link, client, models, reference):
    link.to_device = every_nth(5, flip_bit)
    link.to_host = every_nth(7, drop_byte)
    client.load(models["mnist_mlp"][1])
    assert answers_as(client, reference, "mnist_mlp")
    assert client.resends > 0
    link.to_device = every_nth(6, drop_byte)
    link.to_host = every_nth(4, flip_bit)
    client.load(models["resnet8"][1])
    assert answers_as(client, reference, "resnet8")
    assert client.profile().total_ticks > 0


def test_repeated_request_is_answered_without_running_again(link, client, models, reference):
    client.load(models["mnist_mlp"][1])
    client.run(reference["mnist_mlp"][0])
    frame = p.encode_frame(p.COMMANDS["INVOKE"], 0x1234)

    def exchange() -> bytes:
        client._port.write(frame)
        decoder, got = p.SlipDecoder(), []
        assert wait_until(lambda: bool(got.extend(decoder.feed(client._port.read(64))) or got))
        return got[0]

    answers = [exchange(), exchange()]  # as when the first response is lost and the host resends the frame
    assert answers[0] == answers[1]  # same ticks: the device replayed, it did not invoke again
    (status,) = struct.unpack_from("<H", p.decode_frame(answers[0]).body)
    assert status == 0


def test_stalled_host_then_reset(client, models, reference):
    image = models["resnet8"][1]

    def stall(done, total):
        if done >= total // 2 and not stalled:
            stalled.append(done)
            time.sleep(1.5)  # the device has no timeout of its own: it waits

    stalled: list = []
    client.load(image, progress=stall)
    assert stalled and answers_as(client, reference, "resnet8")
    client.request("LOAD_BEGIN", struct.pack("<II", len(image), zlib.crc32(image)))
    client.reset()  # drops the transfer; the model stays
    with pytest.raises(DeviceError, match="0x0506 no model transfer in progress"):
        client.request("LOAD_CHUNK", struct.pack("<I", 0) + image[:16])
    assert client.info().active_slot == 0
    assert answers_as(client, reference, "resnet8")


def test_malformed_requests_are_refused(client, models):
    with pytest.raises(DeviceError, match="command 0x42 failed on the device: 0x0504 unknown command"):
        client.request(0x42)
    with pytest.raises(DeviceError, match="0x0505 request body malformed"):
        client.request("INVOKE", b"\0")
    with pytest.raises(DeviceError, match="0x050b no model is active"):
        client.invoke()
    with pytest.raises(DeviceError, match=r"the model is 300,000 bytes; the model slots of host hold 262,112"):
        client.load(bytes(300_000))
    with pytest.raises(DeviceError, match="0x0507 model image larger than a model slot"):
        client.request("LOAD_BEGIN", struct.pack("<II", 300_000, 0))
    client.load(models["mnist_mlp"][1])
    with pytest.raises(DeviceError, match="0x0508 offset or length outside"):
        client.request("GET_OUTPUT", struct.pack("<HIH", 0, 30, 16))  # 40 bytes: [30, 46) is past the end
    with pytest.raises(DeviceError, match="0x0508"):
        client.set_input(1, b"1234")  # one input only


def test_frame_above_the_maximum_is_rejected(client):
    max_frame = client.info().max_frame
    with pytest.raises(DeviceError, match=r"refused a 600-byte SET_INPUT frame: frame larger than"):
        client.request("SET_INPUT", bytes(600 - p.FRAME_OVERHEAD))
    assert client.info().max_frame == max_frame  # and it still answers


def test_unlinked_operator_is_refused_by_name(tmp_path, models, reference):
    ops = [op for op in default_ops() if op.name != "cortex_m::quantized_linear"]
    link = PtyLink(build_serial_device(ops=ops), tmp_path / "slots.bin")
    try:
        with SerialClient(link.port, timeout=0.3) as client:
            with pytest.raises(
                DeviceError, match=r"no kernel in this build \(.*operator cortex_m::quantized_linear\.out\)"
            ):
                client.load(models["mnist_mlp"][1])
            assert client.info().active_slot is None
    finally:
        link.close()


def test_cli_serial_commands(link, models, reference, tmp_path, capsys):
    from mcu_export.cli import main

    folder, image = models["mnist_mlp"]
    assert main(["serial", "load", str(folder), "--port", link.port]) == 0
    assert f"loaded {len(image)} bytes into slot 0 (generation 1)" in capsys.readouterr().out
    assert main(["serial", "info", "--port", link.port]) == 0
    assert "active model: slot 0 (generation 1)" in capsys.readouterr().out
    arrays, expected = reference["mnist_mlp"]
    np.save(tmp_path / "x.npy", arrays[0])
    out = tmp_path / "y.npz"
    assert (
        main(["serial", "invoke", "--port", link.port, "--input", str(tmp_path / "x.npy"), "--output", str(out)]) == 0
    )
    assert np.array_equal(np.load(out)["output_0"], expected[0])
    assert main(["serial", "profile", "--port", link.port]) == 0
    table = capsys.readouterr().out
    assert "cortex_m::quantized_linear.out" in table and "total (invoke)" in table
    assert main(["serial", "info", "--port", "/dev/nonexistent-serial"]) == 2
    assert "cannot open serial port /dev/nonexistent-serial" in capsys.readouterr().err


def test_load_throughput(client, models, capsys):
    """Not a limit: the figure for the notes (bytes/s over the pty, and what 115200 baud would give)."""
    image = models["resnet8"][1]
    client.info()
    start = time.monotonic()
    client.load(image)
    seconds = time.monotonic() - start
    chunk = 512 - p.FRAME_OVERHEAD - 4 - (512 - p.FRAME_OVERHEAD - 4) % 16
    frames = -(-len(image) // chunk)
    # per chunk on the wire: 2 ENDs + header + offset + CRC (+ escapes), and a 2-byte-status response
    wire = len(p.encode_frame(p.COMMANDS["LOAD_CHUNK"], 0, struct.pack("<I", 0) + image[:chunk])) * frames + frames * 10
    with capsys.disabled():
        print(
            f"\nserial load: {len(image)} bytes in {seconds:.3f} s = {len(image) / seconds:,.0f} B/s over the pty; "
            f"{frames} chunks, {wire} bytes on the wire; at 115200 baud ≈ {len(image) / (wire * 10 / 115200):,.0f} B/s"
        )


def test_socket_url(device, tmp_path, models, reference):
    """A pyserial URL, as QEMU's UART on a TCP socket will be: the device serves the accepted connection."""
    import socket
    import subprocess

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        with SerialClient(f"socket://127.0.0.1:{port}", timeout=0.3) as client:
            conn, _ = server.accept()
            proc = subprocess.Popen(
                [str(device), "--fd", str(conn.fileno()), "--slots", str(tmp_path / "slots.bin")],
                pass_fds=[conn.fileno()],
            )
            conn.close()
            try:
                client.load(models["mnist_mlp"][1])
                assert answers_as(client, reference, "mnist_mlp")
            finally:
                proc.kill()
                proc.wait()


def test_serial_is_a_runner_target(link, models, reference, tmp_path, capsys):
    from mcu_export.cli import main
    from mcu_export.runners import runner_for

    folder, _ = models["mnist_mlp"]
    arrays, expected = reference["mnist_mlp"]
    runner = runner_for("corstone-300", "serial", port=link.port)
    runner.open(folder)
    for _ in range(2):
        run = runner.run(arrays)
        assert all(np.array_equal(a, b) for a, b in zip(run.outputs, expected))
        assert (run.board, run.target) == ("corstone-300", "serial") and run.ticks > 0
    runner.close()
    with SerialClient(link.port, timeout=0.3) as client:
        assert client.info().generation == 1  # loaded once: the second run found it active

    np.save(tmp_path / "x.npy", arrays[0])
    args = ["run", str(folder), "--board", "corstone-300", "--input", str(tmp_path / "x.npy")]
    assert main([*args, "--sim", "serial", "--port", link.port]) == 0
    assert "corstone-300 (serial):" in capsys.readouterr().out
    assert main([*args, "--port", link.port]) == 2
    assert "--port goes with --sim serial" in capsys.readouterr().err
    assert main([*args, "--sim", "serial"]) == 2
    assert "target 'serial' needs a port" in capsys.readouterr().err


def test_a_slot_the_firmware_cannot_load_falls_back_at_boot(link, client, models, reference):
    """After a firmware update that drops an operator, the newest slot no longer loads: the other one answers,
    and the next model goes into the slot that failed (erased first) as the newest."""
    client.load(models["resnet8"][1])  # slot 0, generation 1
    client.load(models["mnist_mlp"][1])  # slot 1, generation 2: needs aten::view_copy
    link.kill_device()
    link.device = build_serial_device(ops=[op for op in default_ops() if op.name != "aten::view_copy"])
    link.start_device()
    info = client.info()
    assert (info.active_slot, info.generation) == (0, 1)
    assert answers_as(client, reference, "resnet8")
    assert client.load(models["resnet8"][1]) == 2
    link.kill_device()
    link.start_device()
    assert client.info().active_slot == 1


def test_random_requests_and_line_noise_leave_the_device_answering(link, client, models, reference):
    import random

    client.load(models["mnist_mlp"][1])
    rng = random.Random(10)
    codes = [*p.COMMANDS.values(), 0, 0x0B, 0x7F, 0xFF]
    for _ in range(400):
        code = rng.choice([c for c in codes if c not in (p.COMMANDS["RESET"], p.COMMANDS["LOAD_END"])])
        body = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 2, 4, 6, 8, 9, 40, 300])))
        try:
            client.request(code, body)
        except DeviceError:
            pass
    client._port.write(bytes(rng.randrange(256) for _ in range(5000)))  # noise, frames torn apart in it
    assert link.proc.poll() is None
    assert client.info().active_slot == 0  # LOAD_BEGIN and chunks went to the other slot, never finished
    assert answers_as(client, reference, "mnist_mlp")
