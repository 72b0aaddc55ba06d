"""Vela on one TOSA subgraph: a blob in ExecuTorch's Arm layout (byte-identical to what ExecuTorch's own
vela_compile writes for the same graph), Vela's estimates, board memory settings, one-line failures."""

import numpy as np
import pytest

from mcu_export.ethosu.blob import pack, unpack
from mcu_export.ethosu.vela import VelaError, compile_tosa

ts = pytest.importorskip("tosa_serializer")
pytestmark = pytest.mark.slow


def max_pool_graph() -> bytes:
    ser = ts.TosaSerializer()
    src = ser.addPlaceholder([1, 8, 8, 16], ts.DType.INT8)
    out = ser.addOutput([1, 4, 4, 16], ts.DType.INT8)
    attr = ts.TosaSerializerAttribute()
    attr.MaxPool2dAttribute([2, 2], [2, 2], [0, 0, 0, 0], ts.NanPropagationMode.PROPAGATE)
    ser.addOperator(ts.Op.MAX_POOL2D, [src.name], [out.name], attr)
    return bytes(ser.serialize())


@pytest.mark.parametrize("accelerator", ["ethos-u55-128", "ethos-u65-256", "ethos-u85-256"])
def test_vela_compiles_a_subgraph_to_a_blob_and_estimates(accelerator):
    result = compile_tosa(max_pool_graph(), accelerator, name="subgraph 0")
    blob = result.blob
    assert blob.cmd_data[:4] == b"COP1"
    (i,), (o,) = blob.inputs, blob.outputs
    assert (list(i.shape[-3:]), i.elem_size) == ([8, 8, 16], 1) and list(o.shape[-3:]) == [4, 4, 16]
    assert unpack(pack(blob)) == blob
    assert result.estimates["cycles_npu"] > 0 and result.estimates["passes_after_fusing"] == 1
    assert "Network summary" in result.log or "cycles" in result.log.lower()


def test_board_memory_settings_reach_vela():
    result = compile_tosa(
        max_pool_graph(), "ethos-u55-128", system_config="Ethos_U55_Deep_Embedded", memory_mode="Sram_Only"
    )
    assert (result.system_config, result.memory_mode) == ("Ethos_U55_Deep_Embedded", "Sram_Only")


@pytest.mark.interop
def test_blob_equals_executorch_arm_backend_blob_for_the_same_graph():
    pytest.importorskip("executorch.backends.arm.arm_vela")
    from executorch.backends.arm.arm_vela import vela_compile

    graph = max_pool_graph()
    theirs = vela_compile(graph, ["--accelerator-config=ethos-u55-128", "--output-format=raw"]).processed_bytes
    assert pack(compile_tosa(graph, "ethos-u55-128").blob) == theirs


def test_vela_failure_is_one_line_naming_the_subgraph():
    with pytest.raises(VelaError) as err:
        compile_tosa(b"not a tosa flatbuffer" + bytes(64), "ethos-u55-128", name="subgraph 2")
    message = str(err.value)
    assert message.startswith("Vela failed on subgraph 2 for ethos-u55-128: ") and "\n" not in message


def test_unknown_accelerator_lists_the_valid_ones():
    with pytest.raises(VelaError, match=r"unknown Ethos-U configuration 'ethos-u55-100' \(valid: ethos-u55-32, "):
        compile_tosa(max_pool_graph(), "ethos-u55-100")


def test_weights_and_shapes_of_a_convolution_come_through():
    ser = ts.TosaSerializer()
    src = ser.addPlaceholder([1, 6, 6, 8], ts.DType.INT8)
    w = ser.addConst([4, 3, 3, 8], ts.DType.INT8, np.ones((4, 3, 3, 8), np.int8))
    b = ser.addConst([4], ts.DType.INT32, np.zeros(4, np.int32))
    zp = [ser.addConst([1], ts.DType.INT8, np.zeros(1, np.int8)) for _ in range(2)]
    acc = ser.addIntermediate([1, 4, 4, 4], ts.DType.INT32)
    attr = ts.TosaSerializerAttribute()
    attr.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    ser.addOperator(ts.Op.CONV2D, [src.name, w.name, b.name, zp[0].name, zp[1].name], [acc.name], attr)
    out = ser.addOutput([1, 4, 4, 4], ts.DType.INT8)
    rattr = ts.TosaSerializerAttribute()
    rattr.RescaleAttribute(True, ts.RoundingMode.DOUBLE_ROUND, False, False, False)
    consts = [
        ser.addConst([1], dt, np.array([v], npdt))
        for v, dt, npdt in (
            (1 << 30, ts.DType.INT32, np.int32),
            (40, ts.DType.INT8, np.int8),
            (0, ts.DType.INT32, np.int32),
            (0, ts.DType.INT8, np.int8),
        )
    ]
    ser.addOperator(ts.Op.RESCALE, [acc.name, *[c.name for c in consts]], [out.name], rattr)
    result = compile_tosa(bytes(ser.serialize()), "ethos-u55-128", name="conv")
    assert len(result.blob.weight_data) > 4 * 3 * 3 * 8 // 4  # encoded weights and bias/scale records
    assert list(result.blob.outputs[0].shape[-3:]) == [4, 4, 4]
