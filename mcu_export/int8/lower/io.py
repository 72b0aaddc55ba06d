"""io="int8": the int8 program takes and returns its int8 tensors instead of float32 ones.

The int8 lowering begins each float model input with a `cortex_m::quantize_per_tensor` (the PT2E quantize
node after the placeholder) and ends each float output with a `cortex_m::dequantize_per_tensor` (emitted by
the backend's resolver for the returned dequantize node). `bind_int8_io` runs on the finished kernel
program (first in the cortex_m backend's `finish`, so the later passes and the Ethos-U backend, which
delegates in its own `finish`, see the int8 edges): it drops those calls and makes the method's input the
quantize's int8 out, and its output the dequantize's int8 input. Each one's scale and zero point go to
`LoweringInfo.input_quantization` / `output_quantization` (report.json's `inputs[k].quantization`), so that a
caller quantizes as the dropped call did: clamp(round_half_even(x * float32(1 / scale)) + zero_point) in
float32 (`mcu_export.runners.tensors.quantize`), and reads an output as (q - zero_point) * scale.

Inputs and outputs that are not float32 (an embedding's indices) stay as they are, without quantization.
A float input that anything but its one quantize reads, or a float output that no dequantize makes (an op
that fell back to fp32 at the end), is refused with a UsageError naming it and the call in the way.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from mcu_export.errors import UsageError
from mcu_export.ethosu.calls import Call, read_calls
from mcu_export.int8.io_choice import IO_CHOICES, check_io  # noqa: F401  (its home before; light to import)
from mcu_export.lower.builder import ProgramBuilder
from mcu_export.planner.lifetimes import instruction_args, tensors_named
from mcu_export.pte import program as pte

_QUANTIZE = "cortex_m::quantize_per_tensor.out"
_DEQUANTIZE = "cortex_m::dequantize_per_tensor.out"


def _float(values: List[pte.EValue], index: int) -> bool:
    value = values[index]
    return isinstance(value, pte.Tensor) and value.scalar_type == pte.ScalarType.FLOAT


def _quantization(values: List[pte.EValue], call: Call) -> Dict[str, Any]:
    def scalar(name: str):
        value = values[call.args[name]]
        return value.double_val if isinstance(value, pte.Double) else value.int_val  # type: ignore[union-attr]

    return {
        "scale": float(scalar("scale")),
        "zero_point": int(scalar("zero_point")),
        "quant_min": int(scalar("quant_min")),
        "quant_max": int(scalar("quant_max")),
    }


def bind_int8_io(builder: ProgramBuilder, outputs: List[int]) -> None:
    """Rebinds the method's float inputs and outputs (`builder.inputs`, `outputs`, both in place) to their
    int8 tensors and removes the quantize/dequantize calls that nothing else needs."""
    values = builder.table.values
    calls = read_calls(builder.instructions, builder.operators)
    readers: Dict[int, List[int]] = {}  # tensor -> instructions that read it
    writer: Dict[int, int] = {}  # tensor -> the instruction that writes it
    for step, (instr, call) in enumerate(zip(builder.instructions, calls)):
        read = instruction_args(instr) if call is None else list(call.args.values())
        for tensor in {t for a in read for t in tensors_named(values, a)}:
            readers.setdefault(tensor, []).append(step)
        for tensor in (t for a in (call.outs if call is not None else []) for t in tensors_named(values, a)):
            writer[tensor] = step

    def where(step: int) -> str:
        info = builder.info.instructions[step]
        return f"{info.op} ({info.node}" + (f" at {info.location})" if info.location else ")")

    removed = set()
    quant_in: List[Optional[Dict[str, Any]]] = []
    for k, index in enumerate(builder.inputs):
        name = builder.info.input_names[k] if k < len(builder.info.input_names) else str(k)
        if not _float(values, index):
            quant_in.append(None)
            continue
        steps = readers.get(index, [])
        quantizes = [s for s in steps if calls[s] is not None and calls[s].op == _QUANTIZE]  # type: ignore[union-attr]
        if not steps:
            raise UsageError(f"--io int8: model input {k} ({name}) is read by no call, so it has no int8 quantization")
        if len(steps) != 1 or len(quantizes) != 1:
            other = next((s for s in steps if s not in quantizes[:1]), steps[-1])
            raise UsageError(
                f"--io int8: model input {k} ({name}) is read as float32 by {where(other)}, not only by its "
                "quantize: it cannot be given in int8 (export with io='float')"
            )
        call = calls[quantizes[0]]
        assert call is not None
        builder.inputs[k] = call.outs[0]
        quant_in.append(_quantization(values, call))
        removed.add(call.position)
    quant_out: List[Optional[Dict[str, Any]]] = []
    for k, index in enumerate(outputs):
        name = builder.info.output_names[k] if k < len(builder.info.output_names) else str(k)
        if not _float(values, index):
            quant_out.append(None)
            continue
        producer = writer.get(index)
        call = calls[producer] if producer is not None else None
        if call is None or call.op != _DEQUANTIZE:
            made_by = f"is made by {where(producer)}" if producer is not None else "is no call's result"
            raise UsageError(
                f"--io int8: model output {k} ({name}) {made_by}, not dequantized from an int8 value: "
                "it cannot be returned in int8 (export with io='float'; report.json's int8.fallbacks lists fp32 ops)"
            )
        if not readers.get(index):
            removed.add(call.position)  # the float value had no other reader
        outputs[k] = builder.own_output(call.args["input"], k, outputs[:k])
        quant_out.append(_quantization(values, call))
    builder.info.input_quantization = quant_in
    builder.info.output_quantization = quant_out
    builder.remove_instructions(removed)
