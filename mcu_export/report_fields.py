"""What each report.json field counts, written into the report itself ("fields") and the README.

Two pairs were easy to confuse (issue 11): `kernel_calls` (operator calls the .pte's plan makes per
inference, on any target) vs `instructions_per_inference` (CPU instructions a simulator counted), and
`stack_reserved_bytes` (what the linker script sets aside) vs `stack_used_bytes` (the high-water mark a run
measured). The old keys stay: tests and users read them.
"""

from __future__ import annotations

from typing import Dict

FIELDS: Dict[str, str] = {
    "ops": "kernel calls per inference, per operator (.pte operator name)",
    "kernel_calls": "kernel calls per inference, all operators (the sum of ops); not CPU instructions",
    "instructions": "instructions in the .pte's execution plan: kernel calls plus moves and delegate calls",
    "debug_map": "per instruction of the .pte (index): op, graph node, torch op, and the model's source line "
    "(file, line, function as Class.forward; source = 'file.py:42 in Net.forward'); null where torch recorded none",
    "memory.arena_bytes": "bytes of the planned activation arena (all intermediate tensors)",
    "memory.lower_bound_bytes": "the largest sum of tensors alive at one time: no plan of tensors kept apart can "
    "use less (overlaps, below, can)",
    "memory.schedule.method": "how the instruction order was chosen for the lowest live-set peak: exact (every "
    "topological order considered), greedy (too many to search; kept only where better) or emitted (torch.export's)",
    "memory.schedule.live_set_emitted_bytes": "the live-set peak of torch.export's instruction order",
    "memory.overlaps": "kernel outs placed over the input they replace, where the kernel's overlap rule allows",
    "memory.channels_last_tensors": "planned fp32 tensors the exporter laid out channels-last (NHWC) so that the "
    "convolutions around them can overlap; 0 with --no-overlap",
    "memory.constant_bytes": "bytes of weights and constants in the .pte",
    "pte_bytes": "size of model.pte in bytes",
    "export_seconds": "wall time of the export",
    "int8.fallbacks": "int8 operators that run in fp32 (dequantized around a portable kernel), with why",
    "int8.io": "float: the program takes and returns float32; int8: its int8 tensors (--io int8)",
    "int8.linear_weights": "per-channel (default) or per-tensor (--linear-weights): fully connected weight scales",
    "inputs.quantization": "io int8: the input's scale and zero point; q = clamp(round(x / scale) + zero_point)",
    "outputs.quantization": "io int8: the output's scale and zero point; float = (q - zero_point) * scale",
    "firmware.BOARD.flash_bytes": "flash the firmware image takes (code, rodata, data's load image)",
    "firmware.BOARD.ram_bytes": "RAM the firmware reserves statically (data, bss, arenas, stack)",
    "firmware.BOARD.ram.parts": "ram_bytes as parts that sum to it: arena, runtime_metadata (metadata pool, "
    "program and method structs, runtime statics), stack, startup_libc, other",
    "firmware.BOARD.ram_over_arena": "ram_bytes / ram.arenas: what the firmware's RAM costs per byte of arena",
    "firmware.BOARD.stack_reserved_bytes": "stack size the linker script reserves (ram.stack): the call-graph "
    "analysis' worst case plus its margin (the board's stack_size is the limit)",
    "firmware.BOARD.stack_analysed_bytes": "worst-case stack by call-graph analysis (thread + interrupt + fault, "
    "exception frames included); every simulator run's stack_used_bytes must stay at or under it",
    "firmware.BOARD.stack_used_bytes": "the stack's high-water mark measured in a simulator run (painted stack)",
    "firmware.BOARD.instructions_per_inference": "CPU instructions one inference took on the simulator",
}
