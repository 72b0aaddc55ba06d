"""`make bench-kernels` (mcu_export/bench_kernels.py): the layers' MAC counts against torch's own shapes, the
bit-exact comparison and the code-size walk without a device; then the benchmark itself on two layers of
corstone-300 under QEMU (plus one whose expected outputs are deliberately wrong, which must be an error row, not a
figure), the same in fp32 (table kernels_fp32), and Arm's columns when $CMSIS_NN_DIR names a CMSIS-NN source tree."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from mcu_export import bench_kernels as BK
from mcu_export import bench_kernels_fp32 as FP32
from mcu_export.bench_figures import FigureStore
from mcu_export.bench_kernels_layers import BY_NAME, LAYERS, LAYERS_NHWC
from mcu_export.firmware.callgraph import Function
from toolchains import NEEDS_ARM_QEMU  # noqa: E402  (tests/support, on sys.path via conftest)

GOOD = ("dw3x3_c16_s2_32x32", "fc256to64")
WRONG = "conv1x1_c44to16_s2_16x16"  # its expected outputs are corrupted: the benchmark must report it


def _torch_macs(layer) -> int:
    """MACs from what torch computes: output elements times the products each one sums."""
    module = layer.module()
    out = module(layer.example())
    module = getattr(module, "conv", module)  # a channels-last row: the convolution between two additions
    if isinstance(module, torch.nn.Linear):
        return out.numel() * module.in_features
    kh, kw = module.kernel_size
    return out.numel() * (module.in_channels // module.groups) * kh * kw


def test_layers_cover_the_shapes_and_their_macs_match_torch():
    assert 15 <= len(LAYERS) <= 25 and len(BY_NAME) == len(LAYERS) + len(LAYERS_NHWC)
    kinds = {layer.kind for layer in LAYERS}
    assert kinds == {"conv", "dw", "fc"}
    channels = {layer.cin for layer in LAYERS if layer.kind != "fc"}
    assert {1, 3, 16, 44, 64} <= channels
    assert {(3, 3), (10, 4), (1, 1)} <= {(layer.kh, layer.kw) for layer in LAYERS if layer.kind != "fc"}
    assert {1, 2} <= {layer.stride for layer in LAYERS if layer.kind != "fc"}
    assert {64, 1024} <= {layer.cin for layer in LAYERS if layer.kind == "fc"}
    for layer in LAYERS + LAYERS_NHWC:
        assert layer.macs == _torch_macs(layer), layer.name
    assert {layer.kind for layer in LAYERS_NHWC} == {"dw"} and not any(layer.nhwc for layer in LAYERS)


def test_compare_outputs_reports_every_difference():
    want = [np.arange(-8, 8, dtype=np.int8).reshape(4, 4)]
    assert BK.compare_outputs([want[0].copy()], want) is None
    wrong = want[0].copy()
    wrong[2, 3] += 1
    assert "1 of 16 bytes differ" in BK.compare_outputs([wrong], want)
    assert "int16" in BK.compare_outputs([want[0].astype(np.int16)], want)
    assert "[16]" in BK.compare_outputs([want[0].reshape(16)], want)
    assert "2 outputs" in BK.compare_outputs([want[0], want[0]], want)


def test_code_bytes_walk_the_kernel_calls_only():
    funcs = {
        0x100: Function("mx_k_cortex_m_quantized_linear_out", 0x100, 40, calls={0x200, 0x300}),
        0x200: Function("arm_fully_connected_s8", 0x200, 100, calls={0x400, 0x500}),
        0x300: Function("memcpy", 0x300, 1000, calls={0x600}),  # libc: shared, not the kernel's
        0x400: Function("helper", 0x400, 8, file="arm_nn_vec_mat_mult_t_s8.c", calls={0x200}),  # static, a cycle
        0x500: Function("arm_nn_vec_mat_mult_t_s8", 0x500, 300),
        0x600: Function("arm_never_reached", 0x600, 5000),  # reached only through libc
    }
    by_name = {f.name: a for a, f in funcs.items()}
    assert BK.reachable_code_bytes(funcs, by_name, "mx_k_cortex_m_quantized_linear_out") == 40 + 100 + 8 + 300
    with pytest.raises(RuntimeError, match="not in the firmware"):
        BK.reachable_code_bytes(funcs, by_name, "mx_k_cortex_m_softmax_out")


def test_a_partial_run_keeps_the_rows_it_did_not_measure(tmp_path):
    path = tmp_path / "figures.json"
    path.write_text(json.dumps({BK.TABLE: {"a/m55": {"instr": 5}, "b/m55": {"instr": 7}}, "other": {"x": {"y": 1}}}))
    store = FigureStore(path)
    store.new[BK.TABLE] = {"a/m55": {"instr": 4}}
    BK.keep_unmeasured(store)
    store.save()
    saved = json.loads(path.read_text())
    assert saved == {BK.TABLE: {"a/m55": {"instr": 4}, "b/m55": {"instr": 7}}, "other": {"x": {"y": 1}}}


def _corrupting(prepare):
    def wrapped(layer, board, workdir, seed=0):
        p = prepare(layer, board, workdir, seed)
        if layer.name == WRONG:
            bad = p.want[0].copy()
            bad.view(np.uint8).flat[0] ^= 1  # one bit of the first element (int8 or float32)
            p = dataclasses.replace(p, want=[bad])
        return p

    return wrapped


@pytest.mark.slow
@NEEDS_ARM_QEMU
def test_benchmark_on_corstone_300(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(BK, "prepare", _corrupting(BK.prepare))
    store = FigureStore(tmp_path / "figures.json")
    rc = BK.main(["--dtype", "int8", "--boards", "corstone-300", "--layers", *GOOD, WRONG], store=store)
    store.save()
    out = capsys.readouterr()
    assert rc == 1  # the corrupted layer fails the run
    assert "Arm's columns need a CMSIS-NN tree" in out.out
    saved = json.loads((tmp_path / "figures.json").read_text())
    assert FP32.TABLE not in saved  # --dtype int8: the fp32 table is not run
    rows = saved[BK.TABLE]
    assert WRONG + "/corstone-300" not in rows or not rows[WRONG + "/corstone-300"]
    assert "outputs differ from the host runtime: output 0: 1 of" in out.out
    assert "bench-kernels: corstone-300: fc256to64" in out.err  # progress on stderr
    for name in GOOD:
        figures = rows[f"{name}/corstone-300"]
        macs = _torch_macs(BY_NAME[name])
        assert figures["instr"] > macs / 32  # no int8 MVE instruction does more than 16 MACs (two per beat pair)
        assert figures["instr/MAC"] == pytest.approx(figures["instr"] / macs)
        assert 100 < figures["code B"] < 64 * 1024
        assert "Arm instr" not in figures


@pytest.mark.slow
@NEEDS_ARM_QEMU
def test_fp32_benchmark_on_corstone_300(tmp_path, monkeypatch, capsys):
    """The fp32 table: the same layers exported in fp32, outputs equal to the host's (a corrupted one an error)."""
    monkeypatch.setattr(FP32, "prepare", _corrupting(FP32.prepare))
    store = FigureStore(tmp_path / "figures.json")
    rc = BK.main(["--dtype", "fp32", "--boards", "corstone-300", "--layers", *GOOD, WRONG], store=store)
    store.save()
    out = capsys.readouterr()
    assert rc == 1
    assert "fp32 kernels per layer" in out.out and "int8 kernels" not in out.out
    assert "outputs differ from the host runtime: output 0: 1 of" in out.out
    saved = json.loads((tmp_path / "figures.json").read_text())
    assert BK.TABLE not in saved
    rows = saved[FP32.TABLE]
    assert WRONG + "/corstone-300" not in rows or not rows[WRONG + "/corstone-300"]
    for name in GOOD:
        figures = rows[f"{name}/corstone-300"]
        macs = _torch_macs(BY_NAME[name])
        assert figures["instr"] > macs / 8  # no fp32 MVE instruction does more than 4 multiply-adds
        assert figures["instr/MAC"] == pytest.approx(figures["instr"] / macs)
        assert 100 < figures["code B"] < 64 * 1024
        assert set(figures) == {"instr", "instr/MAC", "code B"}  # no Arm columns: CMSIS-NN has no fp32


def test_fp32_layers_export_to_their_kernel_alone(tmp_path):
    """Each kind of layer in fp32 is one portable kernel call (no quantize, no layout copy to count apart)."""
    for name in ("dw3x3_c16_s2_32x32", "conv1x1_c64to64_s1_25x5", "fc256to64"):
        p = FP32.prepare(BY_NAME[name], "corstone-300", tmp_path)
        assert p.inputs[0].dtype == np.float32 and p.want[0].dtype == np.float32
        assert p.prefixes == FP32.CODE_PREFIXES
        assert p.op.kernel.startswith("mx_k_aten_"), p.op.kernel


def test_fp32_channels_last_rows_run_the_channels_last_depthwise(tmp_path):
    """A `_nhwc` row's convolution reads and writes channels-last tensors (the path of mx_conv2d_f32_dw_nhwc.c);
    its NCHW twin's does not."""
    p = FP32.prepare(BY_NAME["dw3x3_c16_s2_32x32_nhwc"], "corstone-300", tmp_path)
    assert FP32.conv_channels_last(p.pte) and p.op.kernel == "mx_k_aten_convolution_out"
    assert not FP32.conv_channels_last(FP32.prepare(BY_NAME["dw3x3_c16_s2_32x32"], "corstone-300", tmp_path).pte)


def _arm_tree() -> Path:
    root = os.environ.get("CMSIS_NN_DIR")
    if not root:
        pytest.skip("set CMSIS_NN_DIR to an Arm CMSIS-NN source tree (Include/, Source/) for Arm's columns")
    if not (Path(root) / "Include" / "arm_nnfunctions.h").is_file():
        pytest.skip(f"CMSIS_NN_DIR={root} has no Include/arm_nnfunctions.h")
    return Path(root)


@pytest.mark.slow
@NEEDS_ARM_QEMU
def test_arm_columns(tmp_path, capsys):
    tree = _arm_tree()
    store = FigureStore(tmp_path / "figures.json")
    rc = BK.main(["--boards", "corstone-300", "--layers", GOOD[1], "--cmsis-nn", str(tree)], store=store)
    store.save()
    assert rc == 0, capsys.readouterr().out
    figures = json.loads((tmp_path / "figures.json").read_text())[BK.TABLE][f"{GOOD[1]}/corstone-300"]
    macs = _torch_macs(BY_NAME[GOOD[1]])
    assert figures["Arm instr"] > 0 and figures["Arm code B"] > 0
    assert figures["Arm instr/MAC"] == pytest.approx(figures["Arm instr"] / macs)
    assert figures["instr ours/Arm"] == pytest.approx(figures["instr"] / figures["Arm instr"])
    assert figures["code ours/Arm"] == pytest.approx(figures["code B"] / figures["Arm code B"])
