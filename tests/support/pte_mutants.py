"""The catalog of semantic mutants (pte_mutations.py edits them): each changes one meaningful thing in a
program exported from a small model or an example, and names the ONE runtime error (errors.def) that loading
it must end in. The sources cover conv, depthwise conv, linear, add, max and average pools, softmax, cat and
split, in fp32 (portable kernels) and int8 (cortex_m kernels).

    for m in MUTANTS: m.build(sources()[m.source].pte)  -> .pte bytes that must fail with m.error

Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import pte_mutants_kernels  # noqa: F401  (registers its mutants)
import pte_mutants_memory  # noqa: F401  (registers its mutants)
from pte_mutant_base import MUTANTS, Mutant, Source, huge_pool, sources

__all__ = ["MUTANTS", "Mutant", "Source", "huge_pool", "sources"]
