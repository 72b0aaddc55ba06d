"""Memory planner: safe (verified), deterministic, aligned, and at the lower bound on small models."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import front_models as fm
from mcu_export.lower import to_program
from mcu_export.planner import PlanVerificationError, allocate, compute_lifetimes, lower_bound, plan_memory, verify_plan
from mcu_export.planner.allocate import arena_size
from mcu_export.planner.lifetimes import Lifetime, aligned
from mcu_export.planner.permits import overlap_permits
from mcu_export.pte import program as pte


@st.composite
def lifetime_sets(draw):
    n = draw(st.integers(min_value=0, max_value=40))
    steps = draw(st.integers(min_value=1, max_value=30))
    out = []
    for value in range(n):
        first = draw(st.integers(min_value=-1, max_value=steps))
        last = draw(st.integers(min_value=first, max_value=steps))
        size = aligned(draw(st.integers(min_value=0, max_value=5000)))
        out.append(Lifetime(value, size, first, last))
    return out


@settings(max_examples=200, deadline=None)
@given(lifetime_sets())
@pytest.mark.slow
def test_random_plans_verify_and_respect_the_bound(lifetimes):
    offsets, _ = allocate(lifetimes)
    arena = arena_size(lifetimes, offsets)
    verify_plan(lifetimes, offsets, arena)
    assert arena >= lower_bound(lifetimes)
    assert all(off % pte.TENSOR_ALIGNMENT == 0 for off in offsets.values())
    assert allocate(lifetimes) == (offsets, allocate(lifetimes)[1])  # deterministic
    assert allocate(list(reversed(lifetimes)))[0] == offsets  # independent of input order


@settings(max_examples=100, deadline=None)
@given(lifetime_sets())
@pytest.mark.slow
def test_lower_bound_is_reached_without_sharing(lifetimes):
    # Tensors that are all live at once can do no better than the bound, and the allocator gets there.
    stacked = [Lifetime(lt.value, lt.size, 0, 0) for lt in lifetimes]
    offsets, _ = allocate(stacked)
    assert arena_size(stacked, offsets) == lower_bound(stacked) == sum(lt.size for lt in lifetimes)


def test_verifier_catches_overlap_misalignment_and_overflow():
    a, b = Lifetime(0, 64, 0, 2), Lifetime(1, 32, 2, 3)
    verify_plan([a, b], {0: 0, 1: 64}, 96)
    with pytest.raises(PlanVerificationError, match="live together and overlap"):
        verify_plan([a, b], {0: 0, 1: 32}, 96)
    with pytest.raises(PlanVerificationError, match="aligned"):
        verify_plan([a, b], {0: 0, 1: 72}, 128)
    with pytest.raises(PlanVerificationError, match="outside"):
        verify_plan([a, b], {0: 0, 1: 64}, 90)
    # Disjoint lifetimes may share memory.
    verify_plan([a, Lifetime(2, 64, 3, 4)], {0: 0, 2: 0}, 64)


def _toy_plan():
    """in -> k0 -> t1 -> k1 -> out, with a constant weight that is never planned."""
    values = [
        pte.Tensor(pte.ScalarType.FLOAT, [10], [0]),  # 0 input, 40 B -> 48
        pte.Tensor(pte.ScalarType.FLOAT, [4], [0], data_buffer_idx=1),  # 1 constant
        pte.Tensor(pte.ScalarType.FLOAT, [10], [0]),  # 2 temp
        pte.Tensor(pte.ScalarType.FLOAT, [3], [0]),  # 3 output
        pte.TensorList([0, 1]),  # 4
    ]
    chain = pte.Chain(
        inputs=[0], outputs=[3], instructions=[pte.KernelCall(0, [4, 2, 2]), pte.KernelCall(0, [2, 3, 3])]
    )
    plan = pte.ExecutionPlan("forward", values, [0], [3], [chain], [pte.Operator("aten::x", "out")], [0, 0])
    return pte.Program([plan], constant_buffer=[b"", b"\0" * 16])


def test_lifetimes_count_list_members_inputs_and_outputs():
    lifetimes = {lt.value: lt for lt in compute_lifetimes(_toy_plan().method())}
    assert set(lifetimes) == {0, 2, 3}
    assert (lifetimes[0].first, lifetimes[0].last, lifetimes[0].size) == (-1, 0, 48)
    assert (lifetimes[2].first, lifetimes[2].last) == (0, 1)
    assert (lifetimes[3].first, lifetimes[3].last, lifetimes[3].size) == (1, 2, 16)


def test_plan_memory_writes_offsets_into_the_program():
    program = _toy_plan()
    plan = plan_memory(program)
    values = program.method().values
    assert plan.arena_bytes == plan.lower_bound_bytes == 96
    assert program.method().non_const_buffer_sizes == [0, 96]
    assert values[1].allocation_info is None
    for t in plan.tensors:
        assert values[t.value].allocation_info == pte.AllocationDetails(1, t.offset)
    # The input (dead after instruction 0) and the output may share bytes; the temp may not.
    by_value = {t.value: t for t in plan.tensors}
    assert by_value[2].offset not in (by_value[0].offset, by_value[3].offset)


@pytest.mark.parametrize(
    "cls",
    [fm.SmallCnn, fm.Mlp, fm.PoolsAndShapes, fm.Matmuls, fm.LoneBatchNorm, fm.TinyMobileNet],
    ids=lambda c: c.__name__,
)
@pytest.mark.slow
def test_small_models_reach_the_live_set_bound(cls):
    model, inputs = fm.make(cls)
    program, info = to_program(model, inputs)
    memory = info.memory
    print(
        f"{cls.__name__}: arena {memory.arena_bytes} B, lower bound {memory.lower_bound_bytes} B, "
        f"{len(memory.tensors)} planned tensors, order '{memory.strategy}'"
    )
    # at the live-set bound, or below it where outs overlap the inputs they replace
    assert memory.arena_bytes <= memory.lower_bound_bytes
    assert (memory.arena_bytes < memory.lower_bound_bytes) <= (memory.overlaps > 0)
    lifetimes = compute_lifetimes(program.method())
    offsets = {v.value: v.offset for v in memory.tensors}
    verify_plan(lifetimes, offsets, memory.arena_bytes, permits=overlap_permits(program.method(), lifetimes))
    inputs_and_outputs = set(program.method().inputs) | set(program.method().outputs)
    assert inputs_and_outputs <= set(offsets)
