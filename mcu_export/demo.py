"""`make demo`: the keyword-spotting example in int8 as firmware for Corstone-300 (Cortex-M55 + MVE), on QEMU.

Exports the model three times (fp32, PT2E int8 for the CPU, and int8 for the board's Ethos-U55), builds the
three firmwares, runs them on the simulated board (QEMU has no NPU: the NPU firmware's jobs go to our Ethos-U
simulator over the semihosting seam) and prints the int8 outputs' agreement with fp32 torch, whether device,
host runtime and the Python reference agree bit for bit, flash and RAM, instructions per inference against
fp32, and for the NPU: what went to it, Vela's cycle estimate against the CPU's instructions, and whether the
NPU firmware computes what the CPU firmware computes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

from mcu_export.api import export
from mcu_export.errors import McuExportError
from mcu_export.ethosu.reference import tosa_delegate
from mcu_export.examples import spec
from mcu_export.firmware.flow import build_for_board, record_run
from mcu_export.firmware.sizes import code_bytes
from mcu_export.int8.interpreter import run_reference
from mcu_export.model_spec import load_model
from mcu_export.runners import run_model_firmware

BOARD = "corstone-300"
OUT = Path("out/kws_dscnn")


def _say(message: str) -> None:
    print(f"demo: {message}", flush=True)


def _fmt(values: np.ndarray) -> str:
    return np.array2string(values.ravel(), precision=4, max_line_width=120)


def _batches(like: torch.Tensor, n: int, seed: int):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randn(like.shape, generator=gen),) for _ in range(n)]


def _firmware(artifact, out: Path, x: np.ndarray):
    artifact.save(out)
    build = build_for_board(out, BOARD)
    run = run_model_firmware(build, BOARD, [x])
    record_run(out, BOARD, run)
    return run, json.loads((out / "report.json").read_text())["firmware"][BOARD]


def main() -> int:
    model, inputs = load_model(spec("kws_dscnn"))
    calibration = _batches(inputs[0], 32, 1)  # stand-in for real MFCC frames: this demo ships no dataset
    _say("exporting fp32 and int8 (PT2E, CMSIS-NN scheme, 32 calibration batches)")
    fp32 = export(model, inputs)
    # The CPU path: firmware that drives the board's Ethos-U comes with the NPU runtime.
    int8 = export(
        model, inputs, quantize="int8", calibrate=lambda: iter(calibration), board=BOARD, backend="cortex-m",
        progress=_say,
    )  # fmt: skip
    _say(f"exporting int8 for {BOARD}'s Ethos-U55-128 (TOSA subgraphs compiled by Vela)")
    npu = export(model, inputs, quantize="int8", calibrate=lambda: iter(calibration), board=BOARD, progress=_say)
    x = inputs[0].numpy()
    _say(f"building and running all three on {BOARD} under QEMU (mps3-an547; the NPU jobs on our simulator)")
    run32, _ = _firmware(fp32, OUT / "fp32", x)
    run8, sizes = _firmware(int8, OUT / "int8", x)
    run_npu, _ = _firmware(npu, OUT / "npu", x)

    with torch.no_grad():
        want = model(*inputs).numpy().ravel()
    got = run8.outputs[0].ravel()
    cosine = float(got @ want / (np.linalg.norm(got) * np.linalg.norm(want)))
    host = int8.run(*inputs)[0].ravel()
    reference = run_reference(int8.program, [inputs[0]])[0].ravel()
    bit_exact = np.array_equal(got, host) and np.array_equal(got, reference)
    on_tosa = run_reference(npu.program, [inputs[0]], delegate=tosa_delegate(npu.npu_graphs))[0].ravel()
    npu_exact = np.array_equal(run_npu.outputs[0].ravel(), got) and np.array_equal(on_tosa, reference)
    parts, vela = npu.report["partitions"], npu.report["npu"]
    flash, ram, cats = sizes["flash"], sizes["ram"], sizes["flash"]["categories"]
    code = code_bytes(sizes)
    top = sorted(run8.per_op, key=lambda op: op.instructions, reverse=True)[:3]

    print()
    print(f"keyword spotting DS-CNN, int8, firmware on {BOARD} (Cortex-M55, MVE) under QEMU")
    print(f"  device output   {_fmt(got)}")
    print(f"  fp32 torch      {_fmt(want)}")
    print(
        f"  agreement       top-1 {int(got.argmax())} vs {int(want.argmax())}, cosine {cosine:.5f}, "
        f"max |diff| {float(np.max(np.abs(got - want))):.4f}"
    )
    print(f"  bit-exact       device == host runtime == Python reference: {'yes' if bit_exact else 'NO'}")
    print(
        f"  flash           {flash['total']} bytes: code {code} (runtime {cats['runtime']}, kernels "
        f"{cats['kernels']}, startup+libc {cats['startup_libc']}), model {cats['model_data']}"
    )
    print(
        f"  RAM             {ram['total']} bytes: arena {int8.report['memory']['arena_bytes']} "
        f"(fp32 {fp32.report['memory']['arena_bytes']}), stack used {run8.stack_used} of {ram['stack']} reserved "
        f"by analysis (board limit {sizes['stack_size']}), runtime metadata {ram['parts']['runtime_metadata']}"
    )
    print(
        f"  instructions    {run8.instructions_per_inference:,} per inference (fp32: "
        f"{run32.instructions_per_inference:,}, {run32.instructions_per_inference / run8.instructions_per_inference:.1f}x);"
        " costliest: " + ", ".join(f"#{op.index} {op.op.split('::')[-1]} {op.instructions:,}" for op in top)
    )
    print(
        f"  {parts['backend']}   {len(parts['subgraphs'])} NPU subgraph with {parts['operators_on_npu']} of "
        f"{parts['operators']} operators: Vela's estimate {vela['total']['cycles_npu']:,} NPU cycles per inference "
        f"({vela['system_config']}), {run_npu.instructions_per_inference:,} CPU instructions around it"
    )
    print(
        f"  NPU bit-exact   NPU firmware (job on our Ethos-U simulator) == CPU int8 firmware == NPU part on "
        f"TOSA's reference model: {'yes' if npu_exact else 'NO'}"
    )
    ok = bit_exact and npu_exact and cosine >= 0.99 and int(got.argmax()) == int(want.argmax())
    print("demo: OK" if ok else "demo: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except McuExportError as exc:
        print(f"demo: error: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
