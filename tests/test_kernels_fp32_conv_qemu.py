"""The fp32 convolution's device paths under QEMU: the M55's MVE tiles and the M33's and M4's FPU ones
(runtime_c/kernels/portable/util/mx_conv2d_f32*.c) must give, bit for bit, what the host's plain C gives, channels-last
(the layout around overlaps) and NCHW. The shapes reach the tiles' edges: channel counts off a multiple of 4, rows
off a multiple of the pixel chunk, stride 2, dilation, asymmetric padding, no bias, a batch of 2. One boot of serving
firmware per board; each program is loaded over the serial link and run there and on the host."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

pytestmark = [pytest.mark.slow, NEEDS_ARM_QEMU]

BOARDS = ("corstone-300", "mps2-an505", "mps2-an386")  # MVE, FPU (M33), FPU (M4)


class _Between(nn.Module):
    """conv(x + 0.5) * 2: binary ops take either layout, so the layout pass makes the conv's in and out
    channels-last (as tests/support/overlap_cases.py does)."""

    def __init__(self, conv: nn.Module):
        super().__init__()
        self.conv = conv

    def forward(self, x):
        return self.conv(x + 0.5) * 2.0


# name: (c_in, c_out, (h, w), kernel, stride, padding, dilation, groups, bias, batch)
CASES = {
    "dw3x3_c64_narrow": (64, 64, (25, 5), 3, 1, 1, 1, 64, True, 1),
    "dw3x3_c6_w9": (6, 6, (7, 9), 3, 1, 1, 1, 6, True, 1),
    "dw3x3_c13_w11": (13, 13, (5, 11), 3, 1, 1, 1, 13, False, 1),
    "dw3x3_c3": (3, 3, (6, 6), 3, 1, 1, 1, 3, True, 1),
    "dw3x3_s2": (8, 8, (9, 10), 3, 2, 1, 1, 8, True, 1),
    "dw3x3_s2_w40": (5, 5, (6, 40), 3, 2, 1, 1, 5, True, 1),  # NCHW lines of 19 interior pixels at stride 2
    "dw3x3_w25": (3, 3, (4, 25), 3, 1, 1, 1, 3, False, 1),  # 23: a full 1-channel tile, one of 7 (MVE: 3 masked)
    "dw3x3_tall": (4, 4, (11, 6), 3, 1, 1, 1, 4, True, 1),  # FPU: lines down columns, 9 pixels = 2 chunks and 1
    "dw3x3_unpadded": (5, 5, (10, 4), 3, 1, 0, 1, 5, True, 1),  # lines down columns from the map's first row
    "dw3x3_s2_narrow": (4, 4, (25, 5), 3, 2, 1, 1, 4, True, 1),  # stride 2 down columns, the last window padded
    "dw3x3_s2_unpadded": (3, 3, (9, 11), 3, 2, 0, 1, 3, False, 1),
    "dw5x5_dilated": (12, 12, (11, 13), 5, 1, 4, 2, 12, True, 1),
    "dw_3x2_asym_pad": (7, 7, (8, 7), (3, 2), (1, 2), (2, 0), 1, 7, True, 2),
    "dw_multiplier_2": (4, 8, (6, 7), 3, 1, 1, 1, 4, True, 1),
    "conv3x3": (5, 9, (7, 9), 3, 1, 1, 1, 1, True, 1),
    "conv3x3_s2": (4, 8, (9, 10), 3, 2, 1, 1, 1, False, 1),
    "conv1x1": (9, 13, (5, 7), 1, 1, 0, 1, 1, True, 1),
    "conv1x1_w5": (8, 12, (3, 5), 1, 1, 0, 1, 1, False, 1),
    "conv1x1_w10_c7": (6, 7, (4, 10), 1, 1, 0, 1, 1, True, 1),
}


def _module(c_in, c_out, hw, k, stride, pad, dil, groups, bias, batch):
    torch.manual_seed(5)
    conv = nn.Conv2d(c_in, c_out, k, stride, pad, dil, groups, bias=bias)
    for p in conv.parameters():
        nn.init.uniform_(p, -0.5, 0.5)
    return conv.eval()


def _inputs(c_in, hw, batch):
    g = torch.Generator().manual_seed(3)
    return (torch.rand((batch, c_in, *hw), generator=g) * 4 - 2,)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """(name, layout, .pte bytes, inputs, the host runtime's outputs) for each case channels-last and NCHW."""
    from mcu_export.api import export
    from mcu_export.runners.host import run_pte

    tmp = tmp_path_factory.mktemp("conv")
    out = []
    for name, (c_in, c_out, hw, k, stride, pad, dil, groups, bias, batch) in sorted(CASES.items()):
        conv = _module(c_in, c_out, hw, k, stride, pad, dil, groups, bias, batch)
        xs = _inputs(c_in, hw, batch)
        for layout, module, overlap in (("nhwc", _Between(conv).eval(), True), ("nchw", conv, False)):
            art = export(module, xs, overlap=overlap)
            path = tmp / f"{name}_{layout}.pte"
            path.write_bytes(art.pte)
            arrays = [x.numpy() for x in xs]
            out.append((name, layout, art.pte, arrays, run_pte(path, arrays)))
    return out


def test_channels_last_cases_run_channels_last(programs):
    from mcu_export.pte.program import Tensor
    from mcu_export.pte.reader import read_program

    for name, layout, pte, _, _ in programs:
        if layout == "nhwc":
            plan = read_program(pte).execution_plan[0]
            orders = [tuple(v.dim_order) for v in plan.values if isinstance(v, Tensor)]
            assert (0, 2, 3, 1) in orders, name


def test_host_outputs_match_torch(programs):
    """The reference the devices are held to is itself right: the host runtime's outputs against PyTorch's."""
    by_name = {name: (arrays, want) for name, layout, _, arrays, want in programs if layout == "nchw"}
    for name, case in CASES.items():
        arrays, want = by_name[name]
        with torch.no_grad():
            ref = _module(*case)(torch.from_numpy(arrays[0])).numpy()
        np.testing.assert_allclose(want[0], ref, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("board", BOARDS)
def test_device_paths_equal_the_host_bit_for_bit(programs, board, tmp_path):
    from mcu_export.firmware.serve_project import build_serve_firmware
    from mcu_export.firmware.sim import SerialSim, free_tcp_port
    from mcu_export.ops.table import BY_QUALIFIED
    from mcu_export.pte.reader import read_program
    from mcu_export.serial import SerialClient

    ops = set()
    for _, _, pte, _, _ in programs:
        ops |= {BY_QUALIFIED[o.qualified] for o in read_program(pte).execution_plan[0].operators}
    elf = build_serve_firmware(tmp_path / "fw", board, sorted(ops, key=lambda o: o.qualified)).elf
    sim = SerialSim(board, elf, tmp_path, f"socket://127.0.0.1:{free_tcp_port()}")
    url = sim.start()
    wrong = []
    try:
        # 2 s before a resend: the largest input is 32 KB, which a loaded 2-core machine can take longer than the
        # default 0.5 s to pass through the UART (the full suite failed so once)
        with SerialClient(url, timeout=2.0) as client:
            for name, layout, pte, arrays, want in programs:
                client.load(pte)
                got, _ = client.run(arrays)
                same = all(
                    a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))
                    for a, b in zip(got, want)
                )
                if not same:
                    worst = max(float(np.max(np.abs(a - b))) for a, b in zip(got, want))
                    wrong.append(f"{name} {layout} (max |diff| {worst:g})")
    finally:
        sim.stop()
    assert not wrong, f"{board}: outputs differ from the host's for {wrong}"
