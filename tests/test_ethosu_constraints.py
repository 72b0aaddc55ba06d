"""Ethos-U capability checks (mcu_export.ethosu.constraints): every rule just inside and just outside its limit on
U55, U65 and U85, then the same operators compiled by Vela 5.2, which must take exactly the ones not refused."""

import re

import numpy as np
import pytest

from mcu_export.ethosu.constraints import NpuOp, refusal

U55, U65, U85 = "ethos-u55-128", "ethos-u65-256", "ethos-u85-256"
GENERATIONS = (U55, U65, U85)


def window(kind, hw=(8, 8), c=8, k=(3, 3), s=(1, 1), d=(1, 1), pad=(0, 0, 0, 0), m=1, oc=4, n=1, out=None, **kw):
    """A conv/depthwise/pool NpuOp whose output is the floor of TOSA's size formula unless `out` says otherwise."""
    size = [(hw[i] + pad[2 * i] + pad[2 * i + 1] - (k[i] - 1) * d[i] - 1) // max(s[i], 1) + 1 for i in (0, 1)]
    channels = {"conv": oc, "depthwise": c * m}.get(kind, c)
    return NpuOp(kind, ((n, *hw, c),), out or (n, *size, channels), kernel=k, stride=s, dilation=d, pad_tblr=pad,
                 depth_multiplier=m, **kw)  # fmt: skip


def transpose(shape, perm, **kw):
    return NpuOp("transpose", (shape,), tuple(shape[p] for p in perm), perm=perm, **kw)


def ok():
    return dict.fromkeys(GENERATIONS)


def refused(text, gens=GENERATIONS):
    """Refused on `gens` with a message matching `text` (the generation's label is appended: " on U55" etc.)."""
    label = {g: "U55/U65" if set(gens) == {U55, U65} else g.split("-")[1].upper() for g in gens}
    return {g: f"{text} on {label[g]}" if g in gens else None for g in GENERATIONS}


U55_U65 = (U55, U65)
ADD = NpuOp("add", ((1, 4, 4, 8), (1, 4, 4, 8)), (1, 4, 4, 8))
TABLE = NpuOp("table", ((1, 4, 4, 8),), (1, 4, 4, 8))

# (id, op, {accelerator: None, or a regex the reason must match}). Ids ending in "!" are left out of the Vela test:
# no TOSA graph of them exists, mcu-export does not lower them (int16, float), they need a reshape first (a rank-1
# bias), or Vela 5.2 does not validate them (a depthwise output that is not C x M channels compiles).
# fmt: off
CASES = [
    # dtype: int8 only for what we lower; float: the NPU computes integers only
    ("int8 conv", window("conv"), ok()),
    ("int16 conv!", window("conv", dtype="int16"), refused(r"conv on int16 .*lowers int8 only.*")),
    ("float32 add!", NpuOp("add", ADD.inputs, ADD.output, dtype="float32"), refused(r"add on float32 .*integers.*")),
    ("int32 rescale", NpuOp("rescale", ((1, 4, 4, 8),), (1, 4, 4, 8), dtype="int32"), ok()),
    ("int16 table!", NpuOp("table", TABLE.inputs, TABLE.output, dtype="int16"), refused(r"table on int16 .*")),
    # rank and axis sizes
    ("rank 6 table", NpuOp("table", ((1, 2, 2, 2, 2, 8),), (1, 2, 2, 2, 2, 8)), ok()),
    ("rank 7 table", NpuOp("table", ((1,) * 7,), (1,) * 7), refused(r"table tensor of rank 7 .*1\.\.6")),
    ("3-D conv!", NpuOp("conv", ((8, 8, 8),), (6, 6, 4), kernel=(3, 3)), refused(r"conv needs NHWC 4-D shapes.*")),
    ("empty axis!", NpuOp("clamp", ((1, 0, 4),), (1, 0, 4)), refused(r"clamp tensor \(1, 0, 4\) has an empty axis")),
    ("unknown kind!", NpuOp("gather", ((1, 10),), (1, 10)), refused(r"operator kind 'gather' has no Ethos-U .*")),
    ("conv C 65536", window("conv", hw=(2, 2), c=65536, k=(1, 1), oc=1), ok()),
    ("conv C 65537", window("conv", hw=(2, 2), c=65537, k=(1, 1), oc=1), refused(r"conv input channels 65537 > 65536")),
    ("depthwise depth 65537", window("depthwise", hw=(1, 1), c=65537, k=(1, 1)), refused(r"depthwise input .*65537.*")),
    ("max_pool depth 65537", window("max_pool", hw=(2, 2), c=65537, k=(2, 2), s=(2, 2)), refused(r"max_pool input .*")),
    ("fc depth 65536", NpuOp("fully_connected", ((1, 65536),), (1, 2)), ok()),
    ("fc depth 65537", NpuOp("fully_connected", ((1, 65537),), (1, 2)), refused(r"fully_connected input .*65537.*")),
    ("conv width 65537", window("conv", hw=(1, 65537), c=1, k=(1, 1), oc=1), ok()),
    # TOSA's exact output sizes and window arguments
    ("conv 3x3/2 on 9x9", window("conv", hw=(9, 9), s=(2, 2)), ok()),
    ("conv 3x3/2 on 8x8", window("conv", hw=(8, 8), s=(2, 2)), refused(r"conv output height 3 != \(8 \+ .*")),
    ("conv 5 output channels", window("conv", oc=5), ok()),
    ("depthwise channels!", window("depthwise", m=2, out=(1, 6, 6, 8)), refused(r"depthwise .* 1x8 != 1x16 from .*")),
    ("stride 0!", window("conv", s=(0, 1), out=(1, 6, 6, 4)), refused(r"conv kernel 3x3, stride 0x1, .* >= 1.*")),
    ("max_pool pad 2 < 3", window("max_pool", k=(3, 3), pad=(2, 2, 2, 2)), ok()),
    ("max_pool pad 3 = 3", window("max_pool", k=(3, 3), pad=(3,) * 4), refused(r"max_pool padding \(3, .* not .*")),
    ("avg_pool dilation!", window("avg_pool", d=(2, 2), k=(2, 2)), refused(r"avg_pool dilation 2x2: .*")),
    ("conv pad 8 > kernel", window("conv", pad=(8, 8, 8, 8)), ok()),
    # strides: U55/U65 split unpadded, undilated conv and pools, never depthwise; U85 takes them all
    ("conv 3x3/3 padded", window("conv", hw=(7, 7), s=(3, 3), pad=(1, 1, 1, 1)), ok()),
    ("conv 3x3/4 padded", window("conv", hw=(9, 9), s=(4, 4), pad=(1,) * 4), refused(r"conv stride 4x4 > .*", U55_U65)),
    ("conv 3x3/4 unpadded", window("conv", hw=(11, 11), s=(4, 4)), ok()),
    ("conv 3x3/(1,4) dilated", window("conv", hw=(9, 11), s=(1, 4), d=(2, 1)), refused(r"conv stride 1x4 .*", U55_U65)),
    ("conv 8x8/8", window("conv", hw=(32, 32), k=(8, 8), s=(8, 8)), ok()),
    ("depthwise 3x3", window("depthwise", pad=(1, 1, 1, 1)), ok()),
    ("depthwise 3x3/3", window("depthwise", hw=(9, 9), s=(3, 3)), ok()),
    ("depthwise 3x3/4", window("depthwise", hw=(11, 11), s=(4, 4)), refused(r"depthwise stride 4x4 > 3", U55_U65)),
    ("max_pool 4x4/3 padded", window("max_pool", hw=(12, 12), k=(4, 4), s=(3, 3), pad=(1, 0, 1, 0)), ok()),
    ("max_pool 4x4/4 padded", window("max_pool", hw=(15, 15), k=(4, 4), s=(4, 4), pad=(1, 0, 1, 0)),
     refused(r"max_pool stride 4x4 > 3 with padding \(1, 0, 1, 0\).*", U55_U65)),
    ("avg_pool 2x2/2", window("avg_pool", k=(2, 2), s=(2, 2)), ok()),
    ("avg_pool 3x3/4 unpadded", window("avg_pool", hw=(19, 19), k=(3, 3), s=(4, 4)), ok()),
    # avg pool kernels: U55/U65 at most 8x8 when padded
    ("avg_pool 8x8 padded", window("avg_pool", hw=(16, 16), k=(8, 8), pad=(4, 3, 4, 3)), ok()),
    ("avg_pool 9x9 padded", window("avg_pool", hw=(16, 16), k=(9, 9), pad=(4,) * 4),
     refused(r"avg_pool kernel 9x9 > 8x8 with padding \(4, 4, 4, 4\)", U55_U65)),
    ("avg_pool 2x9 padded", window("avg_pool", hw=(8, 16), k=(2, 9), pad=(0, 0, 1, 0)), refused(r".*2x9.*", U55_U65)),
    ("avg_pool 9x9 unpadded", window("avg_pool", hw=(16, 16), k=(9, 9)), ok()),
    ("max_pool 9x9 padded", window("max_pool", hw=(16, 16), k=(9, 9), pad=(4, 4, 4, 4)), ok()),
    # dilation, kernel size, depth multiplier, batch: split by Vela, never refused
    ("conv dilation 4", window("conv", hw=(17, 17), d=(4, 4)), ok()),
    ("conv 3x3 dilation 3 stride 2 padded", window("conv", hw=(9, 9), s=(2, 2), d=(3, 3), pad=(1, 1, 1, 1)), ok()),
    ("conv 65x65", window("conv", hw=(80, 80), c=1, k=(65, 65), oc=1), ok()),
    ("depthwise multiplier 3", window("depthwise", c=1, m=3), ok()),
    ("conv batch 2", window("conv", n=2), ok()),
    ("fc batch 4", NpuOp("fully_connected", ((4, 64),), (4, 10)), ok()),
    ("fc batch mismatch!", NpuOp("fully_connected", ((4, 64),), (2, 10)), refused(r".* 4x64 -> 2x10 .*")),
    ("fc 4-D", NpuOp("fully_connected", ((1, 1, 1, 64),), (1, 1, 1, 10)), ok()),
    # elementwise broadcasting
    ("add", ADD, ok()),
    ("add broadcast ifm2", NpuOp("add", ((1, 4, 4, 8), (1, 1, 1, 8)), (1, 4, 4, 8)), ok()),
    ("mul broadcast both", NpuOp("mul", ((1, 4, 1, 8), (1, 1, 4, 8)), (1, 4, 4, 8)), ok()),
    ("add rank-1 bias!", NpuOp("add", ((1, 4, 4, 8), (8,)), (1, 4, 4, 8)), ok()),
    ("add 8 vs 3", NpuOp("add", ((1, 4, 4, 8), (1, 4, 4, 3)), (1, 4, 4, 8)), refused(r"add of 1x4x4x8 and 1x4x4x3 .*")),
    # data movement
    ("concat axis 0", NpuOp("concat", ((1, 4, 4, 8), (1, 4, 4, 8)), (2, 4, 4, 8), axis=0), ok()),
    ("concat axis -1", NpuOp("concat", ((1, 4, 4, 8), (1, 4, 4, 8)), (1, 4, 4, 16)), ok()),
    ("concat axis 4!", NpuOp("concat", ((1, 4, 4, 8),), (1, 4, 4, 8), axis=4), refused(r"concat axis 4 outside .*")),
    ("concat mismatch!", NpuOp("concat", ((1, 4, 4, 8), (1, 4, 5, 8)), (1, 4, 4, 16)), refused(r"concat of .*")),
    ("pad", NpuOp("pad", ((1, 4, 4, 8),), (1, 204, 4, 10)), ok()),
    ("pad shrinks!", NpuOp("pad", ((1, 4, 4, 8),), (1, 3, 4, 8)), refused(r"pad 1x4x4x8 -> 1x3x4x8 shrinks.*")),
    ("reshape", NpuOp("reshape", ((1, 4, 4, 8),), (16, 8)), ok()),
    ("reshape count!", NpuOp("reshape", ((1, 4, 4, 8),), (16, 9)), refused(r"reshape .* element count 128 -> 144")),
    ("table", TABLE, ok()),
    ("clamp", NpuOp("clamp", ((1, 4, 4, 8),), (1, 4, 4, 8)), ok()),
    ("clamp reshapes!", NpuOp("clamp", ((1, 4, 4, 8),), (1, 16, 8)), refused(r"clamp changes the shape .*")),
    # transpose: U55/U65 limit the axes moved; U85 took every shape tried
    ("transpose NWHC 65536", transpose((1, 2, 65536, 2), (0, 2, 1, 3)), ok()),
    ("transpose NWHC 65537", transpose((1, 2, 65537, 2), (0, 2, 1, 3)),
     refused(r"transpose \(0, 2, 1, 3\) of 1x2x65537x2: moved axes 65537 \(product 65537\) > 65536", U55_U65)),
    ("transpose reversed 256x256", transpose((2, 256, 256, 2), (3, 2, 1, 0)), ok()),
    ("transpose reversed 256x257", transpose((2, 256, 257, 2), (3, 2, 1, 0)),
     refused(r"transpose .*: moved axes 256x257 \(product 65792\) > 65536", U55_U65)),
    ("transpose N<->H 256x257", transpose((2, 256, 257, 2), (1, 0, 2, 3)), ok()),
    ("transpose NCHW 300x300", transpose((1, 300, 300, 2), (0, 3, 1, 2)), ok()),
    ("transpose bad perm!", NpuOp("transpose", ((1, 4, 6, 8),), (1, 6, 4, 8), perm=(0, 2, 2, 3)),
     refused(r"transpose \(0, 2, 2, 3\) of 1x4x6x8 does not give 1x6x4x8")),
]
# fmt: on


@pytest.mark.parametrize("accelerator", GENERATIONS)
@pytest.mark.parametrize("name, op, expected", CASES, ids=[c[0] for c in CASES])
def test_refusal_just_inside_and_outside_each_limit(name, op, expected, accelerator):
    reason = refusal(op, accelerator)
    if expected[accelerator] is None:
        assert reason is None, reason
    else:
        assert reason is not None and "\n" not in reason
        assert re.fullmatch(expected[accelerator], reason), reason


def test_other_configurations_follow_their_generation_and_unknown_ones_are_an_error():
    op = window("depthwise", hw=(11, 11), s=(4, 4))
    assert refusal(op, "ethos-u55-32") == refusal(op, "ethos-u65-512") == "depthwise stride 4x4 > 3 on U55/U65"
    assert refusal(op, "ethos-u85-2048") is None
    with pytest.raises(ValueError, match=r"unknown Ethos-U configuration 'ethos-u75-256' \(valid: ethos-u55-32, "):
        refusal(op, "ethos-u75-256")


# ---- Vela 5.2 on the same operators ---------------------------------------------------------------------------------
def tosa_graph(op: NpuOp) -> bytes:
    """The TOSA graph mcu-export's lowering would give `op` (weights of ones, CMSIS-NN-style requantization)."""
    from mcu_export.ethosu.tosa import TosaGraph

    g = TosaGraph()
    ts, ser = g.ts, g.ser
    q = dict(input_offset=0, filter_offset=0, output_offset=0, activation=(-128, 127))
    out_c = op.output[-1]
    requant = dict(multipliers=[1 << 30] * out_c, shifts=[-8] * out_c)

    def raw(tosa_op, operands, shape, attribute, dtype=ts.DType.INT8):
        out = ser.addIntermediate(list(shape), dtype)
        ser.addOperator(tosa_op, [t.name for t in operands], [out.name], attribute)
        return out

    attr = ts.TosaSerializerAttribute()
    fc = op.kind == "fully_connected"
    shapes = [(op.inputs[0][0], 1, 1, op.inputs[0][-1])] if fc else op.inputs
    xs = [g.input(s, ts.DType.INT32 if op.dtype == "int32" else None) for s in shapes]
    if op.kind in ("conv", "depthwise"):
        (kh, kw), c = op.kernel, op.inputs[0][-1]
        weight = np.ones((out_c, kh, kw, c) if op.kind == "conv" else (kh, kw, c, op.depth_multiplier), np.int8)
        y = g.conv(op.kind, xs[0], weight, None, stride=op.stride, pad_tblr=op.pad_tblr, dilation=op.dilation,
                   out_shape=op.output, **requant, **q)  # fmt: skip
    elif op.kind == "fully_connected":
        n, c_in = shapes[0][0], shapes[0][-1]
        y = g.fully_connected(xs[0], np.ones((out_c, c_in), np.int8), None, batch=n, **requant, **q)
    elif op.kind in ("max_pool", "avg_pool"):
        y = g.pool(op.kind[:3], xs[0], op.kernel, op.stride, op.pad_tblr, op.output)
    elif op.kind in ("add", "mul"):  # int8 -> int32, ADD or MUL (with its shift operand), -> int8
        wide = [
            g.rescale(x, s, ts.DType.INT32, [1 << 30], [1], 0, 0, in_dtype=ts.DType.INT8) for x, s in zip(xs, op.inputs)
        ]
        if op.kind == "add":
            attr.AddAttribute()
            total = raw(ts.Op.ADD, wide, op.output, attr, ts.DType.INT32)
        else:
            attr.MulAttribute()
            total = raw(ts.Op.MUL, [*wide, g.const([0], ts.DType.INT8)], op.output, attr, ts.DType.INT32)
        y = g.rescale(total, op.output, ts.DType.INT8, [1 << 30], [0], 0, 0)
    elif op.kind == "table":
        attr.TableAttribute()
        y = raw(ts.Op.TABLE, [xs[0], g.const(np.arange(-128, 128), ts.DType.INT8)], op.output, attr)
    elif op.kind == "transpose":
        attr.TransposeAttribute(list(op.perm))
        y = raw(ts.Op.TRANSPOSE, xs, op.output, attr)
    elif op.kind == "concat":
        attr.ConcatAttribute(op.axis % len(op.output))
        y = raw(ts.Op.CONCAT, xs, op.output, attr)
    elif op.kind in ("pad", "reshape"):  # the new shape or the pads (all after) are a shape constant
        values = [v for i, o in zip(op.inputs[0], op.output) for v in (0, o - i)] if op.kind == "pad" else op.output
        shape = ser.addConst([len(values)], ts.DType.SHAPE, np.asarray(values, np.int64))
        (attr.PadAttribute if op.kind == "pad" else attr.ReshapeAttribute)()
        extra = [g.const([0], ts.DType.INT8)] if op.kind == "pad" else []
        y = raw(ts.Op.PAD if op.kind == "pad" else ts.Op.RESHAPE, [xs[0], shape, *extra], op.output, attr)
    elif op.kind == "clamp":
        y = g.clamp(xs[0], op.output, -100, 100)
    else:  # rescale
        y = g.rescale(xs[0], op.output, ts.DType.INT8, [1 << 30], [0], 0, 0, in_dtype=ts.DType.INT32)
    g.output(y)
    return g.serialize()


VELA_CASES = [c for c in CASES if not c[0].endswith("!")]


@pytest.mark.slow
@pytest.mark.parametrize("accelerator", GENERATIONS)
@pytest.mark.parametrize("name, op, expected", VELA_CASES, ids=[c[0] for c in VELA_CASES])
def test_vela_takes_exactly_what_is_not_refused(name, op, expected, accelerator):
    """Vela's TOSA path has no CPU fallback: a refused operator fails the compile, an accepted one runs on the NPU."""
    pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import VelaError, compile_tosa

    graph = tosa_graph(op)
    if refusal(op, accelerator) is None:
        result = compile_tosa(graph, accelerator, name=name)
        assert result.estimates["cycles_npu"] > 0 and "CPU operators = 0 " in result.log
    else:
        reasons = r"could not run on NPU|Validation error|Shape rank exceeds maximum allowed"
        with pytest.raises(VelaError, match=reasons):
            compile_tosa(graph, accelerator, name=name)


def raw_graph(inputs, tosa_op, attribute, out_shape, out_dtype, consts=()):
    """One TOSA operator on placeholders [(shape, dtype)] and constants [(shape, dtype, values)]."""
    from mcu_export.ethosu.tosa import TosaGraph

    g = TosaGraph()
    operands = [g.input(shape, dtype) for shape, dtype in inputs]
    operands += [g.ser.addConst(list(shape), dtype, values) for shape, dtype, values in consts]
    out = g.ser.addIntermediate(list(out_shape), out_dtype)
    attr = g.ts.TosaSerializerAttribute()
    getattr(attr, attribute)()
    g.ser.addOperator(getattr(g.ts.Op, tosa_op), [t.name for t in operands], [out.name], attr)
    g.output(out)
    return g.serialize()


@pytest.mark.slow
def test_vela_has_no_cpu_fallback_for_tosa_an_unplaceable_operator_fails_the_compile():
    ts = pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import VelaError, compile_tosa

    padded = window("avg_pool", hw=(16, 16), k=(9, 9), pad=(4, 4, 4, 4))
    with pytest.raises(VelaError, match=r"RuntimeError: Non-passthrough operation \(AvgPool\) could not run on NPU"):
        compile_tosa(tosa_graph(padded), U55)
    with pytest.raises(VelaError, match=r"RuntimeError: Compilation failed: Validation error:"):
        compile_tosa(tosa_graph(window("conv", hw=(8, 8), s=(2, 2))), U85)
    # An operator the generation lacks altogether (GATHER on U55) fails the same way; U85 has it.
    values, index = ((1, 16, 8), ts.DType.INT8), ((1, 4), ts.DType.INT32, np.arange(4, dtype=np.int32).reshape(1, 4))
    gather = raw_graph([values], "GATHER", "GatherAttribute", (1, 4, 8), ts.DType.INT8, [index])
    with pytest.raises(VelaError, match=r"Non-passthrough operation \(Gather\) could not run on NPU"):
        compile_tosa(gather, U55)
    assert "CPU operators = 0 " in compile_tosa(gather, U85).log


@pytest.mark.slow
def test_vela_rejects_float_and_compiles_int16_which_mcu_export_refuses_as_not_lowered():
    ts = pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import VelaError, compile_tosa

    shape = (1, 4, 4, 8)
    float_add = raw_graph([(shape, ts.DType.FP32)] * 2, "ADD", "AddAttribute", shape, ts.DType.FP32)
    with pytest.raises(VelaError, match="Input data type not supported for this operator"):
        compile_tosa(float_add, U85)
    lut = ((513,), ts.DType.INT16, np.zeros(513, np.int16))
    int16_table = raw_graph([(shape, ts.DType.INT16)], "TABLE", "TableAttribute", shape, ts.DType.INT32, [lut])
    for accelerator in (U55, U85):  # although SUPPORTED_OPS.md says U55/U65 TABLE is int8 only
        assert compile_tosa(int16_table, accelerator).estimates["cycles_npu"] > 0
        assert refusal(NpuOp("table", (shape,), shape, dtype="int16"), accelerator)


@pytest.mark.slow
def test_vela_needs_equal_ranks_so_a_rank_1_bias_add_is_lowered_with_a_reshape():
    ts = pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import VelaError, compile_tosa

    unequal = raw_graph([((1, 4, 4, 8), ts.DType.INT32), ((8,), ts.DType.INT32)], "ADD", "AddAttribute",
                        (1, 4, 4, 8), ts.DType.INT32)  # fmt: skip
    with pytest.raises(VelaError, match="Validation error"):
        compile_tosa(unequal, U55)
    assert refusal(NpuOp("add", ((1, 4, 4, 8), (8,)), (1, 4, 4, 8)), U55) is None
    compile_tosa(tosa_graph(NpuOp("add", ((1, 4, 4, 8), (1, 1, 1, 8)), (1, 4, 4, 8))), U55)


@pytest.mark.slow
def test_the_u55_transpose_rule_is_deliberately_short_of_vela():
    pytest.importorskip("tosa_serializer")
    from mcu_export.ethosu.vela import compile_tosa

    op = transpose((2, 2, 300, 300), (2, 3, 0, 1))  # both 300s moved: the documented limit says no, Vela splits it
    assert (
        refusal(op, U55)
        == "transpose (2, 3, 0, 1) of 2x2x300x300: moved axes 300x300 (product 90000) > 65536 on U55/U65"
    )
    assert compile_tosa(tosa_graph(op), U55).estimates["cycles_npu"] > 0
