"""`mcu-export boards`: every board file with its CPU, memory regions and where it runs."""

from __future__ import annotations

from mcu_export.boards import HostBoard, list_boards, load_board


def _kib(n: int) -> str:
    return f"{n // 1024} KiB" if n % 1024 == 0 else f"{n} B"


def format_boards() -> str:
    from mcu_export.runners import targets

    lines = []
    for name in list_boards():
        b = load_board(name)
        if isinstance(b, HostBoard):
            runs = [t for t, cls in targets().items() if cls.serves(b)]
            lines.append(f"{b.name}: {b.description}")
            lines.append(f"  runs on  {', '.join(runs)} ({b.target}); no firmware")
            continue
        features = [f for f, on in (("fpu", b.cpu.fpu), ("dsp", b.cpu.dsp), ("mve", b.cpu.mve)) if on]
        sims = [
            s
            for s, on in (
                ("qemu " + b.qemu.machine if b.qemu else "", b.qemu),
                ("fvp " + b.fvp.binary if b.fvp else "", b.fvp),
            )
            if on
        ]
        lines.append(f"{b.name}: {b.description}")
        lines.append(f"  cpu      {b.cpu.mcpu} ({', '.join(features) or 'no fpu/dsp/mve'}), compiler {b.compiler.kind}")
        for r in b.memory:
            lines.append(f"  memory   {r.name:<8} 0x{r.origin:08x}  {_kib(r.length):>10}  {r.attrs}")
        lines.append(
            f"  runs on  {', '.join(sims) or 'hardware only'}; flash method {b.flash.method}; "
            f"outputs {', '.join(b.outputs)}"
        )
    return "\n".join(lines) + "\n"
