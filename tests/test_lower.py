"""Lowering: KernelCalls follow each op's out-variant schema, and ExecuTorch's runtime runs the result."""

import pytest
import torch

import front_models as fm
from mcu_export.capture import capture
from mcu_export.lower import lower, to_program
from mcu_export.ops.table import BY_QUALIFIED, OPS
from mcu_export.passes import run_passes
from mcu_export.pte import program as pte

_LOWERED = {}


def lowered(cls):
    if cls not in _LOWERED:
        model, inputs = fm.make(cls)
        program, info = to_program(model, inputs)
        _LOWERED[cls] = (model, inputs, program, info)
    return _LOWERED[cls]


def _check_kind(values, index, typ):
    value = values[index]
    kind = typ.kind()
    if kind == "OptionalType":
        if isinstance(value, pte.Null):
            return
        typ, kind = typ.getElementType(), typ.getElementType().kind()
    if kind == "TensorType":
        assert isinstance(value, pte.Tensor)
    elif kind == "ListType" and typ.getElementType().kind() == "TensorType":
        assert isinstance(value, pte.TensorList) and all(isinstance(values[i], pte.Tensor) for i in value.items)
    elif kind == "ListType" and typ.getElementType().kind() == "FloatType":
        assert isinstance(value, pte.DoubleList)
    elif kind == "ListType":
        assert isinstance(value, pte.IntList) and all(isinstance(values[i], pte.Int) for i in value.items)
    elif kind == "StringType":
        assert isinstance(value, pte.String)
    elif kind == "NumberType":
        assert isinstance(value, (pte.Int, pte.Double, pte.Bool))
    elif kind == "FloatType":
        assert isinstance(value, pte.Double)
    elif kind == "BoolType":
        assert isinstance(value, pte.Bool)
    elif kind == "IntType":
        assert isinstance(value, pte.Int)
    else:
        raise AssertionError(f"unexpected schema type {typ}")


@pytest.mark.parametrize("cls", fm.ALL_MODELS, ids=lambda c: c.__name__)
@pytest.mark.slow
def test_kernel_calls_follow_the_out_schema(cls):
    _, _, program, _ = lowered(cls)
    plan = program.method()
    for instr in plan.chains[0].instructions:
        op = BY_QUALIFIED[plan.operators[instr.op_index].qualified]
        schema = op.schema()
        assert len(instr.args) == len(schema.arguments) + 1, op.qualified
        outs = []
        for arg, index in zip(schema.arguments, instr.args):
            _check_kind(plan.values, index, arg.type)
            if arg.kwarg_only and arg.alias_info is not None and arg.alias_info.is_write:
                outs.append(index)
        ret = instr.args[-1]
        if len(outs) == 1 and isinstance(plan.values[outs[0]], pte.TensorList):
            # `Tensor(a!)[] out` (split_with_sizes_copy): ExecuTorch's emitter returns a second list of them
            outs = plan.values[outs[0]].items
            assert ret != instr.args[-2] and plan.values[ret].items == outs
        elif len(outs) == 1:
            assert ret == outs[0]
        else:
            assert plan.values[ret].items == outs
        for index in outs:  # out tensors are planned, never constants
            assert plan.values[index].data_buffer_idx == 0


@pytest.mark.slow
def test_every_table_op_is_exercised():
    seen = set()
    for cls in fm.ALL_MODELS:
        seen |= set(lowered(cls)[3].op_counts)
    # Ops written as others (hardswish) never appear in a .pte; tests/test_interop_ops.py covers them.
    # clone (remove_noops) and full (fold_constants: it has no inputs) never reach the lowering; their
    # kernels run programs other exporters write (ExecuTorch's clone is _clone_dim_order), and
    # tests/test_kernels_fp32_shape.py and tests/test_interop_ops.py check them.
    never_emitted = {"aten::clone.out", "aten::full.out", "dim_order_ops::_clone_dim_order.out"}
    assert seen == {op.qualified for op in OPS if not op.written_as} - never_emitted


@pytest.mark.slow
def test_program_structure_of_small_cnn():
    model, inputs, program, info = lowered(fm.SmallCnn)
    plan = program.method()
    assert program.constant_buffer[0] == b""
    # Folded BN: two convs with new weights; weights and biases are constants with data.
    conv_w = model.conv1.weight
    sizes = [v.sizes for v in plan.values if isinstance(v, pte.Tensor) and v.data_buffer_idx]
    assert list(conv_w.shape) in sizes
    for v in plan.values:
        if isinstance(v, pte.Tensor):
            # constants contiguous; activations between the convs channels-last (lower/channels_last.py)
            assert v.dim_order == list(range(len(v.sizes))) or (not v.data_buffer_idx and v.dim_order == [0, 2, 3, 1])
            if v.data_buffer_idx:
                assert len(program.constant_buffer[v.data_buffer_idx]) == v.nbytes
    # Operators: one per distinct op, in first-use order.
    names = [op.qualified for op in plan.operators]
    assert len(names) == len(set(names))
    assert names[0] == "aten::convolution.out"
    assert plan.inputs == plan.chains[0].inputs and plan.outputs == plan.chains[0].outputs
    assert plan.values[plan.inputs[0]].sizes == [1, 3, 8, 8]
    # max pool's indices are a planned int64 tensor.
    pool = next(
        i for i in plan.chains[0].instructions if plan.operators[i.op_index].name == "aten::max_pool2d_with_indices"
    )
    indices = plan.values[plan.values[pool.args[-1]].items[1]]
    assert indices.scalar_type == pte.ScalarType.LONG and indices.allocation_info is not None
    # A stack trace per instruction, pointing at front_models.py.
    trace = plan.chains[0].stacktrace
    assert len(trace) == len(plan.chains[0].instructions)
    assert trace[0][-1].filename.endswith("front_models.py") or any(
        f.filename.endswith("front_models.py") for f in trace[0]
    )
    assert info.instructions[0].location.startswith("front_models.py:")
    assert info.instructions[0].location.endswith("in SmallCnn.forward")
    assert sum(info.op_counts.values()) == len(plan.chains[0].instructions)
    assert plan.non_const_buffer_sizes == [0, info.memory.arena_bytes]


def test_outputs_that_are_inputs_constants_or_repeated_get_copies():
    _, _, program, _ = lowered(fm.Passthrough)
    plan = program.method()
    assert len(set(plan.outputs)) == 4
    assert not set(plan.outputs) & set(plan.inputs)
    for index in plan.outputs:
        assert plan.values[index].data_buffer_idx == 0


def test_lower_without_planning_leaves_offsets_empty():
    model, inputs = fm.make(fm.Mlp)
    program, info = lower(run_passes(capture(model, inputs)))
    tensors = [v for v in program.method().values if isinstance(v, pte.Tensor) and not v.data_buffer_idx]
    assert tensors and all(t.allocation_info is None for t in tensors)
    assert info.op_counts == {"aten::addmm.out": 3, "aten::sigmoid.out": 1, "aten::tanh.out": 1}


# --- ExecuTorch's own runtime as the oracle -------------------------------------------------------


@pytest.mark.interop
# ExecuTorch's portable library has no adaptive_max_pool2d kernel
@pytest.mark.parametrize("cls", [m for m in fm.ALL_MODELS if m is not fm.AdaptiveMaxPool], ids=lambda c: c.__name__)
@pytest.mark.slow
def test_executorch_runtime_runs_our_program(cls):
    runtime = pytest.importorskip("executorch.runtime")
    from mcu_export.pte.writer import write_program

    model, inputs = fm.make(cls)
    program, _ = to_program(model, inputs, overlap=False)  # apart: ExecuTorch's kernels keep their own order
    # ExecuTorch's prebuilt runtime only reads constants from the constant segment.
    data = write_program(program, constants="segment")
    method = runtime.Runtime.get().load_program(data).load_method("forward")
    got = method.execute(list(inputs))
    with torch.no_grad():
        want = model(*inputs)
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.interop
@pytest.mark.parametrize(
    "cls",
    [fm.SmallCnn, fm.PoolsAndShapes, fm.LoneBatchNorm, fm.DtypeCast, fm.Slicing, fm.NeuralNetOps],
    ids=lambda c: c.__name__,
)
@pytest.mark.slow
def test_argument_kinds_match_executorch_emitter(cls):
    exir = pytest.importorskip("executorch.exir")
    model, inputs, program, _ = lowered(cls)
    theirs_plan = exir.to_edge(torch.export.export(model, inputs)).to_executorch().executorch_program.execution_plan[0]
    theirs = {}
    for instr in theirs_plan.chains[0].instructions:
        call = instr.instr_args
        op = theirs_plan.operators[call.op_index]
        theirs.setdefault(f"{op.name}.{op.overload}", [type(theirs_plan.values[i].val).__name__ for i in call.args])
    plan = program.method()
    compared = 0
    for instr in plan.chains[0].instructions:
        name = plan.operators[instr.op_index].qualified
        if name in theirs:
            assert [type(plan.values[i]).__name__ for i in instr.args] == theirs[name], name
            compared += 1
    assert compared >= 1
