"""The int8 front half: capture → PRE_QUANT_PASSES → PT2E prepare → calibrate → convert → re-capture →
POST_QUANT_PASSES (the lists are in mcu_export/passes/__init__.py).

The graph handed to the quantizer is the same core-ATen graph the fp32 path lowers (BatchNorm already
folded into conv and linear weights), except that `linear` stays whole so that its weight is one
observed tensor, and so do the activations one int8 lookup table computes (softplus, mish, silu, ...). After `convert_pt2e` the fake-quantized module is captured again, giving an
ExportedProgram of quantize/dequantize nodes around float ops: what `mcu_export.int8.lower` lowers.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable, List, Optional

import torch
from torch import nn
from torch.export import ExportedProgram
from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e, prepare_qat_pt2e

from mcu_export.capture import _decomposition_table, export_decomposed, export_errors
from mcu_export.int8 import convert as pt2e_convert
from mcu_export.int8.calibrate import CalibrationSource, run_calibration
from mcu_export.int8.quantizer import CmsisNNQuantizer
from mcu_export.passes import POST_QUANT_PASSES, PRE_QUANT_PASSES, check_supported, run_passes

Progress = Optional[Callable[[str], None]]


def _table_keeping_linear() -> dict:
    from mcu_export.int8.quantizer_extra import KEPT_WHOLE_FOR_TABLES

    table = _decomposition_table()
    table.pop(torch.ops.aten.linear.default, None)
    for op in list(table):  # activations that one int8 lookup table computes whole
        if str(op).rsplit(".", 1)[0] in KEPT_WHOLE_FOR_TABLES:
            del table[op]
    return table


def capture_keeping_linear(model: nn.Module, example_inputs: tuple) -> ExportedProgram:
    return export_decomposed(model, example_inputs, _table_keeping_linear, eval_mode=False)


@dataclass
class QuantizedModel:
    converted: torch.fx.GraphModule  # the fake-quantized model (convert_pt2e output), runnable in torch
    ep: ExportedProgram  # the same, captured again in core ATen: the lowering's input
    calibration_batches: int = 0
    warnings: List[str] = field(default_factory=list)


def int8_targets() -> List[str]:
    """The call targets the int8 lowering takes that the fp32 op table does not (linear kept whole)."""
    from mcu_export.int8.lower import RULES

    return [str(t) for t in RULES]


def recapture(
    converted: torch.fx.GraphModule, example_inputs: tuple, decomposed: Optional[ExportedProgram] = None
) -> ExportedProgram:
    """The converted module in core ATen again. `decomposed`: the graph it was prepared from, already decomposed.
    When the new capture calls only that graph's operators and the quantize/dequantize pairs convert put in, the
    decompositions would return it unchanged: they are skipped, the dearest part of the capture (1.1 s of int8
    KWS's 1.4 s, and half a minute for a GRU unrolled over 49 steps)."""
    if decomposed is None:
        return run_passes(capture_keeping_linear(converted, example_inputs), POST_QUANT_PASSES)
    with export_errors():
        ep = torch.export.export(converted, example_inputs, strict=False)
        if _only_decomposed_ops(ep, decomposed):
            # what the decompositions' retrace would also drop: results nobody reads (a max pool's unused indices)
            ep.graph.eliminate_dead_code()
            ep.graph_module.recompile()
        else:
            ep = ep.run_decompositions(_table_keeping_linear())
    return run_passes(ep, POST_QUANT_PASSES)


def _only_decomposed_ops(ep: ExportedProgram, decomposed: ExportedProgram) -> bool:
    known = {n.target for n in decomposed.graph.nodes if n.op == "call_function"}
    table = _table_keeping_linear()
    for node in ep.graph.nodes:
        target = node.target
        if node.op != "call_function" or (target in known and target not in table):
            continue
        if not (isinstance(target, torch._ops.OpOverload) and target.namespace == "quantized_decomposed"):
            return False
        if target in table or target._schema.is_mutable:
            return False
    return True


def _check_before_quantizing(model: nn.Module, example_inputs: tuple) -> ExportedProgram:
    """The pre-quantization graph, after every operator in it was checked: an unsupported op must fail in a
    second, every one named, before calibration (14-22 s for a GRU) or QAT training runs."""
    ep = run_passes(capture_keeping_linear(model, example_inputs), PRE_QUANT_PASSES)
    check_supported(ep, also_supported=int8_targets())
    return ep


def quantize(
    model: nn.Module,
    example_inputs: tuple,
    calibrate: CalibrationSource = None,
    progress: Progress = None,
    per_channel_linear: bool = True,
) -> QuantizedModel:
    """PTQ: the model quantized with CmsisNNQuantizer, calibrated on `calibrate` (or the example inputs)."""
    say = progress or (lambda _m: None)
    model.eval()
    say("capturing with torch.export (int8)")
    ep = _check_before_quantizing(model, example_inputs)
    say("inserting observers (PT2E prepare)")
    prepared = prepare_pt2e(ep.module(check_guards=False), CmsisNNQuantizer(per_channel_linear=per_channel_linear))
    say("calibrating")
    batches, notes = run_calibration(prepared, example_inputs, calibrate, say)
    say("converting to int8 (PT2E convert)")
    converted = pt2e_convert.convert_ptq(prepared)
    return QuantizedModel(
        converted=converted,
        ep=recapture(converted, example_inputs, ep),
        calibration_batches=batches,
        warnings=notes,
    )


def prepare_qat(model: nn.Module, example_inputs: tuple, per_channel_linear: bool = True) -> torch.fx.GraphModule:
    """QAT: the model captured in its training form with fake-quant modules in it. Train the returned
    module as usual (it is an nn.Module), then pass it to `export_qat`.

    Every operator is checked first, on an eval-mode copy (the graph the export will lower): a model that
    cannot export fails here, before the hours of training, not after them."""
    _check_before_quantizing(copy.deepcopy(model).eval(), example_inputs)
    with export_errors():
        gm = torch.export.export(model, example_inputs, strict=False).module(check_guards=False)
    return prepare_qat_pt2e(gm, CmsisNNQuantizer(qat=True, per_channel_linear=per_channel_linear))


def convert_qat(prepared: torch.fx.GraphModule, example_inputs: tuple) -> QuantizedModel:
    from torchao.quantization.pt2e import move_exported_model_to_eval

    move_exported_model_to_eval(prepared)
    converted = pt2e_convert.convert_qat(prepared)
    return QuantizedModel(converted=converted, ep=recapture(converted, example_inputs))
