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


def _conv_pte(stride: int):
    """A float32 depthwise 3x3 (16 channels, 12x10, padding 1) exported NCHW: at stride 1 (or 2) its lines may take
    the whole-line helper, at stride 3 they may not."""
    import torch
    from torch import nn

    from mcu_export.api import export

    torch.manual_seed(2)
    conv = nn.Conv2d(16, 16, 3, stride, 1, groups=16).eval()
    x = torch.rand(1, 16, 12, 10) * 2 - 1
    return export(conv, (x,), overlap=False).pte, x.numpy()


def test_at_stride_2_the_line_helper_is_linked_where_the_core_has_no_mve():
    """The M33's lines take a stride-2 depthwise 3x3; the M55's 1-channel vector tiles run it instead."""
    from mcu_export.firmware.kernel_variants import optional_helpers
    from mcu_export.pte.reader import read_program

    plan = read_program(_conv_pte(2)[0]).execution_plan[0]
    assert optional_helpers(plan, "dsp") and not optional_helpers(plan, "mve")


@pytest.mark.slow
@pytest.mark.parametrize("stride", [1, 3])
def test_the_depthwise_line_helper_is_linked_only_where_a_convolution_may_take_it(tmp_path, stride):
    """mx_conv2d_f32_dw_lines.c is compiled into a model's firmware only when a call may run it (the weak
    mx_conv2d_f32_dw_line is then defined); without it the tiles run the lines. Either way the M33 firmware's
    outputs are the host's (which links the helper) bit for bit."""
    from mcu_export.firmware.kernel_variants import optional_helpers
    from mcu_export.pte.reader import read_program

    pte, x = _conv_pte(stride)
    plan = read_program(pte).execution_plan[0]
    assert optional_helpers(plan, "dsp") == ({"portable/util/mx_conv2d_f32_dw_lines.c"} if stride == 1 else set())
    host = pte_runner(tmp_path)(pte, [x])
    build = build_model_firmware(tmp_path / "fw", "mps2-an505", model=pte)
    run = run_model_firmware(build, "mps2-an505", [x])
    assert np.array_equal(run.outputs[0].view(np.uint32), np.asarray(host).view(np.uint32))
    line = Elf(build.elf).symbols().get("mx_conv2d_f32_dw_line")
    assert (line is not None and line.address != 0) == (stride == 1)
