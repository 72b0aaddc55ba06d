"""The driver payload Vela writes as `cmd_data`: what an Ethos-U driver hands the NPU.

Layout (facts from Arm's ethos-u-core-driver, re-expressed): the tag "COP1", then driver actions, each a
32-bit word whose low byte is the action and whose high 16 bits are a length: OPTIMIZER_CONFIG (1; two words
follow: the configuration Vela compiled for, and its version), NOP (5; padding), COMMAND_STREAM (2; the length
is the number of command words that follow). A command word has its opcode in bits 0-9 and, when bit 14 is
set, a 32-bit payload word follows it (Vela's register_command_stream_generator); a stream ends with
NPU_OP_STOP (opcode 0 without payload).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import List, Tuple

from mcu_export.ethosu.blob import BlobError

TAG = b"COP1"
OPTIMIZER_CONFIG, COMMAND_STREAM, NOP = 1, 2, 5
_PAYLOAD_BIT = 1 << 14
_OPCODE_MASK = 0x3FF
NPU_OP_STOP = 0x000


@dataclass
class Payload:
    config: Tuple[int, int] = (0, 0)  # OPTIMIZER_CONFIG's two words, when present
    commands: List[Tuple[int, int]] = field(default_factory=list)  # (command word, payload word or -1)

    @property
    def stream_words(self) -> int:
        return sum(1 if p < 0 else 2 for _, p in self.commands)


def parse(cmd_data: bytes) -> Payload:
    """The actions of a driver payload; BlobError (one line) when it does not follow the layout."""
    if len(cmd_data) % 4 or cmd_data[:4] != TAG:
        raise BlobError(f"Ethos-U cmd_data: expected the tag {TAG!r} and whole words, got {cmd_data[:4]!r}, "
                        f"{len(cmd_data)} bytes")  # fmt: skip
    words = struct.unpack(f"<{len(cmd_data) // 4}I", cmd_data)
    payload, at, streams = Payload(), 1, 0
    while at < len(words):
        # a stream's word count has 24 bits: the low 16 in bits 16-31, the high 8 in bits 8-15
        action, length = words[at] & 0xFF, (words[at] >> 16) | ((words[at] >> 8) & 0xFF) << 16
        at += 1
        if action == NOP:
            continue
        if action == OPTIMIZER_CONFIG:
            if at + 2 > len(words):
                raise BlobError("Ethos-U cmd_data: OPTIMIZER_CONFIG cut short")
            payload.config = (words[at], words[at + 1])
            at += 2
        elif action == COMMAND_STREAM:
            if at + length > len(words):
                raise BlobError(f"Ethos-U cmd_data: command stream of {length} words, {len(words) - at} remain")
            payload.commands += _commands(words[at : at + length])
            at += length
            streams += 1
        else:
            raise BlobError(f"Ethos-U cmd_data: unknown driver action {action} at word {at - 1}")
    if streams != 1:
        raise BlobError(f"Ethos-U cmd_data: {streams} command streams, expected one")
    return payload


def _commands(words) -> List[Tuple[int, int]]:
    commands, i = [], 0
    while i < len(words):
        if words[i] & _PAYLOAD_BIT:
            if i + 1 >= len(words):
                raise BlobError("Ethos-U cmd_data: the last command announces a payload word that is missing")
            commands.append((words[i], words[i + 1]))
            i += 2
        else:
            commands.append((words[i], -1))
            i += 1
    if not commands or commands[-1][0] & _OPCODE_MASK != NPU_OP_STOP or commands[-1][1] >= 0:
        raise BlobError("Ethos-U cmd_data: the command stream does not end with NPU_OP_STOP")
    return commands
