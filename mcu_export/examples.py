"""The example models shipped in examples/, addressed by name (used by the demo, the benchmark and tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"

EXAMPLES: Dict[str, str] = {
    "kws_dscnn": "kws_dscnn.py:factory",
    "resnet8": "resnet8.py:factory",
    "mnist_mlp": "mnist_mlp.py:factory",
    "autoencoder": "autoencoder.py:factory",
}


def spec(name: str) -> str:
    return str(EXAMPLES_DIR / EXAMPLES[name])
