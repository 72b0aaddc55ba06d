"""The model families of examples/families/ plus MLPerf Tiny's examples (examples/kws_dscnn.py, resnet8.py,
autoencoder.py; the fourth, VWW, is examples/families/vww_mobilenet_v1.py), addressed by name, with the seeded
inputs and calibration batches that tests/test_model_families.py and tests/support/family_status.py share."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
FAMILIES_DIR = ROOT / "examples" / "families"

# name -> model spec; the MLPerf Tiny examples keep living at examples/ top level.
FAMILIES: Dict[str, str] = {
    **{name: str(ROOT / "examples" / f"{name}.py:factory") for name in ("kws_dscnn", "resnet8", "autoencoder")},
    **{p.stem: f"{p}:factory" for p in sorted(FAMILIES_DIR.glob("[a-z]*.py"))},
}
MLPERF_EXAMPLES = ("kws_dscnn", "resnet8", "autoencoder")  # also covered by tests/test_int8_firmware.py

CALIBRATION_BATCHES = 16
COSINE_INPUTS = 6
COSINE_FLOOR = 0.99
# Global pooling makes seeded-noise inputs look alike, so most of a classifier's output is the same for all of
# them and the cosine above would hold for a program that ignored its input. The centred cosine compares
# only what changes with the input (each output minus fp32 torch's mean output over the inputs); its mean
# over the inputs must reach this floor (measured: ResNet-8 0.93, MobileNetV2 0.97, VWW 0.97).
CENTRED_COSINE_FLOOR = 0.9
# Examples whose fp32 output changes with the input by little more than int8 resolves (strict xfails: a
# better example or a better int8 path turns them into failures to act on).
INPUT_INDEPENDENT = {
    "kws_dscnn": "global average pooling over 25x5 positions of random-noise inputs: outputs of two inputs differ by "
    "~2.5% of their size, about what int8 resolves there (centred cosine 0.80)",
}
# fp32 host runtime against torch: float32 kernels accumulate in another order than torch's
FP32_RTOL, FP32_ATOL = 1e-4, 1e-4


def load(name: str) -> Tuple[torch.nn.Module, tuple]:
    from mcu_export.model_spec import load_model

    model, inputs = load_model(FAMILIES[name])
    return model.eval(), inputs


def batches(like: tuple, n: int, seed: int) -> List[tuple]:
    """n seeded input tuples shaped like `like`: every family's input is a normalised feature map (MFCC,
    image, token features), so a standard normal draw is representative of it."""
    gen = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(x.shape, generator=gen) for x in like) for _ in range(n)]


def calibration(like: tuple) -> List[tuple]:
    return batches(like, CALIBRATION_BATCHES, 123)


def torch_out(model: torch.nn.Module, inputs: tuple) -> np.ndarray:
    with torch.no_grad():
        return model(*inputs).numpy()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def centred_cosines(got, want) -> List[float]:
    """Per input, the cosine of the int8 output and the fp32 output, both minus the fp32 mean output."""
    mean = np.mean([np.asarray(w, np.float64) for w in want], axis=0)
    return [cosine(np.asarray(g, np.float64) - mean, np.asarray(w, np.float64) - mean) for g, w in zip(got, want)]


def export_fp32(model: torch.nn.Module, inputs: tuple):
    from mcu_export.api import export

    return export(model, inputs)


def export_int8(model: torch.nn.Module, inputs: tuple, *, fallback: bool = False):
    """int8, calibrated on CALIBRATION_BATCHES seeded batches; for no board, so one export serves every ISA."""
    from mcu_export.api import export

    calib = calibration(inputs)
    return export(model, inputs, quantize="int8", calibrate=lambda: iter(calib), fallback=fallback)
