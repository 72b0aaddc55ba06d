"""The fuzzer's seed corpus: real .pte programs that reach every kernel of the op table, so that libFuzzer's
mutations start from programs the loader accepts and the kernels run, not from bytes it refuses at the header.

    python tests/support/fuzz_corpus.py OUT_DIR      # writes OUT_DIR/<name>.<fp32|int8>.pte, prints coverage

Seeds: the examples (examples/*.py, exported fp32 and int8), the front-half models (front_models.ALL_MODELS,
fp32: together they cover the portable table) and small int8 models, one per group of cortex_m kernels.
Exporting takes minutes, so a seed whose file exists is not exported again (delete the folder to remake it).
Loaded by path (the name `tests` is not importable reliably: tosa-tools installs a top-level `tests`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Set, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _p in (str(ROOT), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

EXAMPLES = ("mnist_mlp", "kws_dscnn", "resnet8", "autoencoder")
# The smallest programs of the set: the quick corpus of tests/test_fuzz.py (fast to export, fast to run).
QUICK = ("front_SmallCnn.fp32", "front_Slicing.fp32", "int8_convs.int8", "int8_attention.int8")


class Int8Convs(nn.Module):
    """conv (NCHW and NHWC), depthwise, transposed conv, bilinear upsampling, both pools, pad, prelu."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.prelu = nn.PReLU(4)

    def forward(self, x):
        y = F.relu(self.conv(x))
        y = F.max_pool2d(self.dw(y), 2) + F.avg_pool2d(y, 2)
        y = self.prelu(self.up(F.pad(y, (1, 1, 1, 1))))
        return F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)


class Int8Attention(nn.Module):
    """linear, layer norm, batch matmul, softmax, log_softmax, transpose, div, minimum/maximum, mul, gelu."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)
        self.norm = nn.LayerNorm(8)

    def forward(self, x, y):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        p = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        z = F.gelu(p @ v) * y
        return torch.log_softmax(torch.maximum(z, y) / (torch.minimum(z, y).abs() + 1.0), dim=-1)


class Int8Fallbacks(nn.Module):
    """int8 around portable kernels: quantize/dequantize at the float edges, and copies on int8 bytes."""

    def forward(self, x):
        a, b = x.split([2, 2], dim=1)
        up = torch.cat([F.interpolate(a, scale_factor=2.0, mode="nearest"), F.interpolate(b, scale_factor=2.0)], 1)
        return up, a.expand(2, 2, 4, 4), torch.sigmoid(b)


INT8_MODELS: Dict[str, Tuple[Callable[[], nn.Module], Tuple[Tuple[int, ...], ...]]] = {
    "int8_convs": (Int8Convs, ((1, 3, 8, 8),)),
    "int8_attention": (Int8Attention, ((1, 6, 8), (1, 6, 8))),
    "int8_fallbacks": (Int8Fallbacks, ((1, 4, 4, 4),)),
}


def _handmade() -> Dict[str, Callable[[], bytes]]:
    """Single-op programs for the kernels no exported model calls: written by hand as ExecuTorch's emitter
    lays them out (cortex_m_programs.py), the cortex_m ones from the kernels' own test cases."""
    import numpy as np

    import cortex_m_cases as cases
    from cortex_m_programs import OpProgram

    def portable(qualified: str, args: Callable[[OpProgram, int], list]) -> bytes:
        p = OpProgram(qualified)
        x = p.input(np.arange(6, dtype=np.float32).reshape(2, 3))
        return p.build(args(p, x), p.planned((2, 3), np.float32))

    rng = lambda: np.random.default_rng(0)  # noqa: E731
    return {
        "op_clone.fp32": lambda: portable("aten::clone.out", lambda p, x: [x, p.null()]),
        "op_full.fp32": lambda: portable("aten::full.out", lambda p, x: [p.ints([2, 3]), p.double(1.5)]),
        "op_clone_dim_order.fp32": lambda: portable(
            "dim_order_ops::_clone_dim_order.out", lambda p, x: [x, p.bool_(False), p.null()]
        ),
        "op_conv2d_nhwc.int8": lambda: cases.conv_case(rng(), nhwc=True).pte,
        "op_depthwise_conv2d_nhwc.int8": lambda: cases.depthwise_case(rng(), nhwc=True).pte,
        "op_avg_pool2d_nhwc.int8": lambda: cases.pool_case(rng(), "avg", nhwc=True).pte,
        "op_max_pool2d_nhwc.int8": lambda: cases.pool_case(rng(), "max", nhwc=True).pte,
    }


def _seeded_inputs(shapes) -> tuple:
    gen = torch.Generator().manual_seed(0)
    return tuple(torch.randn(*s, generator=gen) for s in shapes)


def _export(model: nn.Module, inputs: tuple, int8: bool) -> bytes:
    import model_families

    if int8:
        return model_families.export_int8(model, inputs, fallback=True).pte
    return model_families.export_fp32(model, inputs).pte


def seeds() -> Iterable[Tuple[str, Callable[[], bytes]]]:
    """(file stem, exporter) of every seed, the quick ones first."""
    import front_models as fm

    out: List[Tuple[str, Callable[[], bytes]]] = []
    for cls in fm.ALL_MODELS:
        out.append((f"front_{cls.__name__}.fp32", lambda cls=cls: _export(*fm.make(cls), int8=False)))
    for name, (cls, shapes) in INT8_MODELS.items():
        out.append((f"{name}.int8", lambda cls=cls, shapes=shapes: _int8_seed(cls, shapes)))
    out.extend(_handmade().items())
    for name in EXAMPLES:
        for int8 in (False, True):
            out.append((f"{name}.{'int8' if int8 else 'fp32'}", lambda n=name, q=int8: _export(*_example(n), q)))
    return sorted(out, key=lambda s: s[0] not in QUICK)


def _example(name: str) -> Tuple[nn.Module, tuple]:
    from mcu_export.model_spec import load_model

    model, inputs = load_model(f"{ROOT / 'examples' / name}.py:factory")
    return model.eval(), inputs


def _int8_seed(cls, shapes) -> bytes:
    torch.manual_seed(0)
    return _export(cls().eval(), _seeded_inputs(shapes), int8=True)


def main(out_dir, only: Iterable[str] = ()) -> List[Path]:
    """Writes the missing seeds (all, or the stems in `only`) into out_dir; returns every seed file there."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    wanted = set(only)
    for stem, make in seeds():
        path = out / f"{stem}.pte"
        if (wanted and stem not in wanted) or path.is_file():
            continue
        print(f"fuzz corpus: exporting {stem}", file=sys.stderr, flush=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(make())
        tmp.rename(path)  # a killed export leaves no seed that looks complete
    return sorted(out.glob("*.pte"))


def reached_kernels(files: Iterable[Path]) -> Set[str]:
    """The op-table kernels the programs call: their operators, plus the fused kernels our loader makes of
    hardswish/hardsigmoid runs (the table's `fused_by`), which a program names only through their parts."""
    from mcu_export.ops.table import ALL_OPS
    from mcu_export.pte.reader import read_program

    names = set()
    for f in files:
        for plan in read_program(Path(f).read_bytes()).execution_plan:
            names.update(f"{op.name}.{op.overload}" for op in plan.operators)
    reached = {op.kernel for op in ALL_OPS if f"{op.name}.{op.overload}" in names}
    # A fused kernel is reached when a program has the parts: the Activations model writes both ramps.
    parts = {"aten::add.out", "aten::clamp.out", "aten::div.out"}
    reached |= {op.kernel for op in ALL_OPS if op.fused_by and parts <= names}
    return reached


def unreached(files: Iterable[Path]) -> List[str]:
    from mcu_export.host_runtime import default_ops

    got = reached_kernels(files)
    return [op.kernel for op in default_ops() if op.kernel not in got]


if __name__ == "__main__":
    files = main(sys.argv[1] if len(sys.argv) > 1 else ROOT / "out" / "fuzz" / "corpus", sys.argv[2:])
    missing = unreached(files)
    total = len(files)
    size = sum(f.stat().st_size for f in files)
    print(f"fuzz corpus: {total} programs, {size} bytes; kernels not reached: {', '.join(missing) or 'none'}")
