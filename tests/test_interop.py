"""Interop with ExecuTorch 1.5.1 (the `interop` extra): each runtime runs the other's .pte and matches torch."""

import numpy as np
import pytest

from example_models import NAMES, executorch_pte, exported, model_and_inputs, torch_outputs

executorch_runtime = pytest.importorskip(
    "executorch.runtime", reason="needs executorch==1.5.1 (pip install -e .[interop])"
)
pytestmark = pytest.mark.interop


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_executorch_runtime_runs_our_pte(name):
    _, inputs = model_and_inputs(name)
    program = executorch_runtime.Runtime.get().load_program(exported(name, overlap=False).pte)
    got = program.load_method("forward").execute(list(inputs))
    for g, w in zip(got, torch_outputs(name)):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_our_runtime_runs_executorch_pte(name):
    from mcu_export.runners import run_program_bytes

    _, inputs = model_and_inputs(name)
    got = run_program_bytes(executorch_pte(name), [x.numpy() for x in inputs])
    for g, w in zip(got, torch_outputs(name)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
