"""The Ethos-U backend on the example models: what goes to the NPU, Vela for three NPU generations, and the
NPU program equal to the CPU program bit for bit (its delegates run on TOSA's reference model, the CPU
program on the int8 reference interpreter) on random, saturating and rounding-tie inputs."""

import math

import numpy as np
import pytest

from ethosu_flow import inputs_for, lower, quantized_example, run_both  # tests/support
from example_models import NAMES  # tests/support
from mcu_export.ethosu.blob import BACKEND_ID, unpack
from mcu_export.ethosu.payload import parse
from mcu_export.ethosu.reference import tosa_delegate
from mcu_export.int8.interpreter import run_reference
from mcu_export.pte import program as pte
from mcu_export.pte.writer import write_program
from mcu_export.runners import run_program_bytes

pytest.importorskip("tosa_serializer")
pytestmark = pytest.mark.slow

ACCELERATORS = ("ethos-u55-128", "ethos-u65-256", "ethos-u85-256")


@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize("name", NAMES)
def test_every_example_compiles_and_equals_the_cpu_program(name, accelerator):
    quantized, inputs = quantized_example(name)
    cpu, _ = lower(quantized, "cortex-m")
    program, info = lower(quantized, accelerator)
    plan = program.method("forward")
    parts = info.partitions
    # Every example goes to the NPU whole (kws's softmax too): only the float edges stay on the CPU.
    assert len(parts["subgraphs"]) == 1, parts["cpu"]
    kept = {c["op"] for c in parts["cpu"]}
    assert kept == {"cortex_m::quantize_per_tensor.out", "cortex_m::dequantize_per_tensor.out"}, parts["cpu"]
    assert parts["operators_on_npu"] == parts["operators"]
    assert all(c["reason"] for c in parts["cpu"])
    # One delegate call, its blob Vela's, its arguments the subgraph's I/O then the planned NPU scratch.
    (delegate,) = plan.delegates
    assert delegate.id == BACKEND_ID
    specs = {s.key: s.value.decode() for s in delegate.compile_specs}
    assert specs["output_format"] == "vela" and accelerator in specs["compile_flags"]
    blob = unpack(program.backend_delegate_data[delegate.processed.index])
    payload = parse(blob.cmd_data)
    assert payload.commands and blob.weight_data
    (call,) = [i for i in plan.chains[0].instructions if isinstance(i, pte.DelegateCall)]
    scratch = plan.values[call.args[-1]]
    assert len(call.args) == len(blob.inputs) + len(blob.outputs) + 1
    assert scratch.sizes == [max(blob.scratch_size, 1)] and scratch.allocation_info is not None
    for record, index in zip(blob.inputs + blob.outputs, call.args):
        t = plan.values[index]
        assert record.elem_size == 1 and math.prod(record.shape) == t.numel
    npu = info.npu["subgraphs"][0]
    assert npu["cycles_npu"] > 0 and npu["scratch_bytes"] == blob.scratch_size
    # U65's default memory mode (Dedicated_Sram) gives the NPU a fast scratch of its own; the others have none
    assert (npu["fast_scratch_bytes"] > 0) == (accelerator == "ethos-u65-256")
    # Weights moved into the blob: no constant of the CPU program's convolutions is left in the .pte.
    assert sum(map(len, program.constant_buffer)) < sum(map(len, cpu.constant_buffer)) // 2
    shapes = [list(x.shape) for x in inputs]
    for seed, kind in enumerate(("random", "saturating", "ties")):
        run_both(cpu, program, info.npu_graphs, inputs_for(cpu, shapes, kind, seed))
    if accelerator.startswith(("ethos-u55", "ethos-u65")):  # the C runtime: our driver on our NPU simulator
        xs = [x.numpy() for x in inputs_for(cpu, shapes, "random", 7)]
        host = run_program_bytes(write_program(program), xs, board="host")
        for got, want in zip(host, run_reference(program, xs, delegate=tosa_delegate(info.npu_graphs))):
            np.testing.assert_array_equal(got, want)
