"""What the Ethos-U command-stream decoder tests share (tests/test_ethosu_commands*.py): the decoder library
through ctypes (Npu), the lists it is built from (npu_opcodes.def, npu_errors.def), the geometry of a decoded
operation."""

from __future__ import annotations

import ctypes
import re
import struct
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

import ethosu_sim_harness as harness  # tests/support

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "fvp" / "ethosu_sim"
BLOCK_OPS = ("NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE")
CMD1 = 0x4000


def statuses() -> Dict[str, int]:
    """mx_npu_status names to codes, read from npu_errors.def (the list the C side is built from)."""
    text = (SIM / "npu_errors.def").read_text()
    return {m[1]: int(m[2]) for m in re.finditer(r"^MX_NPU_STATUS\((\w+),\s*(\d+),", text, re.M)}


def opcode_list() -> List[Tuple[str, str, int, int]]:
    """(kind, name, opcode, parameter bits) of every command in npu_opcodes.def; cmd1 opcodes carry 0x4000."""
    found = []
    for kind, name, code, bits in re.findall(r"^MX_NPU_(OP|SET0|SET1)\((\w+),\s*(0x\w+),\s*(0x\w+)\)", _def(), re.M):
        prefix = "NPU_OP_" if kind == "OP" else "NPU_SET_"
        found.append((kind, prefix + name, int(code, 16) | (CMD1 if kind == "SET1" else 0), int(bits, 16)))
    return found


def _def() -> str:
    return (SIM / "npu_opcodes.def").read_text()


Error, Payload = harness.Error, harness.Payload
DecodeError = harness.ExecError  # the decoder's refusals carry the same fields as the executor's


def _value(text: str):
    return int(text) if re.fullmatch(r"-?\d+", text) else text


class Npu:
    """The decoder library: decode(words) -> one dict per operation (mx_npu_op_dump's fields)."""

    def __init__(self, path: Path):
        lib = self.lib = ctypes.CDLL(str(path))
        lib.mx_npu_decode.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                      ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(Error)]  # fmt: skip
        lib.mx_npu_op_size.restype = ctypes.c_size_t
        lib.mx_npu_op_dump.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.mx_npu_op_dump.restype = ctypes.c_size_t
        lib.mx_npu_opcode_name.argtypes = [ctypes.c_uint]
        lib.mx_npu_opcode_name.restype = ctypes.c_char_p
        lib.mx_npu_status_text.restype = ctypes.c_char_p
        lib.mx_npu_written.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        lib.mx_npu_payload_find.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Payload),
                                            ctypes.POINTER(Error)]  # fmt: skip
        self.op_size = lib.mx_npu_op_size()
        self.status_names = {code: name for name, code in statuses().items()}

    def name(self, opcode: int):
        raw = self.lib.mx_npu_opcode_name(opcode)
        return None if raw is None else raw.decode()

    def _call(self, words, ops, capacity: int) -> int:
        arr = (ctypes.c_uint32 * max(len(words), 1))(*words)
        count, err = ctypes.c_size_t(), Error()
        rc = self.lib.mx_npu_decode(arr, len(words), ops, capacity, ctypes.byref(count), ctypes.byref(err))
        if rc != 0:
            assert rc == -err.status and err.message, (rc, err.status)
            raise DecodeError(self.status_names[err.status], err)
        return count.value

    def decode_raw(self, words: List[int], capacity: int = -1):
        """(ops buffer, count): the raw mx_npu_op array, sized by a counting pass unless `capacity` is given."""
        capacity = self._call(words, None, 0) if capacity < 0 else capacity
        buf = ctypes.create_string_buffer(self.op_size * max(capacity, 1))
        return buf, self._call(words, buf, capacity)

    def decode(self, words: List[int], capacity: int = -1) -> List[Dict[str, object]]:
        buf, count = self.decode_raw(words, capacity)
        return [self.dump(ctypes.addressof(buf) + i * self.op_size) for i in range(count)]

    def dump(self, address: int) -> Dict[str, object]:
        text = ctypes.create_string_buffer(1 << 14)
        n = self.lib.mx_npu_op_dump(ctypes.c_void_p(address), text, len(text))
        assert n < len(text)
        return {k: _value(v) for k, v in (field.split("=", 1) for field in text.value.decode().split())}

    def stream(self, cmd_data: bytes) -> Tuple[List[int], Payload]:
        """The command words of a driver payload, found by mx_npu_payload_find."""
        p, err = Payload(), Error()
        rc = self.lib.mx_npu_payload_find(cmd_data, len(cmd_data), ctypes.byref(p), ctypes.byref(err))
        if rc != 0:
            raise DecodeError(self.status_names[err.status], err)
        return list(struct.unpack_from(f"<{p.stream_words}I", cmd_data, 4 * p.stream_word)), p


# ---- geometry of a decoded operation --------------------------------------------------------------------------
def ifm_shape(op) -> Tuple[int, int, int]:
    """The IFM as tile 0 holds it (Vela's single-tile feature maps: the whole IFM read)."""
    return op["ifm.height0_m1"] + 1, op["ifm.width0_m1"] + 1, op["ifm.depth_m1"] + 1


def ofm_shape(op) -> Tuple[int, int, int]:
    return op["ofm.height_m1"] + 1, op["ofm.width_m1"] + 1, op["ofm.depth_m1"] + 1


def kernel_shape(op) -> Tuple[int, int]:
    return (op["kernel.height_m1"] // op["kernel.dilation_y"] + 1, op["kernel.width_m1"] // op["kernel.dilation_x"] + 1)


def macs(op) -> int:
    """Vela's per-layer MAC count: OFM elements x kernel elements (x IFM depth for a convolution)."""
    if op["op"] == "NPU_OP_ELEMENTWISE":
        return 0
    kh, kw = kernel_shape(op)
    n = int(np.prod(ofm_shape(op))) * kh * kw
    return n * (op["ifm.depth_m1"] + 1) if op["op"] == "NPU_OP_CONV" else n
