"""The runner interface: targets are found by class, a board picks its default, and Runner.run checks
inputs once and converts memory order for every target (here a stand-in target that echoes its input)."""

from pathlib import Path

import numpy as np
import pytest

from mcu_export.boards import HostBoard
from mcu_export.errors import RuntimeFailure, UsageError
from mcu_export.runners import Runner, runner_for, targets
from mcu_export.runners.tensors import TensorSpec

NHWC = TensorSpec(dtype=6, shape=(1, 3, 2, 2), dim_order=(0, 2, 3, 1))


class _Echo(Runner):
    """A target added by one class: it hands its input bytes back as the output."""

    name = "echo-test"
    rank = -1

    @classmethod
    def serves(cls, board) -> bool:
        return isinstance(board, HostBoard)

    def open(self, program: Path) -> None:
        self.inputs, self.outputs = (NHWC,), (NHWC,)
        self.seen = []

    def execute(self, inputs):
        self.seen.extend(inputs)
        return list(inputs), {"seconds": 0.0}


Runner.targets.pop(_Echo.name)  # registered only inside the `echo` fixture: other tests keep the real host


@pytest.fixture
def echo():
    Runner.targets[_Echo.name] = _Echo
    try:
        runner = runner_for("host")
        yield runner
    finally:
        Runner.targets.pop(_Echo.name, None)


def test_targets_in_default_order():
    assert list(targets())[:3] == ["host", "qemu", "fvp"]


def test_a_new_target_is_one_class(echo):
    assert isinstance(echo, _Echo) and echo.name in targets()
    echo.open(Path("."))
    x = np.arange(12, dtype=np.float32).reshape(NHWC.shape)
    run = echo.run([x])
    assert echo.seen == [np.ascontiguousarray(x.transpose(0, 2, 3, 1)).tobytes()]  # stored NHWC
    np.testing.assert_array_equal(run.outputs[0], x)  # back to NCHW
    assert (run.board, run.target, run.per_op, run.instructions_per_inference) == ("host", "echo-test", [], None)


def test_inputs_are_checked_before_the_target_runs(echo):
    echo.open(Path("."))
    with pytest.raises(UsageError, match=r"^input 0 \(x.npy\): got float64\[1, 3, 2, 2\], the model expects float32"):
        echo.run([np.zeros(NHWC.shape)], names=["x.npy"])
    with pytest.raises(UsageError, match=r"^the model takes 1 input\(s\), got 2$"):
        echo.run([np.zeros(NHWC.shape, np.float32)] * 2)
    assert echo.seen == []


def test_an_output_of_the_wrong_size_is_a_runtime_failure(echo):
    echo.open(Path("."))
    echo.execute = lambda inputs: ([b"\0" * 4], {"seconds": 0.0})
    with pytest.raises(RuntimeFailure, match=r"host \(echo-test\) returned 4 bytes for output 0, the output has 48"):
        echo.run([np.zeros(NHWC.shape, np.float32)])


def test_unknown_target_lists_the_valid_ones():
    with pytest.raises(UsageError, match=r"unknown target 'renode' \(valid: host, qemu, fvp"):
        runner_for("corstone-300", "renode")
