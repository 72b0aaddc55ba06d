"""Streams Vela compiled, decoded by the Ethos-U command-stream decoder (fvp/ethosu_sim/npu_*.c): the real
streams of the example models matched to Vela's per-layer report, the delegate's I/O records and the TOSA
graph Vela compiled; every field of operations Vela's Python API generated compared with what was asked.

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

import functools
import warnings
from typing import Dict, List, Tuple

import numpy as np
import pytest

import ethosu_sim_harness as harness  # tests/support
from ethosu_commands_tools import (  # tests/support
    BLOCK_OPS,
    ROOT,
    Npu,
    ifm_shape,
    kernel_shape,
    macs,
    ofm_shape,
)

pytest.importorskip("ethosu.vela")


@pytest.fixture(scope="module")
def npu() -> Npu:
    return Npu(harness.build())


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
