"""The host side of the serial protocol: a pyserial client with stop-and-wait retries and one method per
command. PORT is anything `serial.serial_for_url` opens: a device path, `socket://host:port`, `rfc2217://`.

Every request carries a new sequence number; the response with that number is its acknowledgement. On a
timeout, a NAK (the device saw a corrupt frame) or a corrupt response, the same frame is sent again; the
device recognises the repeat and answers it without executing it twice.
"""

from __future__ import annotations

import random
import struct
import time
import zlib
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from mcu_export.errors import DeviceError, SerialLinkError, UsageError
from mcu_export.runners.tensors import TensorSpec, from_memory_order, to_memory_order
from mcu_export.serial import protocol as p
from mcu_export.serial.refusal import explain

INVOKE_TIMEOUT_S = 60.0  # an inference can take seconds on a small core; its request is resent only after this
SLOW_TIMEOUT_S = 10.0  # LOAD_BEGIN (erases a slot) and LOAD_END (checks and loads the image)


@dataclass(frozen=True)
class DeviceInfo:
    protocol: int
    max_frame: int  # largest frame the device accepts (header + body + CRC)
    work_bytes: int  # RAM for a model's arenas and metadata pool
    slot_bytes: int  # largest model image a slot holds
    active_slot: Optional[int]
    generation: int
    image_bytes: int
    image_crc: int
    board: str
    firmware: str
    operators: Tuple[str, ...]


@dataclass(frozen=True)
class DeviceModel:
    inputs: Tuple[TensorSpec, ...]
    outputs: Tuple[TensorSpec, ...]
    instructions: int


@dataclass(frozen=True)
class OpTicks:
    index: int
    kind: str  # kernel, fused (a loader fusion's kernel), fused-away, delegate
    name: str
    ticks: int


@dataclass
class Profile:
    total_ticks: int  # the whole invoke
    ops: List[OpTicks] = field(default_factory=list)


_KINDS = {1: "kernel", 2: "delegate", 0x80: "fused", 0x81: "fused-away"}


class SerialClient:
    def __init__(
        self,
        port: str,
        baud: int = 115200,
        *,
        timeout: float = 0.5,
        retries: int = 10,
    ):
        """timeout: seconds to wait for a response before resending; retries: resends before giving up."""
        import serial

        try:
            self._port = serial.serial_for_url(port, baudrate=baud, timeout=0.02)
        except (serial.SerialException, ValueError) as exc:
            raise SerialLinkError(f"cannot open serial port {port}: {exc}") from None
        self.name = port
        self.timeout = timeout
        self.retries = retries
        self.resends = 0  # frames sent again (timeouts, NAKs, corrupt responses): a link-quality figure
        self._seq = random.randrange(0x10000)  # a fresh host must not reuse the device's last sequence
        self._decoder = p.SlipDecoder()
        self._max_frame: Optional[int] = None

    def close(self) -> None:
        self._port.close()

    def __enter__(self) -> "SerialClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- the link ------------------------------------------------------------------------------------

    def request(self, command: Union[str, int], body: bytes = b"", timeout: Optional[float] = None) -> p.Reader:
        """Sends one request (a command's name, or any code) until its response arrives; returns a reader past
        the response's status. Raises DeviceError when the device refuses it and SerialLinkError when it never
        answers."""
        code = p.COMMANDS[command] if isinstance(command, str) else command
        command = p.COMMAND_NAMES.get(code, f"command 0x{code:02x}")
        self._seq = (self._seq + 1) & 0xFFFF
        frame = p.encode_frame(code, self._seq, body)
        size = p.FRAME_OVERHEAD + len(body)
        wait = self.timeout if timeout is None else timeout
        last = "no answer"
        for attempt in range(self.retries + 1):
            if attempt:
                self.resends += 1
            try:
                self._port.write(frame)
                self._port.flush()
                outcome = self._await(self._seq, wait)
            except OSError as exc:  # pyserial's SerialException too: a pty or socket whose other end has gone
                raise SerialLinkError(f"lost the link to {self.name} during {command}: {exc}") from None
            if isinstance(outcome, p.Frame):
                return self._status(command, outcome.body)
            last = outcome
            # A frame above the announced maximum is refused for good; one within it was merged with line
            # noise on the way (a lost END) and is worth resending.
            too_large = outcome.startswith(f"NAK 0x{p.TOO_LARGE:04x}")
            if too_large and self._max_frame is not None and size > self._max_frame:
                raise DeviceError(
                    f"the device refused a {size}-byte {command} frame: {p.status_text(p.TOO_LARGE)} "
                    f"({self._max_frame} bytes)"
                )
        raise SerialLinkError(
            f"no valid response from {self.name} to {command} after {self.retries + 1} tries ({last}; "
            f"{wait:g} s each): is the device running and the baud rate right?"
        )

    def _await(self, seq: int, wait: float):
        """The response to `seq`, or why there is none (a string): a timeout, a NAK, a corrupt response."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            corrupt = False
            for raw in self._decoder.feed(self._port.read(max(1, self._port.in_waiting))):
                frame = p.decode_frame(raw)
                if frame is None:
                    corrupt = True
                elif frame.is_response and frame.is_nak:
                    # Whatever sequence it carries (the damage may be in that field): with one request pending,
                    # resending is right, and at worst the device replays an answer once more.
                    reason = struct.unpack_from("<H", frame.body)[0] if len(frame.body) >= 2 else 0
                    return f"NAK 0x{reason:04x} {p.status_text(reason)}"
                elif frame.is_response and frame.seq == seq:  # else our echo, or an answer to an earlier try
                    return frame
            if corrupt:
                return "corrupt response"  # the device did answer: resend now, it replays
        return f"timeout after {wait:g} s"

    def _status(self, command: str, body: bytes) -> p.Reader:
        r = p.Reader(body)
        try:
            status = r.take("H")
            if status == 0:
                return r
            instruction = r.take("i")
            op = r.op_name()
        except struct.error:
            raise DeviceError(f"{command}: malformed response from the device ({body.hex()[:40]})") from None
        where = []
        if instruction >= 0:
            where.append(f"instruction {instruction}")
        if op:
            where.append(f"operator {op}")
        detail = f" ({', '.join(where)})" if where else ""
        error = DeviceError(f"{command} failed on the device: 0x{status:04x} {p.status_text(status)}{detail}")
        error.status, error.instruction = status, instruction  # for load() to explain with the image in hand
        raise error

    # ---- commands ------------------------------------------------------------------------------------

    def info(self) -> DeviceInfo:
        r = self.request("INFO")
        version, max_frame, work, slot = r.take("HHII")
        active, size, crc, generation = r.take("BIII")
        board, firmware = r.string(), r.string()
        ops = tuple(r.op_name() for _ in range(r.take("H")))
        self._max_frame = max_frame
        return DeviceInfo(
            version, max_frame, work, slot, None if active == 0xFF else active, generation, size, crc, board,
            firmware, ops,
        )  # fmt: skip

    def model(self) -> DeviceModel:
        r = self.request("MODEL")
        n_in, n_out, instructions = r.take("HHI")

        def spec() -> TensorSpec:
            dtype, dim = r.take("BB")
            order = tuple(r.raw(dim))
            sizes = tuple(r.take("I") for _ in range(dim))
            r.take("I")  # nbytes: TensorSpec computes it
            return TensorSpec(dtype, sizes, order)  # sizes are logical; dim_order says the memory order

        inputs = tuple(spec() for _ in range(n_in))
        outputs = tuple(spec() for _ in range(n_out))
        for kind, specs in (("input", inputs), ("output", outputs)):
            for i, s in enumerate(specs):
                if s.dtype == 0xFF:
                    raise UsageError(f"the device's model has a non-tensor {kind} {i}: the serial link runs tensors")
        return DeviceModel(inputs, outputs, instructions)

    def _chunk_bytes(self, fixed: int) -> int:
        max_frame = self._max_frame if self._max_frame is not None else self.info().max_frame
        room = max_frame - p.FRAME_OVERHEAD - fixed
        return room - room % 16 if room >= 32 else room  # 16-byte multiples suit flash pages

    def load(self, image: bytes, progress: Optional[Callable[[int, int], None]] = None, stop_at: int = -1) -> int:
        """Writes `image` (a .pte) into the inactive slot and activates it; returns the slot's generation.
        stop_at (tests): stop sending after that many bytes, as a cut cable would."""
        info = self.info()
        if len(image) > info.slot_bytes:  # the device would refuse it too, without the sizes
            raise DeviceError(
                f"the model is {len(image):,} bytes; the model slots of {info.board} hold {info.slot_bytes:,}"
            )
        chunk = self._chunk_bytes(4)
        # erasing a slot of flash takes seconds; a resend meanwhile would only be lost in a busy UART's FIFO
        r = self.request("LOAD_BEGIN", struct.pack("<II", len(image), zlib.crc32(image)), timeout=SLOW_TIMEOUT_S)
        for offset in range(0, len(image), chunk):
            if 0 <= stop_at <= offset:
                return -1
            self.request("LOAD_CHUNK", struct.pack("<I", offset) + image[offset : offset + chunk])
            if progress:
                progress(min(offset + chunk, len(image)), len(image))
        try:
            r = self.request("LOAD_END", timeout=SLOW_TIMEOUT_S)  # CRC of the whole image, then the load
        except DeviceError as e:
            line = explain(image, e.status, e.instruction)
            if line is None:
                raise
            named = DeviceError(f"{line}; {e}")
            named.status, named.instruction = e.status, e.instruction
            raise named from None
        _slot, generation = r.take("BI")
        return generation

    def set_input(self, index: int, data: bytes) -> None:
        chunk = self._chunk_bytes(6)
        for offset in range(0, max(len(data), 1), chunk):
            self.request("SET_INPUT", struct.pack("<HI", index, offset) + data[offset : offset + chunk])

    def invoke(self, timeout: float = INVOKE_TIMEOUT_S) -> int:
        """Runs the model once on the inputs set; returns the device's ticks for the inference."""
        lo, hi = self.request("INVOKE", timeout=timeout).take("II")
        return lo | hi << 32

    def get_output(self, index: int, nbytes: int, page: int = 4096) -> bytes:
        out = bytearray()
        while len(out) < nbytes:
            n = min(page, nbytes - len(out))
            out += self.request("GET_OUTPUT", struct.pack("<HIH", index, len(out), n)).raw(n)
        return bytes(out)

    def profile(self, page: int = 64) -> Profile:
        """Per-instruction ticks of the last invoke, `page` instructions per request."""
        prof: Optional[Profile] = None
        count = 0
        while prof is None or len(prof.ops) < count:
            first = len(prof.ops) if prof else 0
            r = self.request("PROFILE", struct.pack("<HH", first, page))
            count, lo, hi = r.take("III")
            prof = prof or Profile(lo | hi << 32)
            while r.pos < len(r.data):
                ticks, kind = r.take("IB")
                prof.ops.append(OpTicks(len(prof.ops), _KINDS.get(kind, str(kind)), r.op_name(), ticks))
            if len(prof.ops) == first and count > first:
                raise DeviceError(f"PROFILE: the device sent no records from instruction {first} of {count}")
        return prof

    def reset(self) -> None:
        self.request("RESET")

    def run(self, arrays: Sequence[np.ndarray], model: Optional[DeviceModel] = None) -> Tuple[List[np.ndarray], int]:
        """Sets the inputs (logical layout), invokes, reads the outputs: (outputs, ticks)."""
        from mcu_export.runners.tensors import check_inputs

        model = model or self.model()
        arrays = [np.asarray(a) for a in arrays]
        check_inputs(arrays, model.inputs)
        for i, (a, s) in enumerate(zip(arrays, model.inputs)):
            self.set_input(i, to_memory_order(a, s.dim_order))
        ticks = self.invoke()
        outputs = [from_memory_order(self.get_output(i, s.nbytes), s) for i, s in enumerate(model.outputs)]
        return outputs, ticks
