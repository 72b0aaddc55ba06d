"""The export's side of the command line: the options `export` and `run MODEL_SPEC` share, their checks, and
what `export` prints when it has written a program."""

from __future__ import annotations

from pathlib import Path

from mcu_export.errors import UsageError


def add_export_options(p) -> None:
    """The export's options, shared by `export` and `run MODEL_SPEC`."""
    from mcu_export.server.cli import add_option

    add_option(p)
    p.add_argument(
        "--quantize", choices=("int8",), default=None, help="PT2E int8 with CMSIS-NN's scheme (default: fp32)"
    )
    p.add_argument(
        "--calibrate",
        metavar="FILE.py:FUNCTION",
        help="with --quantize: a function yielding input tuples (default: the example inputs, with a warning)",
    )
    p.add_argument(
        "--backend",
        metavar="BACKEND",
        help="with --quantize int8: cortex-m (CPU only) or an Ethos-U configuration such as ethos-u55-128, "
        "ethos-u65-256, ethos-u85-256 (default: the board's NPU if it has one, else cortex-m)",
    )
    p.add_argument(
        "--no-fallback",
        action="store_true",
        help="with --quantize int8: refuse (exit 2, every one listed) instead of running an op without an int8 "
        "kernel in fp32; without it each such op is one warning line",
    )
    p.add_argument(
        "--no-overlap",
        action="store_true",
        help="plan every tensor apart from those live with it: no kernel out over the input it replaces (for "
        "ExecuTorch's runtime or Arm's CMSIS-NN, whose kernels keep another order); more RAM",
    )
    p.add_argument(
        "--io",
        choices=("float", "int8"),
        default="float",
        help="with --quantize int8: int8 makes the program take and return int8 tensors (no input quantize, no "
        "output dequantize; report.json gives each one's scale and zero point); default float",
    )
    p.add_argument(
        "--linear-weights",
        choices=("per-channel", "per-tensor"),
        default="per-channel",
        help="with --quantize int8: per-tensor quantizes fully connected weights with one scale per layer (as "
        "ExecuTorch and TFLite do): a smaller .pte for MLPs (no per-channel multiplier lists), less accurate where "
        "rows differ in range; default per-channel",
    )


def export_options(args, board: str):
    from mcu_export.loop import ExportOptions

    if args.calibrate and not args.quantize:
        raise UsageError("--calibrate goes with --quantize int8")
    if args.no_fallback and not args.quantize:
        raise UsageError("--no-fallback goes with --quantize int8")
    if args.io == "int8" and not args.quantize:
        raise UsageError("--io int8 goes with --quantize int8 (an fp32 program has no int8 tensors to take)")
    if args.linear_weights == "per-tensor" and not args.quantize:
        raise UsageError("--linear-weights per-tensor goes with --quantize int8 (it chooses int8 weight scales)")
    return ExportOptions(
        quantize=args.quantize,
        calibrate=args.calibrate,
        board=board,
        backend=args.backend,
        fallback=not args.no_fallback,
        overlap=not args.no_overlap,
        io=args.io,
        linear_weights=args.linear_weights,
    )


def print_export(artifact, out) -> None:
    mem = artifact.report["memory"]
    print(f"wrote {out / 'model.pte'} ({artifact.report['pte_bytes']} bytes) and {out / 'report.json'}")
    print(
        f"arena {mem['arena_bytes']} bytes (live-set bound {mem['lower_bound_bytes']}"
        + (f", {mem['overlaps']} outs over their inputs" if mem.get("overlaps") else "")
        + "), "
        f"{sum(artifact.report['ops'].values())} kernel calls, {len(artifact.report['ops'])} distinct ops"
    )
    for kind in ("inputs", "outputs"):
        for k, entry in enumerate(artifact.report[kind]):
            q = entry.get("quantization")
            if q:
                print(
                    f"{kind[:-1]}_{k}: int8{entry['shape']}, scale {q['scale']:.9g}, zero point {q['zero_point']} "
                    "(float = (q - zero point) * scale)"
                )
    parts = artifact.report.get("partitions")
    if parts:
        npu = artifact.report["npu"]
        print(
            f"{parts['backend']}: {len(parts['subgraphs'])} NPU subgraph(s) with {parts['operators_on_npu']} of "
            f"{parts['operators']} operators, {npu['total']['cycles_npu']} NPU cycles (Vela's estimate, "
            f'{npu["system_config"]}, {npu["memory_mode"]}); on the CPU: see report.json "partitions"'
        )


def is_model_spec(program: str) -> bool:
    """path/file.py[:factory] names a model; anything else is an export folder or a .pte."""
    path = program.rpartition(":")[0] if ":" in program and not Path(program).exists() else program
    return path.endswith(".py")


def export_flags_given(args) -> bool:
    flags = (
        args.quantize,
        args.calibrate,
        args.backend,
        args.no_fallback,
        args.no_overlap,
        args.io != "float",
        args.linear_weights != "per-channel",
    )
    return any(flags)
