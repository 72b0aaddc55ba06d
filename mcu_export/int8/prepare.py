"""The int8 front half: capture → fp32 graph passes → PT2E prepare → calibrate → convert → re-capture.

The graph handed to the quantizer is the same core-ATen graph the fp32 path lowers (BatchNorm already
folded into conv and linear weights), except that `linear` stays whole so that its weight is one
observed tensor. After `convert_pt2e` the fake-quantized module is captured again, giving an
ExportedProgram of quantize/dequantize nodes around float ops: what `mcu_export.int8.lower` lowers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, List, Optional

import torch
from torch import nn
from torch.export import ExportedProgram
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e

from mcu_export.capture import _decomposition_table, export_decomposed, export_errors
from mcu_export.int8.calibrate import CalibrationSource, run_calibration
from mcu_export.int8.fold_linear_bn import fold_linear_batch_norm
from mcu_export.int8.quantizer import CmsisNNQuantizer
from mcu_export.passes import fold_batch_norm, fold_constants, remove_noops, scalars_to_tensors
from mcu_export.passes.graph_utils import add_constant, constant_value, finish

Progress = Optional[Callable[[str], None]]

PRE_QUANT_PASSES = [
    remove_noops,            # first, as in the fp32 list: clones would hide conv → BN
    fold_batch_norm,         # BN into conv weights before they are observed
    fold_linear_batch_norm,  # BN1d into linear weights (int8 only: linear stays whole here)
    scalars_to_tensors,      # x + 3 → add(x, const): the constant gets observed like any operand
    fold_constants,          # last: folds what the passes above exposed
]


def _table_keeping_linear() -> dict:
    table = _decomposition_table()
    table.pop(torch.ops.aten.linear.default, None)
    return table


def capture_keeping_linear(model: nn.Module, example_inputs: tuple) -> ExportedProgram:
    return export_decomposed(model, example_inputs, _table_keeping_linear, eval_mode=False)


@dataclass
class QuantizedModel:
    converted: torch.fx.GraphModule   # the fake-quantized model (convert_pt2e output), runnable in torch
    ep: ExportedProgram               # the same, captured again in core ATen: the lowering's input
    calibration_batches: int = 0
    warnings: List[str] = field(default_factory=list)


def _fold_float_constants(ep: ExportedProgram) -> None:
    """Evaluate float calls on constants (what QAT's conv-BN folding leaves: var + eps, rsqrt, ...),
    never the dequantize of a weight: the lowering reads the int8 data behind it."""
    from torch.fx.node import map_arg

    graph = ep.graph_module.graph
    for node in list(graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload) \
                or node.target.namespace == "quantized_decomposed":
            continue
        values = {n: constant_value(ep, n) for n in node.all_input_nodes}
        if not values or any(v is None for v in values.values()):
            continue
        with torch.no_grad():
            result = node.target(*map_arg(node.args, values.get), **map_arg(node.kwargs, values.get))
        if isinstance(result, torch.Tensor):
            with graph.inserting_before(node):
                folded = add_constant(ep, result.clone(), "qat_folded")
            node.replace_all_uses_with(folded)
            graph.erase_node(node)
    finish(ep)


def recapture(converted: torch.fx.GraphModule, example_inputs: tuple) -> ExportedProgram:
    ep = capture_keeping_linear(converted, example_inputs)
    remove_noops(ep)
    scalars_to_tensors(ep)
    _fold_float_constants(ep)
    return ep


def quantize(model: nn.Module, example_inputs: tuple, calibrate: CalibrationSource = None,
             progress: Progress = None, per_channel_linear: bool = True) -> QuantizedModel:
    """PTQ: the model quantized with CmsisNNQuantizer, calibrated on `calibrate` (or the example inputs)."""
    say = progress or (lambda _m: None)
    model.eval()
    say("capturing with torch.export (int8)")
    ep = capture_keeping_linear(model, example_inputs)
    for graph_pass in PRE_QUANT_PASSES:
        graph_pass(ep)
    say("inserting observers (PT2E prepare)")
    prepared = prepare_pt2e(ep.module(check_guards=False), CmsisNNQuantizer(per_channel_linear=per_channel_linear))
    say("calibrating")
    batches, notes = run_calibration(prepared, example_inputs, calibrate, say)
    say("converting to int8 (PT2E convert)")
    converted = convert_pt2e(prepared)
    return QuantizedModel(converted=converted, ep=recapture(converted, example_inputs),
                          calibration_batches=batches, warnings=notes)


def prepare_qat(model: nn.Module, example_inputs: tuple, per_channel_linear: bool = True) -> torch.fx.GraphModule:
    """QAT: the model captured in its training form with fake-quant modules in it. Train the returned
    module as usual (it is an nn.Module), then pass it to `export_qat`."""
    with export_errors():
        gm = torch.export.export(model, example_inputs, strict=False).module(check_guards=False)
    return prepare_qat_pt2e(gm, CmsisNNQuantizer(qat=True, per_channel_linear=per_channel_linear))


def convert_qat(prepared: torch.fx.GraphModule, example_inputs: tuple) -> QuantizedModel:
    from torchao.quantization.pt2e import move_exported_model_to_eval

    move_exported_model_to_eval(prepared)
    converted = convert_pt2e(prepared)
    return QuantizedModel(converted=converted, ep=recapture(converted, example_inputs))
