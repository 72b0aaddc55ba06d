"""The Python API: `export(model, example_inputs)` returns an `Artifact` that can be saved or run."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Union

import numpy as np
import torch

from mcu_export import atomic, dtypes
from mcu_export.boards import Board, HostBoard, load_board
from mcu_export.pte.program import Program, Tensor
from mcu_export.report_fields import FIELDS

Progress = Optional[Callable[[str], None]]
BoardArg = Union[str, Board, HostBoard, None]  # a board's name (boards/<name>.toml) or a loaded board


@dataclass
class Artifact:
    program: Program
    pte: bytes
    report: Dict
    memory_plan: object = field(default=None, repr=False)
    npu_graphs: List[bytes] = field(default_factory=list, repr=False)  # TOSA of each Ethos-U subgraph

    def save(self, out_dir: Union[str, Path]) -> Path:
        """Writes OUT/model.pte and OUT/report.json together (staged, then renamed: never half-written), and
        OUT/npu/subgraph_<k>.tosa, the TOSA graph Vela compiled for each Ethos-U delegate."""
        report = json.dumps(self.report, indent=2, sort_keys=True).encode() + b"\n"
        files = {"model.pte": self.pte, "report.json": report}
        files.update({f"npu/subgraph_{k}.tosa": graph for k, graph in enumerate(self.npu_graphs)})
        return atomic.write_files(out_dir, files)

    def run(self, *inputs, board: str = "host") -> List[np.ndarray]:
        """Runs the program with the C runtime (never torch) on `board`'s default target (for a firmware
        board: builds the firmware and runs it on its simulator) and returns its outputs, as the program
        returns them (io="int8": int8; float32 inputs are quantized on the way in)."""
        from mcu_export.runners import run_program_bytes

        arrays = [x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x) for x in inputs]
        return run_program_bytes(self.pte, arrays, board=board, report=self.report)


def export(
    model: torch.nn.Module,
    example_inputs: tuple,
    *,
    progress: Progress = None,
    quantize: Optional[str] = None,
    calibrate=None,
    board: BoardArg = None,
    backend: Optional[str] = None,
    fallback: bool = True,
    overlap: bool = True,
    io: str = "float",
    linear_weights: str = "per-channel",
) -> Artifact:
    """fp32 by default; `quantize="int8"` runs PT2E with CmsisNNQuantizer, calibrated on `calibrate` (a
    function yielding input tuples, or an iterable of them; the example inputs when None) and lowers to
    cortex_m int8 kernels, with scratch sized for the ISA of `board` (e.g. "corstone-300": MVE; None: any
    board). `backend` (int8 only): "cortex-m" keeps everything on the CPU; an Ethos-U configuration such as
    "ethos-u55-128" sends the subgraphs that NPU takes to it (TOSA, then Vela). None: the board's NPU if its
    board file names one, else the CPU. int8 ops that have no int8 kernel run in fp32, each a McuExportWarning;
    `fallback=False` refuses them instead (one UnsupportedOpError listing all). `overlap=False` plans every
    tensor apart from those live with it (no out over the input it replaces: for runtimes whose kernels keep
    another order, such as ExecuTorch's or Arm's CMSIS-NN). A module in training mode is exported in eval mode,
    with a warning. `io="int8"` (int8 only): the program takes and returns int8 tensors, without the float
    input's quantize and the float output's dequantize; report.json's `inputs[k]` and `outputs[k]` give each
    one's `quantization` (scale, zero point). `linear_weights="per-tensor"` (int8 only) quantizes fully connected
    weights with one scale per layer, as ExecuTorch and TFLite do, instead of one per output channel: less
    accurate where rows differ in range, but the layer's multiplier and shift are one int each instead of an
    int[] list of one per channel, which ExecuTorch's schema writes ~36 bytes an item (MLPs' .pte metadata)."""
    from mcu_export import warn
    from mcu_export.ethosu.choice import choose_npu
    from mcu_export.int8.io_choice import check_io, check_linear_weights
    from mcu_export.pte.writer import write_program

    check_io(io, quantize)
    check_linear_weights(linear_weights, quantize)
    say = progress or (lambda _m: None)
    started = time.perf_counter()
    board = _board(board)
    npu = choose_npu(backend, board, quantize)
    warn.training_mode(model)
    if quantize is None:
        from mcu_export.lower import to_program

        program, info = to_program(model, tuple(example_inputs), progress=say, overlap=overlap)
        plan = info.memory
        int8 = None
    elif quantize == "int8":
        from mcu_export.int8.pipeline import int8_report, to_int8_program

        program, info, plan, quantized = to_int8_program(
            model,
            tuple(example_inputs),
            calibrate,
            board,
            say,
            per_channel_linear=linear_weights == "per-channel",
            npu=npu,
            io=io,
        )
        plan = _replanned(program, info, plan, overlap)
        int8 = int8_report(info, quantized, board, npu, io)
        int8["linear_weights"] = linear_weights
        warn.report_fallbacks(info.fallbacks, fallback)
    else:
        from mcu_export.errors import UsageError

        raise UsageError(f"quantize must be None or 'int8', got {quantize!r}")
    say("writing model.pte")
    pte = write_program(program)
    report = build_report(program, info, plan, pte, time.perf_counter() - started)
    if int8 is not None:
        report["int8"] = int8
    return Artifact(program=program, pte=pte, report=report, memory_plan=plan, npu_graphs=list(info.npu_graphs))


def prepare_qat(model: torch.nn.Module, example_inputs: tuple) -> torch.nn.Module:
    """The model with fake-quant modules (CmsisNNQuantizer, QAT): train it, then call `export_qat`."""
    from mcu_export.int8.prepare import prepare_qat as _prepare_qat

    return _prepare_qat(model, tuple(example_inputs))


# A QAT export takes the same path as export(quantize="int8") from the converted model on.
def export_qat(
    prepared: torch.nn.Module,
    example_inputs: tuple,
    *,
    progress: Progress = None,
    board: BoardArg = None,
    backend: Optional[str] = None,
    io: str = "float",
) -> Artifact:
    """Converts a QAT-trained module from `prepare_qat` and exports it in int8 (scratch, backend and io as in
    `export`)."""
    from mcu_export.ethosu.choice import choose_npu
    from mcu_export.int8.io_choice import check_io
    from mcu_export.int8.pipeline import int8_report, lower_quantized
    from mcu_export.int8.prepare import convert_qat
    from mcu_export.pte.writer import write_program

    check_io(io, "int8")
    say = progress or (lambda _m: None)
    started = time.perf_counter()
    board = _board(board)
    npu = choose_npu(backend, board, "int8")
    quantized = convert_qat(prepared, tuple(example_inputs))
    program, info, plan = lower_quantized(quantized, board, say, npu, io)
    pte = write_program(program)
    report = build_report(program, info, plan, pte, time.perf_counter() - started)
    report["int8"] = int8_report(info, quantized, board, npu, io)
    return Artifact(program=program, pte=pte, report=report, memory_plan=plan, npu_graphs=list(info.npu_graphs))


def export_spec(
    spec: str,
    *,
    progress: Progress = None,
    quantize: Optional[str] = None,
    calibrate=None,
    board: BoardArg = None,
    backend: Optional[str] = None,
    fallback: bool = True,
    overlap: bool = True,
    io: str = "float",
    linear_weights: str = "per-channel",
) -> Artifact:
    from mcu_export.int8.io_choice import check_io, check_linear_weights
    from mcu_export.model_spec import load_model

    check_io(io, quantize)  # before loading the model: a bad command line costs no torch import
    check_linear_weights(linear_weights, quantize)
    from mcu_export.ethosu.choice import choose_npu

    choose_npu(backend, _board(board), quantize)

    model, inputs = load_model(spec)
    artifact = export(
        model,
        inputs,
        progress=progress,
        quantize=quantize,
        calibrate=calibrate,
        board=board,
        backend=backend,
        fallback=fallback,
        overlap=overlap,
        io=io,
        linear_weights=linear_weights,
    )
    artifact.report["model"] = spec
    return artifact


def _replanned(program, info, plan, overlap: bool):
    """The plan the lowering made (overlaps where kernels allow), or the program planned again without them."""
    if overlap:
        return plan
    from mcu_export.planner import plan_memory

    info.memory = plan_memory(program, overlap=False, reschedule=False)  # the order stays the one chosen
    info.memory.schedule = plan.schedule
    return info.memory


def _board(board: BoardArg) -> Optional[Board]:
    """The firmware board to size int8 scratch for; None for a host board, as for none: every ISA."""
    loaded = None if board is None else load_board(board)
    return loaded if isinstance(loaded, Board) else None


def _io(plan_values, indices, quantization=()) -> List[Dict]:
    """report.json's inputs/outputs: shape and dtype; with io="int8", an int8 edge's `quantization`
    (scale, zero_point, quant_min, quant_max: float = (q - zero_point) * scale)."""
    out: List[Dict] = []
    for k, i in enumerate(indices):
        t = plan_values[i]
        if isinstance(t, Tensor):
            entry: Dict = {"shape": list(t.sizes), "dtype": dtypes.name(t.scalar_type)}
            if k < len(quantization) and quantization[k] is not None:
                entry["quantization"] = dict(quantization[k])
            out.append(entry)
        else:
            out.append({"kind": type(t).__name__})
    return out


def _debug_map(method, info) -> List[Dict]:
    """Per instruction, the torch op and the user's source line (mcu_export.pte.debug_map); from what the .pte
    records when the lowering's list does not match its instructions."""
    from mcu_export.pte import debug_map

    infos = getattr(info, "instructions", None) or []
    entries = debug_map.from_lowering(infos)
    expected = debug_map.from_program(method)
    if [e["op"] for e in entries] != [e["op"] for e in expected]:
        return expected
    return entries


def build_report(program: Program, info, plan, pte: bytes, seconds: float) -> Dict:
    from mcu_export.lower.channels_last import CHANNELS_LAST

    method = program.method("forward")
    ops: Dict[str, int] = {}
    for instr in method.chains[0].instructions:
        op_index = getattr(instr, "op_index", None)
        if op_index is not None:
            name = method.operators[op_index].qualified
            ops[name] = ops.get(name, 0) + 1
    constant_bytes = sum(len(b) for b in program.constant_buffer)
    arena, bound = plan.arena_bytes, plan.lower_bound_bytes
    return {
        "fields": FIELDS,
        "ops": ops,
        "kernel_calls": sum(ops.values()),
        "memory": {
            "arena_bytes": arena,
            "lower_bound_bytes": bound,
            "over_lower_bound_bytes": arena - bound,
            "arena_over_lower_bound": round(arena / bound, 4) if bound else 1.0,
            "planned_tensors": len(plan.tensors),
            "overlaps": plan.overlaps,
            "channels_last_tensors": sum(
                1
                for v in method.values
                if isinstance(v, Tensor) and not v.data_buffer_idx and list(v.dim_order) == CHANNELS_LAST
            ),
            **(
                {
                    "schedule": {
                        "method": plan.schedule.method,
                        "live_set_emitted_bytes": plan.schedule.peak_emitted,
                        "live_set_bytes": plan.schedule.peak,
                    }
                }
                if getattr(plan, "schedule", None) is not None
                else {}
            ),
            "constant_bytes": constant_bytes,
        },
        "inputs": _io(method.values, method.inputs, getattr(info, "input_quantization", ())),
        "outputs": _io(method.values, method.outputs, getattr(info, "output_quantization", ())),
        "instructions": len(method.chains[0].instructions),
        "debug_map": _debug_map(method, info),
        "pte_bytes": len(pte),
        "export_seconds": round(seconds, 3),
        **({"partitions": info.partitions, "npu": info.npu} if getattr(info, "partitions", None) else {}),
    }
