"""Vela (ethos-u-vela 5.2) on one TOSA subgraph: the delegate blob and Vela's own estimates.

Vela runs in-process through its Python entry point, in a private temporary folder, with its console output
captured (returned in `VelaResult.log`, never printed). Its raw output (`<name>_vela.npz`) becomes a
`VelaBlob` in ExecuTorch's Arm layout; its summary CSV gives the estimates (NPU cycles, SRAM and flash used)
that report.json's `npu` section carries. A failure is one line naming the subgraph and Vela's reason.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from mcu_export.errors import UsageError
from mcu_export.ethosu.blob import IoRecord, VelaBlob

# Every configuration Vela 5.2 accepts for --accelerator-config.
ACCELERATORS = (
    "ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256",
    "ethos-u65-256", "ethos-u65-512",
    "ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048",
)  # fmt: skip
# Vela's own system configurations and memory modes live in this file of the wheel.
VELA_INI = "Arm/vela.ini"
# Per NPU generation, the system configuration and memory mode used when a board names none: the ones
# ExecuTorch's Arm backend defaults to, so that figures compare like for like.
DEFAULT_MEMORY = {
    "ethos-u55": ("Ethos_U55_High_End_Embedded", "Shared_Sram"),
    "ethos-u65": ("Ethos_U65_High_End", "Dedicated_Sram_384KB"),
    "ethos-u85": ("Ethos_U85_SYS_DRAM_Mid", "Sram_Only"),
}
# The figures of Vela's summary CSV that a report keeps (cycles per inference, megabytes used).
ESTIMATES = ("cycles_npu", "cycles_total", "sram_memory_used", "on_chip_flash_memory_used",
             "off_chip_flash_memory_used", "dram_memory_used", "passes_after_fusing")  # fmt: skip


@functools.lru_cache(maxsize=None)  # every board file with an NPU asks, on every load
def vela_ini_sections(kind: str) -> List[str]:
    """The names of Vela's Arm/vela.ini sections of `kind` ("System_Config", "Memory_Mode"); [] without Vela."""
    import importlib.util

    spec = importlib.util.find_spec("ethosu")  # a namespace package: its folder, not its __file__
    if spec is None or not spec.submodule_search_locations:
        return []
    ini = Path(list(spec.submodule_search_locations)[0]) / "config_files" / VELA_INI
    if not ini.is_file():
        return []
    prefix = f"[{kind}."
    return [line.strip()[len(prefix) : -1] for line in ini.read_text().splitlines() if line.startswith(prefix)]


class VelaError(UsageError):
    """Vela refused or failed on a subgraph (one line: the subgraph and Vela's reason)."""


@dataclass
class VelaResult:
    blob: VelaBlob
    estimates: Dict[str, float] = field(default_factory=dict)
    system_config: str = ""
    memory_mode: str = ""
    log: str = ""
    flags: List[str] = field(default_factory=list)  # Vela's options as given (ExecuTorch's "compile_flags")
    layers: List[Dict[str, object]] = field(default_factory=list)  # Vela's per-layer estimates
    # Vela's "fast scratch" (region 2): the NPU's dedicated SRAM in a Dedicated_Sram memory mode (the U65
    # default). ExecuTorch's blob does not carry it; the platform provides that memory.
    fast_scratch_size: int = 0


def _records(data, prefix: str) -> List[IoRecord]:
    shapes = data[f"{prefix}_shape"]
    return [
        IoRecord(
            tuple(int(s) for s in shapes[i]),  # type: ignore[arg-type]
            int(data[f"{prefix}_elem_size"][i]),
            int(data[f"{prefix}_offset"][i]),
            int(data[f"{prefix}_region"][i]),
        )
        for i in range(len(shapes))
    ]


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def compile_tosa(
    tosa: bytes,
    accelerator: str,
    *,
    name: str = "subgraph",
    system_config: Optional[str] = None,
    memory_mode: Optional[str] = None,
) -> VelaResult:
    """Compile one TOSA flatbuffer for `accelerator` (e.g. "ethos-u55-128"); `system_config` and `memory_mode`
    name sections of Vela's Arm/vela.ini (a board file gives them), else DEFAULT_MEMORY's for its generation."""
    if accelerator not in ACCELERATORS:
        raise VelaError(f"unknown Ethos-U configuration '{accelerator}' (valid: {', '.join(ACCELERATORS)})")
    import numpy as np  # here, not at the top: `mcu-export ops` and board checks read this module's tables
    from ethosu.vela import vela

    default_config, default_mode = DEFAULT_MEMORY[accelerator.rsplit("-", 1)[0]]
    system_config, memory_mode = system_config or default_config, memory_mode or default_mode

    with tempfile.TemporaryDirectory(prefix="mcu-export-vela-") as tmp:
        graph = Path(tmp) / "graph.tosa"
        graph.write_bytes(tosa)
        out = Path(tmp) / "out"
        flags = [
            f"--accelerator-config={accelerator}",
            f"--config={VELA_INI}",
            f"--system-config={system_config}",
            f"--memory-mode={memory_mode}",
        ]
        args = [*flags, "--output-format=raw", f"--output-dir={out}", "--verbose-performance"]
        log = io.StringIO()
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                status = vela.main([*args, str(graph)])
        except SystemExit as exc:  # Vela's argument and configuration errors end in sys.exit
            status = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # noqa: BLE001  Vela's compile errors are its own exception types
            reason = " ".join(str(exc).split())  # Vela's validation errors span lines; ours is one
            raise VelaError(f"Vela failed on {name} for {accelerator}: {type(exc).__name__}: {reason}") from None
        text = log.getvalue()
        npz = out / "graph_vela.npz"
        if status not in (0, None) or not npz.is_file():
            raise VelaError(f"Vela failed on {name} for {accelerator}: {_last_line(text)}")
        with np.load(npz, allow_pickle=True) as data:
            blob = VelaBlob(
                cmd_data=bytes(data["cmd_data"].tobytes()),
                weight_data=bytes(data["weight_data"].tobytes()),
                scratch_size=int(data["scratch_shape"][0]),
                inputs=_records(data, "input"),
                outputs=_records(data, "output"),
            )
            fast = int(data["scratch_fast_shape"][0]) if "scratch_fast_shape" in data.files else 0
        summary = next(out.glob("graph_summary_*.csv"), None)
        row = next(csv.DictReader(summary.open()), {}) if summary is not None else {}
        per_layer = out / "graph_per-layer.csv"
        layers = [_layer(r) for r in csv.DictReader(per_layer.open())] if per_layer.is_file() else []
    estimates = {k: float(row[k]) for k in ESTIMATES if row.get(k) not in (None, "")}
    return VelaResult(
        blob, estimates, row.get("system_config", ""), row.get("memory_mode", ""), text, flags, layers, fast
    )


def _layer(row: Dict[str, str]) -> Dict[str, object]:
    """One row of Vela's per-layer CSV (--verbose-performance): the operator, where it ran, its cycles and MACs
    and the SRAM it stages; an operator Vela fused into the previous one shows 0 cycles."""

    def number(key: str) -> int:
        try:
            return int(float(row.get(key) or 0))
        except ValueError:
            return 0

    return {
        "operator": row.get("NNG Operator", ""),
        "target": row.get("Target", ""),
        "cycles": number("Op Cycles"),
        "macs": number("MAC Count"),
        "staging_bytes": number("Staging Usage"),
        "name": row.get("Name", ""),
    }
