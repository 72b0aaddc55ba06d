"""Vela on one TOSA subgraph: a blob in ExecuTorch's Arm layout (byte-identical to what ExecuTorch's own
vela_compile writes for the same graph), Vela's estimates, board memory settings, one-line failures."""

import pytest

from ethosu_graphs import max_pool_graph, op_graph  # tests/support
from mcu_export.ethosu.blob import pack, unpack
from mcu_export.ethosu.vela import VelaError, compile_tosa

ts = pytest.importorskip("tosa_serializer")
pytestmark = pytest.mark.slow


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


@pytest.mark.parametrize("op", ["conv", "depthwise", "add", "max", "avg"])
def test_every_tosa_builder_compiles_on_u55(op):
    result = compile_tosa(op_graph(op), "ethos-u55-128", name=op)
    assert result.blob.cmd_data[:4] == b"COP1" and result.estimates["cycles_npu"] > 0
    if op in ("conv", "depthwise"):  # encoded weights plus 10-byte bias/scale records per channel
        assert len(result.blob.weight_data) >= 10 * (4 if op == "conv" else 8)
