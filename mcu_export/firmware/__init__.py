"""Firmware for boards: render a CMake project from a board file, build it, run it on QEMU or an FVP.

Modules: build (render_project, build_project), qemu (run_qemu), fvp (fvp_command, run_fvp),
icount (the QEMU instruction-count plugin), uf2 (UF2 writer), elf (symbols and sections), results.
"""
