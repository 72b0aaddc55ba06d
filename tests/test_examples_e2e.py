"""Every example model end to end: export, run in the C runtime on the host, compare with torch."""

import numpy as np
import pytest

from example_models import NAMES, exported, model_and_inputs, torch_outputs

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", NAMES)
def test_example_matches_torch_on_host_runtime(name):
    _, inputs = model_and_inputs(name)
    got = exported(name).run(*inputs)
    want = torch_outputs(name)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_example_runs_on_other_inputs(name):
    """One .pte serves any input: a second, different input must also match torch."""
    import torch

    model, inputs = model_and_inputs(name)
    gen = torch.Generator().manual_seed(1234)
    other = tuple(torch.randn(x.shape, generator=gen) for x in inputs)
    got = exported(name).run(*other)[0]
    with torch.no_grad():
        want = model(*other).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_example_report_describes_program(name):
    artifact = exported(name)
    report = artifact.report
    _, inputs = model_and_inputs(name)
    assert report["inputs"] == [{"shape": list(x.shape), "dtype": "float32"} for x in inputs]
    assert report["outputs"][0]["shape"] == list(torch_outputs(name)[0].shape)
    mem = report["memory"]
    # below the live-set bound only with outs over their inputs (fp32 convs in channels-last: KWS, ResNet-8)
    assert mem["lower_bound_bytes"] <= mem["arena_bytes"] or mem["overlaps"] > 0
    if name in ("kws_dscnn", "resnet8"):
        assert mem["channels_last_tensors"] > 0 and mem["arena_bytes"] <= 0.75 * mem["lower_bound_bytes"]
    assert mem["arena_bytes"] == artifact.program.method("forward").non_const_buffer_sizes[1]
    assert sum(report["ops"].values()) == report["instructions"]
    if name in ("kws_dscnn", "resnet8"):  # every BatchNorm there follows a convolution: all folded
        assert not any("batch_norm" in op for op in report["ops"])
