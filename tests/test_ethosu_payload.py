"""Vela's driver payload (cmd_data): parsed into its configuration and command words, malformed ones refused."""

import struct

import pytest

from ethosu_graphs import max_pool_graph, op_graph  # tests/support
from mcu_export.ethosu.blob import BlobError
from mcu_export.ethosu.payload import COMMAND_STREAM, NPU_OP_STOP, parse
from mcu_export.ethosu.vela import compile_tosa

pytest.importorskip("tosa_serializer")


@pytest.mark.slow
@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u65-256"])
def test_vela_payloads_parse_to_a_stream_ending_in_stop(accelerator):
    for graph, op in ((max_pool_graph(), 0x005), (op_graph("conv"), 0x002)):  # NPU_OP_POOL, NPU_OP_CONV
        cmd = compile_tosa(graph, accelerator).blob.cmd_data
        p = parse(cmd)
        header = [w for w in struct.unpack(f"<{len(cmd) // 4}I", cmd) if w & 0xFF == COMMAND_STREAM][0]
        assert p.stream_words == header >> 16 and p.config != (0, 0)
        opcodes = [w & 0x3FF for w, payload in p.commands if payload < 0]
        assert opcodes[-1] == NPU_OP_STOP and op in opcodes


def _payload(stream):
    n = len(stream)  # 24 bits: the low 16 in bits 16-31, the high 8 in bits 8-15
    header = ((n & 0xFFFF) << 16) | ((n >> 16) << 8) | COMMAND_STREAM
    words = [0x31504F43, 0x00100001, 0x1807, 0x10066001, 0x5, header, *stream]
    return struct.pack(f"<{len(words)}I", *words)


def test_commands_with_and_without_payload_words():
    p = parse(_payload([0x4001, 0x100, 0x0005, 0x0000]))
    assert p.commands == [(0x4001, 0x100), (0x5, -1), (0x0, -1)] and p.stream_words == 4


def test_a_stream_of_more_than_65535_words_takes_the_length_high_bits():
    stream = [0x0005] * 70000 + [0x0000]  # NPU_OP_POOL many times, then STOP
    p = parse(_payload(stream))
    assert p.stream_words == 70001 and p.commands[-1] == (0x0, -1)


@pytest.mark.parametrize(
    "data, says",
    [
        (b"COP2" + bytes(12), "expected the tag"),
        (_payload([0x0005]), "does not end with NPU_OP_STOP"),
        (_payload([0x0000, 0x4001]), "payload word that is missing"),
        (_payload([0x0000])[:-4], "command stream of 1 words, 0 remain"),
        (_payload([0x0000]) + struct.pack("<I", 9), "unknown driver action 9"),
    ],
)
def test_malformed_payload_is_one_line(data, says):
    with pytest.raises(BlobError) as err:
        parse(data)
    assert says in str(err.value) and "\n" not in str(err.value)
