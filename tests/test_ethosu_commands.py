"""The Ethos-U command-stream decoder (fvp/ethosu_sim/npu_*.c), built with the host cc and driven through ctypes.

Its facts checked against Vela 5.2's own (opcode numbers and names, parameter fields, enumerations); the real
streams of the example models decoded and matched to Vela's per-layer report, the delegate's I/O records and the
TOSA graph Vela compiled; every field of operations Vela's Python API generated compared with what was asked;
malformed streams refused with the status, the opcode's name and the word index; mutated streams decoded under
ASan/UBSan without a fault.

How Vela's per-layer rows map to NPU operations (report.json npu.subgraphs[].layers, in execution order): every
row with cycles > 0 is one or more consecutive block operations (CONV, DEPTHWISE, POOL, ELEMENTWISE) of its kind.
Vela splits a layer along the OFM depth when it streams the weights in parts (resnet8's 3x3 convolutions, the
first kws convolution: 16 + 48 channels), and a row's MACs are the sum of its operations' (OFM elements x kernel
elements, x IFM depth for CONV). A Transpose row is 1x1 AVERAGE POOLs whose OFM has the IFM's shape and is written
with swapped x/y strides (Vela's fixup_transpose); resnet8's NCHW input takes two Transpose rows, of 1 and 32 POOLs
(the second one per slice of the leading dimension), which together cover the input once each. DMA_START (weights
copied from region 0 to the scratch before their operation), KERNEL_WAIT/DMA_WAIT and STOP belong to no row. Rows with 0 cycles (operators fused into the previous one) have no
operation of their own; the example models have none.
"""

from __future__ import annotations

import ast
import ctypes
import functools
import random
import re
import struct
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest

import ethosu_sim_harness as harness  # tests/support
from ethosu_graphs import max_pool_graph, op_graph  # tests/support

pytest.importorskip("ethosu.vela")

ROOT = Path(__file__).resolve().parents[1]
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


@pytest.fixture(scope="module")
def npu() -> Npu:
    return Npu(harness.build())


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


# ---- facts: Vela's numbers and fields ----------------------------------------------------------------------------
def test_every_opcode_is_velas_and_named(npu):
    from ethosu.vela.ethos_u55_regs.ethos_u55_regs import cmd0, cmd1

    listed = {name: code for _, name, code, _ in opcode_list()}
    vela = {c.name: c.value for c in cmd0} | {c.name: c.value | CMD1 for c in cmd1}
    assert listed == vela
    for name, code in listed.items():
        assert npu.name(code) == name
    for unknown in (0x004, 0x106, 0x110, 0x190, 0x3FF, CMD1 | 0x007, CMD1 | 0x094, CMD1 | 0x3FF):
        assert npu.name(unknown) is None


def test_status_texts_are_the_list(npu):
    texts = dict(re.findall(r'^MX_NPU_STATUS\(\w+,\s*(\d+),\s*"([^"]*)"\)', (SIM / "npu_errors.def").read_text(), re.M))
    assert len(texts) == len(statuses()) > 10
    for code, text in texts.items():
        assert npu.lib.mx_npu_status_text(int(code)).decode() == text == npu.lib.mx_npu_status_text(-int(code)).decode()
    assert npu.lib.mx_npu_status_text(-(1 << 31)).decode() == "unknown command-stream decoder status"


def test_parameter_fields_never_widen_velas():
    """Every parameter bit the decoder accepts is a field in Vela's register layout (ethos_u55_regs.py), or one
    Vela's generator writes although that layout calls it reserved: bits 32-47 of a cmd1 address
    (cmd1_with_address) and the DMA_WAIT count (cmd_wait). Narrower where the hardware's fields are (pads,
    regions, the kernel stride's reserved bits)."""
    import ethosu.vela.ethos_u55_regs.ethos_u55_regs as regs
    from ethosu.vela.register_command_stream_generator import CommandStreamEmitter

    emit = CommandStreamEmitter()
    emit.cmd1_with_address(regs.cmd1.NPU_SET_IFM_BASE0, 0x12_3456_7890)
    emit.cmd_wait(regs.cmd0.NPU_OP_DMA_WAIT, 0, 3)
    assert emit.to_list() == [0x0012_4000, 0x3456_7890, 0x0003_0011]
    written_anyway = {"NPU_OP_DMA_WAIT"}
    for kind, name, _, bits in opcode_list():
        layout, at, field_bits = getattr(regs, name.lower() + "_t"), 0, 0
        for field, _, width in layout._fields_:
            if 16 <= at < 32 and not field.startswith(("reserved", "must_be_zero")):
                field_bits |= ((1 << width) - 1) << (at - 16)
            at += width
        if name in written_anyway or (kind == "SET1" and bits == 0xFFFF and field_bits == 0):
            continue
        assert bits & ~field_bits == 0, f"{name}: 0x{bits:04X} accepts bits outside Vela's fields 0x{field_bits:04X}"


ENUMS = {  # header list -> Vela's enum class
    "LAYOUT": "data_format",
    "POOLING": "pooling_mode",
    "ELEMENTWISE": "elementwise_mode",
    "CLIP": "clip_range",
    "ACC": "acc_format",
    "RESAMPLING": "resampling_mode",
    "ROUNDING": "rounding",
    "SCALE_MODE": "ifm_scale_mode",
    "STRIDE_MODE": "stride_mode",
    "ACTIVATION": "activation",
}


def test_enumerations_are_velas():
    import ethosu.vela.ethos_u55_regs.ethos_u55_regs as regs

    header = (SIM / "npu_commands.h").read_text()
    for ours, theirs in ENUMS.items():
        values = {int(v) for v in re.findall(rf"X\({ours}, \w+, (\d+)\)", header)}
        vela = {e.value for e in getattr(regs, theirs)}
        if theirs == "activation":  # Vela names the table range by its ends
            vela = {0, 3, 4, *range(regs.activation.LUT_START.value, regs.activation.LUT_END.value + 1)}
        assert values == vela, ours


# ---- the example models on the NPU -----------------------------------------------------------------------------
MODELS = ("kws_dscnn", "mnist_mlp", "resnet8", "autoencoder")
ACCELERATORS = ("ethos-u55-128", "ethos-u65-256")
ROW_KINDS = {
    "Conv2D": "NPU_OP_CONV",
    "DepthwiseConv2D": "NPU_OP_DEPTHWISE",
    "AvgPool": "NPU_OP_POOL",
    "MaxPool": "NPU_OP_POOL",
    "Transpose": "NPU_OP_POOL",
    "Add": "NPU_OP_ELEMENTWISE",
}


@functools.lru_cache(maxsize=None)
def exported(model: str, accelerator: str):
    import mcu_export
    from mcu_export.model_spec import load_model

    net, inputs = load_model(str(ROOT / "examples" / f"{model}.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # calibration on the example inputs only
        return mcu_export.export(net, inputs, quantize="int8", backend=accelerator)


def _geometry(op):
    keys = ("ifm.height0_m1", "ifm.width0_m1", "ifm.depth_m1", "ofm.height_m1", "ofm.width_m1", "ofm.depth_m1",
            "ofm.stride_x", "ofm.stride_y", "kernel.width_m1", "kernel.height_m1")  # fmt: skip
    return tuple(op[k] for k in keys)


def rows_to_ops(layers, blocks, complete: bool = True) -> List[Tuple[dict, List[dict]]]:
    """Vela's per-layer rows (cycles > 0) with the block operations each became (see the module docstring)."""
    pairs, at = [], 0
    for row in (r for r in layers if r["cycles"] > 0):
        kind, taken = ROW_KINDS[row["operator"]], []
        if row["macs"] > 0:
            while at < len(blocks) and sum(map(macs, taken)) < row["macs"]:
                taken.append(blocks[at])
                at += 1
            assert sum(map(macs, taken)) == row["macs"], row
        else:  # Add, Transpose: a run of operations of one geometry (Vela's batch split of a transpose)
            taken.append(blocks[at])
            at += 1
            while at < len(blocks) and blocks[at]["op"] == kind and _geometry(blocks[at]) == _geometry(taken[0]):
                taken.append(blocks[at])
                at += 1
        assert {op["op"] for op in taken} == {kind}, (row, [op["op"] for op in taken])
        pairs.append((row, taken))
    assert at == len(blocks) or not complete, f"{len(blocks) - at} operations belong to no row"
    return pairs


class Tosa:
    """The TOSA graph Vela compiled: each tensor's producer, constants as numbers."""

    def __init__(self, data: bytes):
        from tosa import Op, TosaGraph

        block = TosaGraph.TosaGraph.GetRootAs(data, 0).Regions(0).Blocks(0)
        kinds = {v: k for k, v in vars(Op.Op).items() if not k.startswith("_")}
        self.tensors = {t.Name().decode(): t for t in (block.Tensors(i) for i in range(block.TensorsLength()))}
        self.producer = {}
        for i in range(block.OperatorsLength()):
            op = block.Operators(i)
            ins = [op.Inputs(j).decode() for j in range(op.InputsLength())]
            for j in range(op.OutputsLength()):
                self.producer[op.Outputs(j).decode()] = (kinds[op.Op()], ins, op)

    def scalar(self, name: str) -> int:
        from tosa.DType import DType

        t = self.tensors[name]
        dtype = {DType.INT8: np.int8, DType.INT16: np.int16, DType.INT32: np.int32}[t.Type()]
        return int(np.frombuffer(t.DataAsNumpy().tobytes(), dtype)[0])

    def rounding(self, op) -> str:
        """Vela's choice for a RESCALE fused into the operation before it: TFL for a double round, else NATURAL."""
        from tosa.RescaleAttribute import RescaleAttribute
        from tosa.RoundingMode import RoundingMode

        attr, table = RescaleAttribute(), op.Attribute()
        attr.Init(table.Bytes, table.Pos)
        return "TFL" if attr.RoundingMode() == RoundingMode.DOUBLE_ROUND and attr.Scale32() else "NATURAL"


def expected_quantization(tosa: Tosa, row) -> Dict[str, object]:
    """The zero points, rounding and clamp the TOSA graph asks of a row's operations (its name is the output
    tensor of the row's last TOSA operator, a RESHAPE after it aside)."""
    kind, ins, op = tosa.producer[row["name"]]
    while kind == "RESHAPE":  # a fully connected layer's output back to its shape: no operation of its own
        kind, ins, op = tosa.producer[ins[0]]
    want: Dict[str, object] = {}
    if kind == "CLAMP":
        from tosa.ClampAttribute import ClampAttribute

        attr, table = ClampAttribute(), op.Attribute()
        attr.Init(table.Bytes, table.Pos)
        low, high = (int(np.frombuffer(a.tobytes(), np.int8)[0]) for a in (attr.MinValAsNumpy(), attr.MaxValAsNumpy()))
        want.update({"activation.min": low, "activation.max": high})
        kind, ins, op = tosa.producer[ins[0]]
    if kind == "AVG_POOL2D":  # zero points in its operands; Vela's average pool rounds half up
        return want | {"ifm.zero_point": tosa.scalar(ins[1]), "ofm.zero_point": tosa.scalar(ins[2]),
                       "ofm.rounding": "NATURAL"}  # fmt: skip
    assert kind == "RESCALE", (row, kind)
    want.update({"ofm.zero_point": tosa.scalar(ins[4]), "ofm.rounding": tosa.rounding(op)})
    kind, ins, op = tosa.producer[ins[0]]
    if kind in ("CONV2D", "DEPTHWISE_CONV2D"):
        want["ifm.zero_point"] = tosa.scalar(ins[3])
    elif kind == "ADD":  # each operand rescaled from int8: the RESCALEs' input zero points, in either order
        want["operand zero points"] = sorted(tosa.scalar(tosa.producer[i][1][3]) for i in ins)
    else:
        raise AssertionError(f"{row}: {kind} before the RESCALE")
    return want


def copied_from_weights(ops_before, region: int, base: int, length: int) -> bool:
    """Whether [base, base + length) in `region` was filled by a DMA from region 0 (the weights)."""
    for dma in (o for o in ops_before if o["op"] == "NPU_OP_DMA_START"):
        if dma["dma.src_region"] == 0 and dma["dma.dst_region"] == region and not dma["dma.dst_internal"]:
            if dma["dma.dst"] <= base and base + length <= dma["dma.dst"] + dma["dma.len"]:
                return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize("model", MODELS)
def test_example_model_streams(npu, model, accelerator):
    from mcu_export.ethosu import blob as vela_blob
    from mcu_export.ethosu.payload import parse

    art = exported(model, accelerator)
    blob = vela_blob.unpack(art.program.backend_delegate_data[0])
    words, payload = npu.stream(blob.cmd_data)
    parsed = parse(blob.cmd_data)  # the Python parser finds the same words and configuration
    assert words == [w for cmd in parsed.commands for w in (cmd if cmd[1] >= 0 else cmd[:1])]
    assert tuple(payload.config) == parsed.config and payload.has_config

    ops = npu.decode(words)
    assert ops[-1]["op"] == "NPU_OP_STOP" and ops[-1]["param"] == 0xFFFF and ops[-1]["word"] == len(words) - 1
    assert "NPU_OP_STOP" not in [o["op"] for o in ops[:-1]]
    blocks = [o for o in ops if o["op"] in BLOCK_OPS]

    # Vela's per-layer rows, one or more operations each. Not for kws: the integer form of its softmax
    # (mcu_export.ethosu.softmax_tosa) has rows whose operations Vela folds across rows (a rescale into a table).
    layers = art.report["npu"]["subgraphs"][0]["layers"]
    softmax = next((i for i, r in enumerate(layers) if r["operator"] == "ReduceMax"), len(layers))
    pairs = rows_to_ops(layers[:softmax], blocks, complete=softmax == len(layers))
    (record_in,), (record_out,) = blob.inputs, blob.outputs
    for row, taken in pairs:
        if row["operator"] == "Transpose":  # 1x1 average pools over the whole input, OFM as large as the IFM
            assert all(o["mode"] == "AVERAGE" and kernel_shape(o) == (1, 1) for o in taken)
            assert all(ifm_shape(o) == ofm_shape(o) for o in taken)
            assert sum(np.prod(ofm_shape(o)) for o in taken) == np.prod(record_in.shape)
        if row["operator"] == "AvgPool":
            assert all(o["mode"] == "AVERAGE" for o in taken)
        if row["operator"] == "Add":
            assert all(o["mode"] == "ADD" for o in taken)

    # the delegate's input and output: the first operation's IFM, the last one's OFM
    first, last = blocks[0], blocks[-1]
    assert (1, 1, 1, *ifm_shape(first)) == record_in.shape and (1, 1, 1, *ofm_shape(last)) == record_out.shape
    for fm, op, record in (("ifm", first, record_in), ("ofm", last, record_out)):
        assert (op[f"{fm}.region"], op[f"{fm}.base0"], op[f"{fm}.layout"]) == (record.region, record.offset, "NHWC")
        assert op[f"{fm}.dtype"] == "S8" and record.elem_size == 1

    # where operations write and read their weights
    for i, op in enumerate(ops):
        if op["op"] not in BLOCK_OPS:
            continue
        # an elementwise operand may be a constant of the weight region (the softmax's integer form has some)
        constants = (0,) if op["op"] == "NPU_OP_ELEMENTWISE" else ()
        assert op["ofm.region"] in (1, 2) and op["ifm.region"] in (1, 2, *constants)
        if op["op"] in ("NPU_OP_CONV", "NPU_OP_DEPTHWISE"):
            for what in ("weight", "scale"):
                region, base, length = op[f"{what}.region"], op[f"{what}.base0"], op[f"{what}.length0"]
                assert length > 0 and (region == 0 or copied_from_weights(ops[:i], region, base, length)), (i, what)
            assert op["ofm.global_scale"] == 0 and op["parallel_mode"] == 0

    # zero points, rounding and clamps as the TOSA graph asks
    tosa = Tosa(art.npu_graphs[0])
    for row, taken in pairs:
        if row["operator"] == "Transpose":
            continue
        want = expected_quantization(tosa, row)
        operands = want.pop("operand zero points", None)
        for op in taken:
            assert {k: op[k] for k in want} == want, row
            if operands is not None:
                assert sorted((op["ifm.zero_point"], op["ifm2.zero_point"])) == operands, row
    if model == "kws_dscnn":  # its first convolution reads the input at the input's (non-zero) zero point
        assert first["ifm.zero_point"] == expected_quantization(tosa, pairs[0][0])["ifm.zero_point"] != 0


# ---- small graphs through compile_tosa: every field against the graph's parameters --------------------------------
COMMON = {"ifm.dtype": "S8", "ifm.layout": "NHWC", "ofm.dtype": "S8", "ofm.layout": "NHWC", "ifm.region": 1,
          "ofm.region": 1, "ifm.upscale": "NONE", "activation.function": "NONE", "activation.min": -128,
          "activation.max": 127, "acc_format": "INT_32BIT"}  # fmt: skip
SMALL = {
    "conv": (lambda: op_graph("conv"), "NPU_OP_CONV", dict(
        ifm=(6, 6, 8), ofm=(4, 4, 4), kernel=(3, 3), stride=(1, 1), pad=(0, 0, 0, 0),
        fields={"ifm.zero_point": -5, "ofm.zero_point": -3, "ofm.rounding": "TFL", "ofm.global_scale": 0,
                "weight.region": 0, "scale.region": 0})),
    "depthwise": (lambda: op_graph("depthwise"), "NPU_OP_DEPTHWISE", dict(
        ifm=(6, 6, 8), ofm=(6, 6, 8), kernel=(3, 3), stride=(1, 1), pad=(1, 1, 1, 1),
        fields={"ifm.zero_point": -5, "ofm.zero_point": -3, "ofm.rounding": "TFL", "kernel.part_kernel_first": 0,
                "weight.region": 0, "scale.region": 0})),
    "add": (lambda: op_graph("add"), "NPU_OP_ELEMENTWISE", dict(
        ifm=(6, 6, 8), ofm=(6, 6, 8), kernel=None, stride=None, pad=None,
        fields={"mode": "ADD", "ifm.zero_point": -3, "ifm2.zero_point": 2, "ofm.zero_point": 1, "ifm2.dtype": "S8",
                "ifm2.region": 1, "ifm2.use_scalar": 0, "ifm2.broadcast_h": 0, "ifm2.broadcast_w": 0,
                "ifm2.broadcast_c": 0, "ofm.global_scale": 1, "ifm2.width0_m1": 5, "ifm2.height0_m1": 5})),
    "max_pool": (max_pool_graph, "NPU_OP_POOL", dict(
        ifm=(8, 8, 16), ofm=(4, 4, 16), kernel=(2, 2), stride=(2, 2), pad=(0, 0, 0, 0),
        fields={"mode": "MAX", "ifm.zero_point": 0, "ofm.zero_point": 0})),
    "avg_pool": (lambda: op_graph("avg"), "NPU_OP_POOL", dict(
        ifm=(6, 6, 8), ofm=(3, 3, 8), kernel=(2, 2), stride=(2, 2), pad=(0, 0, 0, 0),
        fields={"mode": "AVERAGE", "ofm.rounding": "NATURAL", "ofm.global_scale": 1})),
}  # fmt: skip


@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u65-256", "ethos-u65-512"])
@pytest.mark.parametrize("graph", list(SMALL))
def test_small_graph_fields(npu, graph, accelerator):
    from mcu_export.ethosu.vela import compile_tosa

    make, kind, p = SMALL[graph]
    result = compile_tosa(make(), accelerator)
    ops = npu.decode(npu.stream(result.blob.cmd_data)[0])
    (op,) = [o for o in ops if o["op"] in BLOCK_OPS]
    assert op["op"] == kind and ops[-1]["op"] == "NPU_OP_STOP"
    assert ifm_shape(op) == p["ifm"] and ofm_shape(op) == p["ofm"]
    tiles = (op["ifm.height1_m1"], op["ofm.width0_m1"], op["ofm.height0_m1"])  # one tile each
    assert tiles == (p["ifm"][0] - 1, p["ofm"][1] - 1, p["ofm"][0] - 1)
    h, w, c = p["ifm"]
    assert (op["ifm.stride_c"], op["ifm.stride_x"], op["ifm.stride_y"]) == (1, c, w * c)  # NHWC int8
    if p["kernel"] is not None:
        assert kernel_shape(op) == p["kernel"] and (op["kernel.stride_y"], op["kernel.stride_x"]) == p["stride"]
        assert (op["ifm.pad_top"], op["ifm.pad_left"], op["ifm.pad_bottom"], op["ifm.pad_right"]) == p["pad"]
        assert (op["kernel.dilation_x"], op["kernel.dilation_y"]) == (1, 1)
    want = COMMON | p["fields"]
    assert {k: op[k] for k in want} == want
    assert (op["parallel_mode"] == 1) == (accelerator == "ethos-u65-512")
    if kind in ("NPU_OP_CONV", "NPU_OP_DEPTHWISE"):  # weights and scales inside the weight blob, per core
        cores = 2 if accelerator == "ethos-u65-512" else 1
        for what in ("weight", "scale"):
            for core in range(cores):
                base, length = op[f"{what}.base{core}"], op[f"{what}.length{core}"]
                assert length > 0 and length % 16 == 0 and base + length <= len(result.blob.weight_data)
            assert cores == 2 or op[f"{what}.length1"] == 0
        # 10 bytes per output channel (32-bit scale, 6-bit shift, 40-bit bias), padded to 16 per core
        assert sum(op[f"scale.length{core}"] for core in range(cores)) >= 10 * p["ofm"][2]


# ---- Vela's register-level API: what was asked against what was decoded ---------------------------------------------
def _vela_api_cases():
    """(accelerator, [operations]) built with Vela's public API, covering the fields the graphs above leave alone."""
    from ethosu.vela import api as v

    def fm(dtype, shape, *, region=1, layout=v.NpuLayout.NHWC, zp=0, addresses=(0x1000, 0, 0, 0), tiles=None):
        f = v.NpuFeatureMap()
        f.data_type, f.region, f.shape, f.layout = dtype, region, v.NpuShape3D(*shape), layout
        f.quantization = v.NpuQuantization(scale_f32=0.25, zero_point=zp)
        h0, h1, w0 = tiles or (shape[0], shape[0], shape[1])
        f.tiles = v.NpuTileBox(height_0=h0, height_1=h1, width_0=w0, addresses=list(addresses))
        return f

    def act(kind, lo=None, hi=None, table=0):
        a = v.NpuActivation(kind)
        a.min, a.max, a.lookup_table_index = lo, hi, table
        return a

    conv = v.NpuConv2DOperation()
    conv.ifm = fm(v.NpuDataType.INT8, (9, 9, 8), zp=-7)
    conv.ofm = fm(
        v.NpuDataType.INT8, (4, 4, 16), region=2, layout=v.NpuLayout.NHCWB16, zp=3, addresses=(0x400, 0, 0, 0)
    )
    conv.kernel = v.NpuKernel(3, 3, stride_x=2, stride_y=2)
    conv.padding = v.NpuPadding(top=1, left=0, bottom=1, right=2)
    conv.weights, conv.biases = [v.NpuAddressRange(0, 0x100, 640)], [v.NpuAddressRange(0, 0x20, 160)]
    conv.block_traversal = v.NpuBlockTraversal.DEPTH_FIRST
    conv.activation = act(v.NpuActivationOp.NONE_OR_RELU, lo=0.0)

    tiled = v.NpuConv2DOperation()  # int16, 4 IFM tiles, stride 3x1, dilation 2, part-kernel-first
    tiled.ifm = fm(v.NpuDataType.INT16, (12, 10, 16), zp=0, tiles=(5, 7, 6), addresses=(0x2000, 0x3000, 0x5000, 0x6000))
    tiled.ofm = fm(v.NpuDataType.INT16, (4, 6, 8), addresses=(0x8000, 0, 0, 0))
    tiled.kernel = v.NpuKernel(2, 3, stride_x=1, stride_y=3, dilation_x=2, dilation_y=2)
    tiled.padding = v.NpuPadding(top=0, left=1, bottom=0, right=1)
    tiled.weights, tiled.biases = [v.NpuAddressRange(0, 0x400, 256)], [v.NpuAddressRange(0, 0x200, 80)]
    tiled.block_traversal = v.NpuBlockTraversal.PART_KERNEL_FIRST
    tiled.rounding_mode = v.NpuRoundingMode.NATURAL

    depthwise = v.NpuConvDepthWiseOperation()  # a table lookup on a 32-bit OFM forces the int8 clip range
    depthwise.ifm = fm(v.NpuDataType.UINT8, (8, 8, 16), zp=128)
    depthwise.ofm = fm(v.NpuDataType.INT32, (8, 8, 16), addresses=(0x3000, 0, 0, 0))
    depthwise.kernel = v.NpuKernel(3, 3, dilation_x=2)
    depthwise.padding = v.NpuPadding(2, 2, 2, 2)
    depthwise.weights, depthwise.biases = [v.NpuAddressRange(0, 0x400, 192)], [v.NpuAddressRange(0, 0x200, 160)]
    depthwise.activation = act(v.NpuActivationOp.TABLE_LOOKUP, table=5)

    reduce_sum = v.NpuPoolingOperation(v.NpuPoolingOp.REDUCE_SUM)  # nearest-neighbour upscaled IFM
    reduce_sum.ifm = fm(v.NpuDataType.INT8, (4, 4, 8), zp=-1)
    reduce_sum.ofm = fm(v.NpuDataType.INT32, (8, 8, 8), addresses=(0x2000, 0, 0, 0))
    reduce_sum.kernel = v.NpuKernel(1, 1)
    reduce_sum.padding = v.NpuPadding(0, 0, 0, 0)
    reduce_sum.ifm_upscale = v.NpuResamplingMode.NEAREST
    reduce_sum.rounding_mode = v.NpuRoundingMode.TRUNCATE

    max_pool = v.NpuPoolingOperation(v.NpuPoolingOp.MAX)
    max_pool.ifm = fm(v.NpuDataType.INT8, (7, 7, 24), layout=v.NpuLayout.NHCWB16)
    max_pool.ofm = fm(v.NpuDataType.INT8, (4, 4, 24), addresses=(0x4000, 0, 0, 0))
    max_pool.kernel = v.NpuKernel(3, 3, stride_x=2, stride_y=2)
    max_pool.padding = v.NpuPadding(1, 1, 1, 1)
    max_pool.activation = act(v.NpuActivationOp.NONE_OR_RELU, lo=-1.0, hi=6.0)

    scalar_sub = v.NpuElementWiseOperation(v.NpuElementWiseOp.SUB)  # IFM2 a scalar, the operands reversed
    scalar_sub.ifm = fm(v.NpuDataType.INT8, (5, 6, 7), zp=4)
    scalar_sub.ifm2 = fm(v.NpuDataType.INT8, (1, 1, 1), zp=-2)
    scalar_sub.ifm2_scalar, scalar_sub.reversed_operands = 3.0, True
    scalar_sub.ofm = fm(v.NpuDataType.INT8, (5, 6, 7), zp=9, addresses=(0x2000, 0, 0, 0))

    broadcast_mul = v.NpuElementWiseOperation(v.NpuElementWiseOp.MUL)  # IFM2 broadcast along H and W
    broadcast_mul.ifm = fm(v.NpuDataType.INT16, (5, 6, 7))
    broadcast_mul.ifm2 = fm(v.NpuDataType.INT16, (1, 1, 7), region=2, addresses=(0x40, 0, 0, 0))
    broadcast_mul.ofm = fm(v.NpuDataType.INT16, (5, 6, 7), addresses=(0x2000, 0, 0, 0))

    shift_left = v.NpuElementWiseOperation(v.NpuElementWiseOp.SHL)
    shift_left.ifm = fm(v.NpuDataType.INT32, (2, 3, 4))
    shift_left.ifm2 = fm(v.NpuDataType.INT32, (2, 3, 4), addresses=(0x1800, 0, 0, 0))
    shift_left.ofm = fm(v.NpuDataType.INT32, (2, 3, 4), addresses=(0x2000, 0, 0, 0))

    absolute = v.NpuElementWiseOperation(v.NpuElementWiseOp.ABS)
    absolute.ifm = fm(v.NpuDataType.INT8, (3, 3, 3), zp=-4)
    absolute.ofm = fm(v.NpuDataType.INT8, (3, 3, 3), zp=5, addresses=(0x2000, 0, 0, 0))

    dma = v.NpuDmaOperation(v.NpuAddressRange(0, 0x30, 0x200), v.NpuAddressRange(1, 0x6000, 0x200))
    lut = v.NpuDmaOperation(v.NpuAddressRange(0, 0x800, 256), v.NpuAddressRange(0x103, 0x500, 256))

    far = v.NpuConv2DOperation()  # Ethos-U65: 40-bit addresses, two cores' weight streams
    far.ifm = fm(v.NpuDataType.INT8, (3, 3, 16), addresses=(0x12_3456_7880, 0, 0, 0))
    far.ofm = fm(v.NpuDataType.INT8, (1, 1, 32), region=2, addresses=(0x3_0000_0040, 0, 0, 0))
    far.kernel = v.NpuKernel(3, 3)
    far.padding = v.NpuPadding(0, 0, 0, 0)
    far.weights = [v.NpuAddressRange(0, 0x1_0000_0000, 512), v.NpuAddressRange(0, 0x1_0000_0400, 496)]
    far.biases = [v.NpuAddressRange(0, 0x2_0000_0000, 160), v.NpuAddressRange(0, 0x2_0000_00A0, 160)]
    far.block_traversal = v.NpuBlockTraversal.DEPTH_FIRST
    far_dma = v.NpuDmaOperation(v.NpuAddressRange(0, 0x7_0000_0000, 0x100), v.NpuAddressRange(2, 0x1_0000_0000, 0x100))

    u55 = [conv, tiled, depthwise, reduce_sum, max_pool, scalar_sub, broadcast_mul, shift_left, absolute, dma, lut]
    return [(v.NpuAccelerator.Ethos_U55_128, u55), (v.NpuAccelerator.Ethos_U65_512, [far, far_dma, absolute])]


def _expected(op, accelerator) -> Dict[str, object]:
    """The decoded fields operation `op` must show, from its Vela API description (and Vela's own helpers)."""
    from ethosu.vela import api as v
    from ethosu.vela.register_command_stream_util import get_strides, quantise

    dtypes = {v.NpuDataType.UINT8: "U8", v.NpuDataType.INT8: "S8", v.NpuDataType.UINT16: "U16",
              v.NpuDataType.INT16: "S16", v.NpuDataType.INT32: "S32"}  # fmt: skip
    if isinstance(op, v.NpuDmaOperation):
        internal = op.dest.region >> 8
        return {"op": "NPU_OP_DMA_START", "dma.src_region": op.src.region, "dma.src": op.src.address,
                "dma.dst_region": op.dest.region & 7, "dma.dst_internal": internal, "dma.dst": op.dest.address,
                "dma.len": op.src.length, "dma.src_internal": 0}  # fmt: skip
    want: Dict[str, object] = {}

    def feature_map(name, f, sizes=True):
        strides = get_strides(f)
        want.update({f"{name}.region": f.region, f"{name}.dtype": dtypes[f.data_type],
                     f"{name}.layout": f.layout.name, f"{name}.zero_point": f.quantization.zero_point,
                     f"{name}.stride_x": strides.width, f"{name}.stride_y": strides.height,
                     f"{name}.stride_c": strides.depth})  # fmt: skip
        if sizes:
            want.update({f"{name}.width0_m1": f.tiles.width_0 - 1, f"{name}.height0_m1": f.tiles.height_0 - 1,
                         f"{name}.height1_m1": f.tiles.height_1 - 1})  # fmt: skip
            want.update({f"{name}.base{i}": a for i, a in enumerate(f.tiles.addresses)})

    feature_map("ifm", op.ifm)
    feature_map("ofm", op.ofm)
    want["ifm.depth_m1"] = op.ifm.shape.depth - 1
    want.update({"ofm.height_m1": op.ofm.shape.height - 1, "ofm.width_m1": op.ofm.shape.width - 1,
                 "ofm.depth_m1": op.ofm.shape.depth - 1, "ofm.rounding": op.rounding_mode.name,
                 "ifm.upscale": op.ifm_upscale.name})  # fmt: skip
    bc = op.block_config
    want.update({"ofm.blk_height_m1": bc.height - 1, "ofm.blk_width_m1": bc.width - 1,
                 "ofm.blk_depth_m1": bc.depth - 1})  # fmt: skip
    if op.padding is not None:
        p = op.padding
        want.update({"ifm.pad_top": p.top, "ifm.pad_left": p.left, "ifm.pad_bottom": p.bottom,
                     "ifm.pad_right": p.right})  # fmt: skip
    if op.kernel is not None and not isinstance(op, v.NpuElementWiseOperation):
        k = op.kernel
        want.update({"kernel.width_m1": k.dilation_x * (k.width - 1), "kernel.height_m1": k.dilation_y * (k.height - 1),
                     "kernel.stride_x": k.stride_x, "kernel.stride_y": k.stride_y, "kernel.dilation_x": k.dilation_x,
                     "kernel.dilation_y": k.dilation_y})  # fmt: skip
        traversal = getattr(op, "block_traversal", v.NpuBlockTraversal.DEPTH_FIRST)  # conv only; else depth first
        want["kernel.part_kernel_first"] = int(traversal == v.NpuBlockTraversal.PART_KERNEL_FIRST)
    for what, ranges in (("weight", op.weights), ("scale", op.biases)):
        if ranges:
            want[f"{what}.region"] = ranges[0].region
            for core, r in enumerate(ranges):
                want.update({f"{what}.base{core}": r.address, f"{what}.length{core}": r.length})
    # activation: Vela's clamp in the OFM's quantized domain, the lookup table by index
    a = op.activation or v.NpuActivation(v.NpuActivationOp.NONE_OR_RELU)
    dt = op.ofm.data_type
    lo = dt.min_value() if a.min is None else quantise(a.min, op.ofm.quantization)
    hi = dt.max_value() if a.max is None else quantise(a.max, op.ofm.quantization)
    lo, hi = max(lo, -(1 << 15), dt.min_value()), min(hi, (1 << 15) - 1, dt.max_value())
    function, clip = "NONE", "OFM_PRECISION"
    if a.op_type == v.NpuActivationOp.TABLE_LOOKUP:
        function = f"LUT_{a.lookup_table_index}"
        if dt == v.NpuDataType.INT32:
            clip, lo, hi = "FORCE_INT8", max(lo, -128), min(hi, 127)
    want.update({"activation.function": function, "activation.clip_range": clip, "activation.min": lo,
                 "activation.max": hi})  # fmt: skip
    if isinstance(op, v.NpuConv2DOperation):
        want["op"] = "NPU_OP_CONV"
    elif isinstance(op, v.NpuConvDepthWiseOperation):
        want["op"] = "NPU_OP_DEPTHWISE"
    elif isinstance(op, v.NpuPoolingOperation):
        want.update({"op": "NPU_OP_POOL", "mode": op.sub_op_type.name})
    else:
        want.update({"op": "NPU_OP_ELEMENTWISE", "mode": op.sub_op_type.name})
        if op.ifm2 is not None:
            scalar = op.ifm2_scalar is not None
            feature_map("ifm2", op.ifm2, sizes=not scalar)
            if scalar:
                for k in ("region", "stride_x", "stride_y", "stride_c"):
                    del want[f"ifm2.{k}"]
                want["ifm2.scalar"] = quantise(op.ifm2_scalar, op.ifm2.quantization)
            want.update({"ifm2.use_scalar": int(scalar), "ifm2.reversed": int(op.reversed_operands),
                         "ifm2.broadcast_h": int(not scalar and op.ifm2.shape.height != op.ifm.shape.height),
                         "ifm2.broadcast_w": int(not scalar and op.ifm2.shape.width != op.ifm.shape.width),
                         "ifm2.broadcast_c": int(not scalar and op.ifm2.shape.depth != op.ifm.shape.depth)})  # fmt: skip
    want["parallel_mode"] = 1 if accelerator == v.NpuAccelerator.Ethos_U65_512 else 0
    return want


def test_vela_api_operations_decode_to_what_was_asked(npu, capsys):
    from ethosu.vela import api as v

    for accelerator, operations in _vela_api_cases():
        for op in operations:
            if not isinstance(op, v.NpuDmaOperation):
                op.block_config = v.npu_find_block_configs(op, accelerator)[-1]
        words = v.npu_generate_register_command_stream(operations, accelerator)
        capsys.readouterr()  # Vela prints its configuration warnings
        decoded = [o for o in npu.decode(words) if o["op"] in (*BLOCK_OPS, "NPU_OP_DMA_START")]
        assert len(decoded) == len(operations)
        for op, got in zip(operations, decoded):
            want = _expected(op, accelerator)
            assert {k: got[k] for k in want} == want, want["op"]
        # and through Vela's driver payload, as a delegate carries it
        payload = v.npu_create_driver_payload(words, accelerator)
        found, p = npu.stream(payload)
        assert found == words and p.has_config


# ---- refusals -------------------------------------------------------------------------------------------------------
STOP = 0xFFFF0000  # NPU_OP_STOP, mask 0xFFFF


def _minimal_stream():
    """A valid stream: one DMA and STOP."""
    return [0x00000130, 0x00010131, CMD1 | 0x030, 0x100, CMD1 | 0x031, 0x200, CMD1 | 0x032, 0x40, 0x010, STOP]


@pytest.mark.parametrize(
    "words, status, index, says",
    [
        (
            [0x4000 | 0x000, 0x1234],
            "MX_NPU_ERR_NO_STOP",
            2,
            "ends without NPU_OP_STOP; its last command is NPU_SET_IFM_BASE0",
        ),
        ([], "MX_NPU_ERR_NO_STOP", 0, "empty stream"),
        ([0x00000130, CMD1 | 0x030], "MX_NPU_ERR_TRUNCATED", 1, "NPU_SET_DMA0_SRC (0x4030): its payload word"),
        ([0x00000106, STOP], "MX_NPU_ERR_UNKNOWN_OPCODE", 0, "no cmd0 command has opcode 0x106"),
        ([0x00000130, CMD1 | 0x07F, 0, STOP], "MX_NPU_ERR_UNKNOWN_OPCODE", 1, "no cmd1 command has opcode 0x07F"),
        ([STOP, 0x00000130], "MX_NPU_ERR_AFTER_STOP", 1, "NPU_SET_DMA0_SRC_REGION (0x0130): follows NPU_OP_STOP"),
        ([0x8000 | 0x130, STOP], "MX_NPU_ERR_PAYLOAD_SIZE", 0, "unknown opcode (0x4130): payload size 2"),
        ([0x0400 | 0x130, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "sets bits 10-13"),
        ([0x00800100, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_IFM_PAD_TOP (0x0100): parameter 0x0080"),
        ([0x0008010F, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_IFM_REGION (0x010F)"),
        ([0x00200122, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_KERNEL_STRIDE"),
        ([CMD1 | 0x026, 0x10000, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_OPB_SCALE (0x4026): payload"),
        ([0x00030124, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "accumulator format 3"),
        ([0x00080105, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "size code 2 is not a type"),  # unsigned 32-bit
        ([0x000C0114, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_SET_OFM_PRECISION"),
        ([0x00060114, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "size code 3"),
        ([0x00050125, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "activation 5"),
        ([0x00030005, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "pooling mode 3"),
        ([0x000A0006, STOP], "MX_NPU_ERR_BAD_VALUE", 0, "elementwise mode 10"),
        ([0x00010002, STOP], "MX_NPU_ERR_RESERVED_BITS", 0, "NPU_OP_CONV (0x0002): parameter 0x0001"),
        ([0x00000002, STOP], "MX_NPU_ERR_UNSET_REGISTER", 0, "NPU_OP_CONV (0x0002): reads NPU_SET_IFM_REGION"),
        (_minimal_stream()[2:], "MX_NPU_ERR_UNSET_REGISTER", 6, "reads NPU_SET_DMA0_SRC_REGION"),
    ],
)
def test_malformed_streams_are_refused_by_name_and_word(npu, words, status, index, says):
    with pytest.raises(DecodeError) as caught:
        npu.decode(words)
    e = caught.value
    assert (e.status, e.word_index) == (status, index) and says in e.message, e.message
    assert e.message.startswith(f"word {index}: ") and "\n" not in e.message
    if e.opcode != 0xFFFFFFFF:
        assert (npu.name(e.opcode) or "unknown opcode") in e.message


def test_a_small_ops_array_is_refused_not_overrun(npu):
    words = _minimal_stream()[:-1] + [0x010, STOP]  # two DMA_START, STOP
    assert [o["op"] for o in npu.decode(words)] == ["NPU_OP_DMA_START", "NPU_OP_DMA_START", "NPU_OP_STOP"]
    with pytest.raises(DecodeError) as caught:
        npu.decode(words, capacity=2)
    assert caught.value.status == "MX_NPU_ERR_CAPACITY" and caught.value.word_index == len(words) - 1
    assert "NPU_OP_STOP" in caught.value.message
    assert len(npu.decode(words, capacity=3)) == 3


def test_state_persists_and_written_registers_are_known(npu):
    """Registers keep their value across operations; mx_npu_written tells which the stream set."""
    words = _minimal_stream()[:-1] + [CMD1 | 0x032, 0x80, 0x010, STOP]
    buf, count = npu.decode_raw(words)
    ops = [npu.dump(ctypes.addressof(buf) + i * npu.op_size) for i in range(count)]
    assert [(o["dma.src"], o["dma.dst"], o["dma.len"]) for o in ops[:2]] == [(0x100, 0x200, 0x40), (0x100, 0x200, 0x80)]
    first = ctypes.c_void_p(ctypes.addressof(buf))
    assert npu.lib.mx_npu_written(first, CMD1 | 0x032) == 1 and npu.lib.mx_npu_written(first, CMD1 | 0x033) == 0
    assert npu.lib.mx_npu_written(first, 0x010) == -1  # an operation, not a register


def test_commands_vela_never_writes_still_decode(npu):
    """IRQ, PMU_MASK, DMA0_SIZE0/1 and DMA0_SKIP0/1 appear in no Vela 5.2 stream (its generator has no call for
    them); they decode by their layouts all the same, for the executor to run or refuse by name."""
    words = [0x00070132, 0x00090133, CMD1 | 0x033, 0x100, 0x00024000 | 0x034, 0x8, 0x00010013, 0x00050001, STOP]
    ops = npu.decode(words)
    assert [(o["op"], o["param"]) for o in ops] == [("NPU_OP_PMU_MASK", 1), ("NPU_OP_IRQ", 5), ("NPU_OP_STOP", 0xFFFF)]
    assert (ops[0]["dma.size0"], ops[0]["dma.size1"], ops[0]["dma.skip0"], ops[0]["dma.skip1"]) == (
        7,
        9,
        0x100,
        2 << 32 | 8,
    )


@pytest.mark.parametrize(
    "data, says",
    [
        (b"COP2" + bytes(12), "expected the tag COP1"),
        (struct.pack("<4I", 0x31504F43, 0x00100001, 1, 2)[:-4], "OPTIMIZER_CONFIG needs 2 words"),
        (struct.pack("<3I", 0x31504F43, 0x00050002, STOP), "COMMAND_STREAM of 5 words, 1 remain"),
        (struct.pack("<3I", 0x31504F43, 0x00010009, STOP), "unknown driver action 9"),
        (struct.pack("<2I", 0x31504F43, 0x00000005), "0 command streams"),
    ],
)
def test_malformed_payloads_are_refused(npu, data, says):
    with pytest.raises(DecodeError) as caught:
        npu.stream(data)
    assert caught.value.status == "MX_NPU_ERR_BAD_PAYLOAD" and says in caught.value.message


# ---- mutated streams under ASan/UBSan -------------------------------------------------------------------------------
FUZZ_CHILD = r"""
import ctypes, random, struct, sys
lib = ctypes.CDLL(sys.argv[1])
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
lib.mx_npu_decode.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                              ctypes.c_void_p]
lib.mx_npu_op_dump.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
lib.mx_npu_payload_find.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
lib.mx_npu_op_size.restype = ctypes.c_size_t
op_size = lib.mx_npu_op_size()
err = ctypes.create_string_buffer(512)
count = ctypes.c_size_t()
payload = ctypes.create_string_buffer(64)
rng = random.Random(int(sys.argv[3]))
seen = {}
data = open(sys.argv[2], "rb").read()
at = 0
while at < len(data):
    (n,) = struct.unpack_from("<I", data, at)
    blob = data[at + 4 : at + 4 + n]
    at += 4 + n
    # the payload finder on the raw bytes, then the decoder on whole words (exactly sized heap buffers)
    p = libc.malloc(max(n, 1))
    ctypes.memmove(p, blob, n)
    lib.mx_npu_payload_find(p, n, payload, err)
    libc.free(p)
    words = n // 4
    w = libc.malloc(max(words * 4, 1))
    ctypes.memmove(w, blob, words * 4)
    rc = lib.mx_npu_decode(w, words, None, 0, ctypes.byref(count), err)
    capacity = count.value if rc == 0 else rng.randrange(0, 8)
    capacity = max(capacity - rng.randrange(0, 2), 0)
    ops = libc.malloc(max(capacity * op_size, 1))
    rc = lib.mx_npu_decode(w, words, ops if capacity else None, capacity, ctypes.byref(count), err)
    seen[rc] = seen.get(rc, 0) + 1
    for i in range(min(count.value, capacity)):
        size = rng.choice((0, 1, 17, 300, 8192))
        text = libc.malloc(max(size, 1))
        lib.mx_npu_op_dump(ops + i * op_size, text if size else None, size)
        libc.free(text)
    libc.free(ops)
    libc.free(w)
print(sorted(seen.items()))
"""


def _mutations(streams: List[List[int]], n: int, seed: int) -> List[bytes]:
    """Vela streams with words flipped, cut, duplicated, spliced and replaced; some as bare words, some wrapped in a
    driver payload (then mutated too)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = list(rng.choice(streams))
        for _ in range(rng.randrange(1, 6)):
            kind, at = rng.randrange(6), rng.randrange(len(words))
            if kind == 0:
                words[at] ^= 1 << rng.randrange(32)
            elif kind == 1:
                words = words[: rng.randrange(len(words) + 1)] or [0]
            elif kind == 2:
                words.insert(at, words[rng.randrange(len(words))])
            elif kind == 3:
                words[at] = rng.getrandbits(32)
            elif kind == 4:
                words[at] = (words[at] & 0xFFFF) | (rng.getrandbits(16) << 16)  # another parameter
            else:
                other = rng.choice(streams)
                cut = rng.randrange(len(other))
                words = words[:at] + other[cut:]
        data = struct.pack(f"<{len(words)}I", *words)
        if i % 4 == 0:
            head = struct.pack("<5I", 0x31504F43, 0x00010001, rng.getrandbits(32), 0, (len(words) << 16) | 2)
            data = bytearray(head + data)
            for _ in range(rng.randrange(0, 3)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            data = bytes(data[: rng.randrange(len(data) + 1)] if rng.random() < 0.2 else data)
        out.append(data)
    return out


@pytest.mark.slow
def test_mutated_streams_never_fault_under_asan_and_ubsan(tmp_path, npu):
    from mcu_export.ethosu.vela import compile_tosa

    lib, asan = harness.sanitized_build()
    streams = [npu.stream(compile_tosa(g, acc).blob.cmd_data)[0]
               for g in (op_graph("conv"), op_graph("add"), max_pool_graph())
               for acc in ("ethos-u55-128", "ethos-u65-512")]  # fmt: skip
    corpus = b"".join(struct.pack("<I", len(m)) + m for m in _mutations(streams, 2000, seed=7))
    (tmp_path / "corpus.bin").write_bytes(corpus)
    (tmp_path / "child.py").write_text(FUZZ_CHILD)
    env = {"LD_PRELOAD": asan, "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0", "UBSAN_OPTIONS": "print_stacktrace=1"}
    run = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(lib), str(tmp_path / "corpus.bin"), "7"],
                         capture_output=True, text=True, timeout=600, env=env)  # fmt: skip
    assert run.returncode == 0 and "runtime error" not in run.stderr and "Sanitizer" not in run.stderr, run.stderr
    outcomes = dict(ast.literal_eval(run.stdout))  # [(return code, streams)]
    assert sum(outcomes.values()) == 2000 and outcomes.get(0, 0) > 0 and len(outcomes) >= 6, outcomes
