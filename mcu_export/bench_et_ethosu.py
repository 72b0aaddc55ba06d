"""ExecuTorch's own Arm Ethos-U flow (executorch.backends.arm, ExecuTorch 1.5.1) on a model, and its figures,
to compare mcu-export's Ethos-U lowering with.

The flow is the one `executorch/backends/arm/scripts/aot_arm_compiler.py --delegate --quantize` runs for an
Ethos-U target: torch.export -> prepare_pt2e(EthosUQuantizer, get_symmetric_quantization_config(per-channel))
-> calibration on the example inputs -> convert_pt2e -> torch.export -> to_edge_transform_and_lower(
EthosUPartitioner) -> to_executorch(extract_delegate_segments=False). The model and inputs are taken as given
(NCHW unless the caller made them channels-last). The script then also swaps the q/dq left on the CPU for
cortex_m:: ones (ReplaceQuantNodesPass); that renames them but changes no count, and is not done here.

    figures = executorch_ethosu(model, inputs, "ethos-u55-128")

Where the figures come from:
- ops_total / ops_on_npu: the edge graph the partitioner is given (after ExecuTorch's decompositions), counted
  when EthosUPartitioner.partition returns: every call_function but quantize/dequantize and getitem (views
  included), and of those the ones it tagged for delegation.
- cpu_ops: the operators left outside the delegates in the lowered graph, one name a node (q/dq included).
- cycles_npu / cycles_total / sram_bytes: Vela's summary CSV for each delegate. ExecuTorch's vela_compile
  writes into a fixed `output/` folder of the intermediates path, which every delegate would overwrite, so
  while lowering, the backend's vela_compile is wrapped to give each call a fresh temporary folder and read
  its CSV there. Cycles are summed over delegates; sram_bytes is the largest delegate's (Vela writes KiB,
  this is bytes), as the delegates run one after another in the same memory.
- scratch_bytes: the sum of the blobs' scratch_size (mcu_export.ethosu.blob.unpack).
- planned_bytes: the sum of the program's non_const_buffer_sizes (ExecuTorch's memory plan).
- arena_bytes: planned_bytes + the largest scratch_size rounded up to 16. EthosUBackend::execute
  (backends/arm/runtime/EthosUBackend.cpp) takes the scratch from the method's temp allocator, 16-byte
  aligned, and Method::step resets that allocator after every instruction, so one temp pool as large as the
  largest delegate's scratch serves all delegates; the planned activations are the method's planned buffers.
- fast_scratch_bytes: in a Dedicated_Sram memory mode (Ethos-U65's default) Vela's scratch is in DRAM and its
  SRAM is a second, "fast" scratch: a platform buffer (the weak `ethosu_fast_scratch`, which
  arm_executor_runner sizes to the memory mode's arena cache), not in arena_bytes. This is Vela's SRAM use
  there (sram_bytes); 0 in the other modes, where the scratch itself is SRAM.
- export_seconds: wall time of the whole flow, quantization and Vela included.
"""

from __future__ import annotations

import contextlib
import csv
import io
import logging
import tempfile
import time
import warnings
from pathlib import Path
from typing import Dict, List, Optional

import torch

from mcu_export.ethosu import blob as ethosu_blob

# Delegates' scratch comes from the temp allocator with this alignment (EthosUBackend.cpp, execute()).
SCRATCH_ALIGNMENT = 16
# Vela memory modes whose scratch (region 1) is DRAM and whose SRAM is a separate fast scratch (region 2).
DEDICATED_SRAM = "Dedicated_Sram"
_QDQ = ("quantize_per_tensor", "dequantize_per_tensor", "quantize_per_channel", "dequantize_per_channel")
_NOT_COUNTED = ("getitem",)
DELEGATE_CALL = "executorch_call_delegate"
LOG_TAIL_LINES = 5


def _op_name(node) -> str:
    return getattr(node.target, "__name__", None) or str(node.target)


def _is_qdq(name: str) -> bool:
    return any(q in name for q in _QDQ)


def _compute_nodes(graph) -> List:
    nodes = []
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        name = _op_name(node)
        if _is_qdq(name) or name in _NOT_COUNTED:
            continue
        nodes.append(node)
    return nodes


@contextlib.contextmanager
def _vela_per_delegate(runs: List[Dict[str, float]]):
    """Wrap the backend's vela_compile so that each delegate compiles in its own folder; append the figures
    of each Vela summary CSV (one dict a delegate) to `runs`."""
    from executorch.backends.arm.ethosu import backend as et_backend

    original = et_backend.vela_compile

    def wrapped(tosa_flatbuffer, args, verbose=False, intermediate_path=None, block_placements=None):
        with tempfile.TemporaryDirectory(prefix="mcu-export-et-vela-") as tmp:
            result = original(tosa_flatbuffer, args, False, tmp, block_placements)
            summary = next((Path(tmp) / "output").glob("*_summary_*.csv"), None)
            row = next(csv.DictReader(summary.open()), {}) if summary is not None else {}
        runs.append({k: float(v) for k, v in row.items() if _is_number(v)})
        return result

    et_backend.vela_compile = wrapped
    try:
        yield
    finally:
        et_backend.vela_compile = original


def _is_number(text) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


@contextlib.contextmanager
def _quiet():
    """Capture what ExecuTorch and Vela print or log; on an error, its last lines go into the exception."""
    log = io.StringIO()
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            warnings.simplefilter("ignore")
            yield
    except Exception as exc:
        tail = [line for line in log.getvalue().splitlines() if line.strip()][-LOG_TAIL_LINES:]
        if tail:
            exc.add_note("console output of the ExecuTorch flow (last lines):\n" + "\n".join(tail))
        raise
    finally:
        logging.disable(previous)


def _quantize(model, example_inputs: tuple, compile_spec):
    """PT2E int8 with EthosUQuantizer's symmetric per-channel config, calibrated on the example inputs; the
    converted module exported again, as aot_arm_compiler.py's quantize_model does."""
    from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    graph = torch.export.export(model.eval(), example_inputs, strict=False).module(check_guards=False)
    quantizer = EthosUQuantizer(compile_spec)
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(graph, quantizer)
    with torch.no_grad():
        prepared(*example_inputs)
    converted = convert_pt2e(prepared)
    return torch.export.export(converted, example_inputs, strict=False)


def _lower(exported, compile_spec, runs: List[Dict[str, float]]):
    """to_edge_transform_and_lower with EthosUPartitioner; returns the edge program manager and the op counts
    (total, tagged for the NPU) of the graph the partitioner was given."""
    from executorch.backends.arm.ethosu import EthosUPartitioner
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

    counts: Dict[str, int] = {}
    partitioner = EthosUPartitioner(compile_spec)
    partition = partitioner.partition

    def counting_partition(program):
        result = partition(program)
        nodes = _compute_nodes(program.graph_module.graph)
        counts["total"] = len(nodes)
        counts["npu"] = sum(1 for n in nodes if n.meta.get("delegation_tag"))
        return result

    partitioner.partition = counting_partition
    with _vela_per_delegate(runs):
        edge = to_edge_transform_and_lower(
            exported, partitioner=[partitioner], compile_config=EdgeCompileConfig(_check_ir_validity=False)
        )
    return edge, counts.get("total", 0), counts.get("npu", 0)


def executorch_ethosu(
    model,
    example_inputs,
    accelerator: str = "ethos-u55-128",
    system_config: Optional[str] = None,
    memory_mode: Optional[str] = None,
) -> Dict:
    """Lower `model` through ExecuTorch's Arm flow (EthosUQuantizer PT2E int8 → EthosUPartitioner →
    to_edge_transform_and_lower → to_executorch) for `accelerator` and return its figures."""
    from executorch.backends.arm.ethosu import EthosUCompileSpec
    from executorch.exir import ExecutorchBackendConfig

    from mcu_export.pte.reader import read_program

    example_inputs = tuple(example_inputs)
    runs: List[Dict[str, float]] = []
    start = time.perf_counter()
    with _quiet():
        compile_spec = EthosUCompileSpec(accelerator, system_config=system_config, memory_mode=memory_mode)
        edge, total, on_npu = _lower(_quantize(model, example_inputs, compile_spec), compile_spec, runs)
        lowered = [n for n in edge.exported_program().graph.nodes if n.op == "call_function"]
        pte = edge.to_executorch(config=ExecutorchBackendConfig(extract_delegate_segments=False)).buffer
    seconds = time.perf_counter() - start

    names = [_op_name(n) for n in lowered]
    program = read_program(pte)
    plan = program.method("forward")
    blobs = [
        bytes(program.backend_delegate_data[d.processed.index])
        for d in plan.delegates
        if d.id == ethosu_blob.BACKEND_ID
    ]
    scratch = [ethosu_blob.unpack(b).scratch_size for b in blobs]
    planned = int(sum(plan.non_const_buffer_sizes))
    flags = dict(f.split("=", 1) for f in compile_spec.compiler_flags if f.startswith("--") and "=" in f)
    mode = flags.get("--memory-mode", "")
    sram = round(max((r.get("sram_memory_used", 0.0) for r in runs), default=0.0) * 1024)
    return {
        "accelerator": accelerator,
        "system_config": flags.get("--system-config", ""),
        "memory_mode": mode,
        "ops_total": total,
        "ops_on_npu": on_npu,
        "npu_share": on_npu / total if total else 0.0,
        "subgraphs": names.count(DELEGATE_CALL),
        "cpu_ops": [n for n in names if n not in (DELEGATE_CALL, *_NOT_COUNTED)],
        "cycles_npu": round(sum(r.get("cycles_npu", 0.0) for r in runs)),
        "cycles_total": round(sum(r.get("cycles_total", 0.0) for r in runs)),
        "sram_bytes": sram,
        "scratch_bytes": sum(scratch),
        "planned_bytes": planned,
        "arena_bytes": planned + -(-max(scratch, default=0) // SCRATCH_ALIGNMENT) * SCRATCH_ALIGNMENT,
        "fast_scratch_bytes": sram if mode.startswith(DEDICATED_SRAM) else 0,
        "pte_bytes": len(pte),
        "export_seconds": round(seconds, 3),
        "blobs": blobs,
    }
