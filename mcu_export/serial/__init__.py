"""The serial link to a board (docs/serial-protocol.md): `SerialClient` speaks the protocol over any
pyserial port; `command` holds the `mcu-export serial ...` commands."""

from mcu_export.serial.client import DeviceInfo, DeviceModel, OpTicks, Profile, SerialClient

__all__ = ["DeviceInfo", "DeviceModel", "OpTicks", "Profile", "SerialClient"]
