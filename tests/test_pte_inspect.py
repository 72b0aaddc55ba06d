"""`inspect`'s text: the facts of a program, named as in the schema."""

from __future__ import annotations

import re

import pytest

from mcu_export.pte import program as P
from mcu_export.pte.inspect import format_program
from mcu_export.pte.reader import read_program
from mcu_export.pte.writer import write_program


def two_layer_program() -> P.Program:
    t = P.ScalarType
    arena = lambda off: P.AllocationDetails(1, off)  # noqa: E731
    values = [
        P.Tensor(t.CHAR, [8, 3, 3, 3], [0, 1, 2, 3], data_buffer_idx=1),  # %0 weight
        P.Tensor(t.INT, [8], [0], data_buffer_idx=2),  # %1 bias
        P.Tensor(t.CHAR, [1, 3, 16, 16], [0, 1, 2, 3], allocation_info=arena(0)),  # %2 input
        P.Tensor(t.CHAR, [1, 8, 16, 16], [0, 1, 2, 3], allocation_info=arena(0x300)),  # %3
        P.Tensor(t.CHAR, [1, 8, 16, 16], [0, 1, 2, 3], allocation_info=arena(0x40)),  # %4 output
        P.IntList([6, 6]),
        P.Int(1),
        P.Null(),
        P.Double(0.5),
        P.Bool(False),  # %5..%9
        P.TensorList([3, 4]),  # %10
    ]
    instrs = [
        P.KernelCall(0, [2, 0, 1, 5, 5, 7, 3]),
        P.KernelCall(1, [3, 8, 9, 4]),
        P.KernelCall(1, [4, 8, 9, 4]),
        P.KernelCall(2, [10, 6, 4]),
        P.MoveCall(4, 3),
    ]
    plan = P.ExecutionPlan(
        "forward",
        values,
        inputs=[2],
        outputs=[4],
        chains=[P.Chain([2], [4], instrs)],
        operators=[
            P.Operator("cortex_m::quantized_conv2d", "out"),
            P.Operator("aten::leaky_relu", "out"),
            P.Operator("aten::cat", "out"),
        ],
        non_const_buffer_sizes=[0, 0x1300],
        delegates=[
            P.BackendDelegate(
                "EthosUBackend",
                P.BackendDelegateDataReference(0, 0),
                [P.CompileSpec("output_format", b"vela_bin_stream"), P.CompileSpec("flags", b"\x00\x01\xff")],
            )
        ],
    )
    return P.Program([plan], constant_buffer=[b"", bytes(216), bytes(32)], backend_delegate_data=[bytes(100)])


def test_hand_built_program_text():
    text = format_program(two_layer_program())
    lines = text.splitlines()
    assert lines[0] == "program: schema version 0, 1 methods (forward)"
    assert "constants: 2 buffers, 248 bytes in constant_buffer (inline)" in lines
    # operators with their use counts
    assert re.search(r"\[1\]\s+aten::leaky_relu\.out\s+used 2x", text)
    assert re.search(r"\[0\]\s+cortex_m::quantized_conv2d\.out\s+used 1x", text)
    # inputs/outputs by value index with dtype names
    assert "    %2: int8[1,3,16,16]" in lines and "    %4: int8[1,8,16,16]" in lines
    # the instruction with tensors, constants, int lists and Null summarised
    assert (
        "    [0] cortex_m::quantized_conv2d.out(%2:i8[1,3,16,16]@arena1+0x0, %0:i8[8,3,3,3]@const#1, "
        "%1:i32[8]@const#2, [1, 1], [1, 1], Null, %3:i8[1,8,16,16]@arena1+0x300)"
    ) in lines
    assert (
        "    [1] aten::leaky_relu.out(%3:i8[1,8,16,16]@arena1+0x300, 0.5, False, %4:i8[1,8,16,16]@arena1+0x40)" in lines
    )
    assert "    [3] aten::cat.out((%3, %4), 1, %4:i8[1,8,16,16]@arena1+0x40)" in lines
    assert "    [4] move %4 -> %3" in lines
    # tensors table: a constant tensor's shape and its stored bytes; an arena range
    assert re.search(r"%0\s+int8\s+\[8,3,3,3\]\s+216\s+constant #1 \(216 B stored\)", text)
    assert re.search(r"%3\s+int8\s+\[1,8,16,16\]\s+2048\s+arena1 0x300\.\.0xb00", text)
    # memory plan: the arena's size, tensors placed and the high-water mark
    assert re.search(r"arena1\s+size 4864 B\s+3 tensors\s+peak 2816 B", text)
    # delegates with data size and compile specs
    assert "    [0] EthosUBackend: 100 B (inline 0)" in lines
    assert "        output_format = 'vela_bin_stream'" in lines
    assert "        flags = 0x0001ff (3 B)" in lines


def test_segment_file_text():
    data = write_program(two_layer_program(), constants="segment")
    text = format_program(read_program(data))
    # 216 weight bytes padded to 224 so that the bias starts 16-byte aligned
    assert "constants: 2 buffers, 256 bytes in constant_segment (segment 0)" in text
    assert "segments: 1\n  [0] offset 0x0 size 256 B" in text


@pytest.mark.interop
def test_executorch_written_file():
    exir = pytest.importorskip("executorch.exir")
    import torch

    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(2 * 4 * 4, 3)
    ).eval()
    data = exir.to_edge(torch.export.export(model, (torch.randn(1, 1, 6, 6),))).to_executorch().buffer
    prog = read_program(data)
    text = format_program(prog)
    plan = prog.method("forward")
    assert "    %{}: float32[1,1,6,6]".format(plan.inputs[0]) in text
    assert re.search(r"aten::convolution\.out\s+used 1x", text)
    assert re.search(r"aten::relu\.out\s+used 1x", text)
    assert re.search(rf"arena1\s+size {plan.non_const_buffer_sizes[1]} B", text)
    assert "float32  [2,1,3,3]" in text  # the conv weight in the tensors table
    assert re.search(
        r"\[0\] aten::convolution\.out\(%\d+:f32\[1,1,6,6\]@arena1\+0x[0-9a-f]+, "
        r"%\d+:f32\[2,1,3,3\]@const#\d",
        text,
    )
