"""The op table carries each int8 kernel's Python reference and scratch-size function, and they resolve."""

import inspect

from mcu_export.ops.table import ALL_OPS, BY_QUALIFIED, CORTEX_M_OPS


def test_every_emitted_cortex_m_op_names_a_reference_that_resolves():
    for op in CORTEX_M_OPS:
        fn = op.reference_fn()
        assert callable(fn) and list(inspect.signature(fn).parameters) == ["a", "out_shape"], op.qualified


def test_every_op_with_a_scratch_argument_names_its_scratch_function():
    for op in ALL_OPS:
        has_scratch_arg = "scratch" in op.arg_names()
        assert bool(op.scratch) == (has_scratch_arg or op.qualified == "cortex_m::quantized_linear.out"), op.qualified
        if op.scratch:
            assert inspect.signature(op.scratch_fn()).parameters["isa"], op.qualified


# Portable ops int8 programs run on quantized bytes where torch has no int8 kernel: their reference is held to
# torch's float operator by their own tests (tests/test_int8_upsample.py).
INT8_DATA_MOVEMENT_REFERENCES = {"aten::upsample_nearest2d.vec_out"}


def test_portable_ops_take_torch_as_their_reference():
    assert all(
        op.reference == ""
        for op in ALL_OPS
        if op.library == "portable" and op.qualified not in INT8_DATA_MOVEMENT_REFERENCES
    )
    for name in INT8_DATA_MOVEMENT_REFERENCES:
        assert BY_QUALIFIED[name].reference_fn() is not None


def test_cost_rules_follow_the_c_enum_and_name_real_arguments():
    """mcu_export/ops/cost.py RULES is mx_cost_rule's order (mx/kernel.h), and each rule reads an argument its op has
    of the kind it needs (a tensor, or an int[] for window)."""
    import re

    from mcu_export.assets import asset_dir
    from mcu_export.ops.cost import RULES, cost_rule
    from mcu_export.ops.table import ALL_OPS

    header = (asset_dir("runtime_c") / "include" / "mx" / "kernel.h").read_text()
    enum = re.search(r"typedef enum mx_cost_rule \{(.*?)\} mx_cost_rule;", header, re.S).group(1)
    assert [n.lower() for n in re.findall(r"^\s*MX_COST_(\w+)", enum, re.M)] == list(RULES)
    ruled = 0
    for op in ALL_OPS:
        rule, arg = cost_rule(op)
        if rule == 0:
            continue
        ruled += 1
        kind = str(op.schema().arguments[arg].type)
        assert kind == ("List[int]" if RULES[rule] == "window" else "Tensor"), (op.qualified, kind)
    assert ruled >= 15
