"""Target `serial`: a board on a serial link (docs/serial-protocol.md), e.g. a Pico 2 on USB or a simulator's
UART on a socket. The program goes over the link once (not again while the device's active image is this one:
same size and CRC-32); each run then sets the inputs, invokes and reads the outputs back."""

from __future__ import annotations

import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from mcu_export.errors import UsageError
from mcu_export.runners.base import Runner
from mcu_export.runners.host import resolve_program_path

if TYPE_CHECKING:
    from mcu_export.serial.client import DeviceModel, SerialClient


class SerialRunner(Runner):
    name = "serial"
    rank = 90
    by_default = False  # never a board's default: it needs a port

    def __init__(self, board, *, port: Optional[str] = None, baud: int = 115200, **options):
        super().__init__(board, **options)
        if not port:
            raise UsageError("target 'serial' needs a port: --port PORT (a device path or a pyserial URL)")
        self.port, self.baud = port, baud
        self.image: Optional[bytes] = None
        self._client: Optional[SerialClient] = None
        self._model: Optional[DeviceModel] = None

    @classmethod
    def serves(cls, board) -> bool:
        return True  # any board whose firmware speaks the protocol; the host's stand-in is mx_serial_device

    def open(self, program: Path) -> None:
        from mcu_export.pte.reader import read_program_file
        from mcu_export.runners.tensors import program_io

        path = resolve_program_path(program)
        self.inputs, self.outputs = program_io(read_program_file(path))
        self.image = path.read_bytes()
        self._model = None

    def prepare(self) -> None:
        from mcu_export.serial.client import SerialClient

        assert self.image is not None  # open() comes first
        if self._client is None:
            self._client = SerialClient(self.port, self.baud)
        client = self._client
        info = client.info()  # each run: the device may have been reset or loaded by someone else
        if info.active_slot is None or (info.image_bytes, info.image_crc) != (len(self.image), zlib.crc32(self.image)):
            client.load(self.image)
            self._model = None
        if self._model is None:
            self._model = client.model()

    def execute(self, inputs: Sequence[bytes]) -> Tuple[List[bytes], Dict[str, Any]]:
        assert self._client is not None and self._model is not None  # run() calls prepare() first
        start = time.monotonic()
        for i, data in enumerate(inputs):
            self._client.set_input(i, data)
        ticks = self._client.invoke(timeout=max(self.timeout, 1.0))
        outputs = [self._client.get_output(i, s.nbytes) for i, s in enumerate(self._model.outputs)]
        return outputs, {"seconds": time.monotonic() - start, "ticks": ticks}

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
