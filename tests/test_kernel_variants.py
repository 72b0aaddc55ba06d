"""A firmware links a narrower kernel for an op when every call of the op in its model allows it
(mcu_export/firmware/kernel_variants.py): `_to_dim_order_copy` calls that all keep their dtype run
`_clone_dim_order`'s copy, so the dtype conversion and the soft-float double it computes in stay out; one
converting call brings the op's own kernel back. The kernel table keeps the op's name and argument kinds. Both
programs run on Cortex-M33 firmware under QEMU and equal the host C runtime (which links every op's own
kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from cortex_m_programs import NCHW_CHANNELS_LAST, OpProgram, pte_runner
from mcu_export.firmware.elf import Elf
from mcu_export.firmware.kernel_variants import kernel_variants
from mcu_export.firmware.model_project import build_model_firmware, kernel_sources, model_ops
from mcu_export.host_runtime import render_kernel_table
from mcu_export.pte.writer import write_program
from mcu_export.runners import run_model_firmware

TO = "dim_order_ops::_to_dim_order_copy.out"
CLONE_KERNEL = "mx_k_dim_order_ops_clone_dim_order_out"
X = np.arange(-24, 24, dtype=np.int8).reshape(1, 3, 4, 4)


def _program(convert: bool):
    """x (int8, NCHW) made channels-last; with `convert`, then taken to int32 as well."""
    p = OpProgram()
    x = p.input(X)
    cl = p.call(TO, [x, p.bool_(False), p.ints(NCHW_CHANNELS_LAST)], p.planned(X.shape, np.int8, NCHW_CHANNELS_LAST))
    out = cl
    if convert:
        out = p.call(TO, [cl, p.bool_(False), p.null()], p.planned(X.shape, np.int32, NCHW_CHANNELS_LAST))
    return p.program([out])


@pytest.mark.parametrize("convert", [False, True], ids=["layout-only", "converting"])
def test_the_copy_links_the_conversion_only_when_a_call_converts(convert):
    plan = _program(convert).method()
    variants = kernel_variants(plan)
    ops = model_ops(plan)
    table = render_kernel_table(ops, (), variants)
    sources = {path.rsplit("/", 1)[-1] for path in kernel_sources(ops, variants)}
    entry = next(
        line for line in table.splitlines() if line.lstrip().startswith('{"dim_order_ops::_to_dim_order_copy"')
    )
    assert "mx_k_dim_order_ops_to_dim_order_copy_out_sig" in entry  # the op's own argument kinds
    if convert:
        assert variants == {}
        assert f"{CLONE_KERNEL}," not in entry
        assert {"mx_convert.c", "mx_dim_order_convert.c"} <= sources
    else:
        assert set(variants) == {TO}
        assert f"{CLONE_KERNEL}, {CLONE_KERNEL}_check," in entry
        assert f"{CLONE_KERNEL}.c" in sources and "mx_k_dim_order_ops_to_dim_order_copy_out.c" not in sources
        assert not {"mx_convert.c", "mx_dim_order_convert.c"} & sources


@pytest.mark.slow
@pytest.mark.parametrize("convert", [False, True], ids=["layout-only", "converting"])
def test_both_run_on_cortex_m33_as_on_the_host(tmp_path, convert):
    pte = write_program(_program(convert))
    host = pte_runner(tmp_path)(pte, [X])
    build = build_model_firmware(tmp_path / "fw", "mps2-an505", model=pte)
    run = run_model_firmware(build, "mps2-an505", [X])
    want = X.astype(np.int32) if convert else X
    assert np.array_equal(host, want) and np.array_equal(run.outputs[0], host)
    soft = {s for s in Elf(build.elf).symbols() if s.startswith("__aeabi_d")}
    assert bool(soft) == convert, sorted(soft)
