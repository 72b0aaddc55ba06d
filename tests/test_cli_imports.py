"""Issue 16: the commands that read an export (`run`, `inspect`) and the listings (`boards`, `ops`) never
import torch, which costs 2 s of every start. Each runs in a subprocess where importing torch exits 97 and
names the line that asked for it; the op signatures those commands read instead of torch's schemas must
equal torch's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from mcu_export.ops import signatures
from mcu_export.ops.table import ALL_OPS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _cli_no_torch(*args, also: str = "") -> subprocess.CompletedProcess:
    """`mcu-export ARGS` where importing torch (and the packages named in `also`) exits 97."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", CLI_NO_IMPORT=also)
    return subprocess.run(
        [sys.executable, str(HERE / "support" / "cli_no_torch.py"), *map(str, args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_signatures_file_is_torchs_schemas():
    assert signatures.FILE.read_text() == signatures.generate(), (
        "mcu_export/ops/signatures.json is stale: python -m mcu_export.ops.signatures"
    )
    for op in ALL_OPS:
        sig = signatures.signature(op)
        assert [a.name for a in sig.args] == [a.name for a in op.schema().arguments], op.qualified


# Beyond torch, the listings start without numpy, jinja2 or matplotlib: ~0.15-0.2 s in all (issue 16's 0.3 s).
LISTING_ALSO = "numpy,jinja2,matplotlib"


@pytest.mark.slow
def test_listings_do_not_import_torch():
    boards = _cli_no_torch("boards", also=LISTING_ALSO)
    assert boards.returncode == 0, boards.stderr
    assert "corstone-300" in boards.stdout
    assert "runs on  host, serial" in boards.stdout  # the host board's targets: every target module was asked
    ops = _cli_no_torch("ops", also=LISTING_ALSO)
    assert ops.returncode == 0, ops.stderr
    assert "aten::convolution.out" in ops.stdout and "mve" in ops.stdout
    args = _cli_no_torch("ops", "--args")
    assert args.returncode == 0, args.stderr
    assert "Tensor(a!)" not in args.stdout and " out" in args.stdout


def test_runner_helpers_hold_no_target():
    """runners.targets() skips runners.HELPERS: each of them must define no target, every other module one."""
    import importlib
    import pkgutil

    from mcu_export import runners
    from mcu_export.runners.base import Runner

    for module in pkgutil.iter_modules(runners.__path__):
        mod = importlib.import_module(f"mcu_export.runners.{module.name}")
        own = [
            v
            for v in vars(mod).values()
            if isinstance(v, type) and issubclass(v, Runner) and v is not Runner and v.__module__ == mod.__name__
        ]
        if module.name in runners.HELPERS:
            assert not own, f"runners/{module.name}.py defines a Runner but targets() skips it (runners.HELPERS)"
        else:
            assert own, f"runners/{module.name}.py defines no Runner: add it to runners.HELPERS"


class _Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 4, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


@pytest.mark.slow
def test_run_and_inspect_do_not_import_torch(tmp_path):
    from mcu_export.api import export

    torch.manual_seed(0)
    model = _Tiny().eval()
    x = torch.randn(1, 2, 5, 5)
    out = tmp_path / "out"
    export(model, (x,), board="corstone-300").save(out)
    np.save(tmp_path / "x.npy", x.numpy())
    want = model(x).detach().numpy()

    inspect = _cli_no_torch("inspect", out / "model.pte")
    assert inspect.returncode == 0, inspect.stderr
    assert "aten::convolution.out" in inspect.stdout
    for board in ("host", "corstone-300"):
        target = out / "model.pte" if board == "host" else out
        got = tmp_path / f"{board}.npz"
        run = _cli_no_torch("run", target, "--board", board, "--input", tmp_path / "x.npy", "--output", got)
        assert run.returncode == 0, run.stderr
        np.testing.assert_allclose(np.load(got)["output_0"], want, rtol=1e-5, atol=1e-5)
