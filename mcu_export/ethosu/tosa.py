"""TOSA (1.0 INT profile) graphs of the int8 operators, with CMSIS-NN's arithmetic expressed in TOSA terms.

The facts the builders encode, each checked bit for bit against our int8 references (tests/test_int8_tosa_*):
- a CMSIS-NN (multiplier, shift) is a RESCALE with the same multiplier and TOSA shift 31 - shift; CMSIS-NN's
  arm_nn_requantize rounds twice, which is RESCALE's DOUBLE_ROUND (SINGLE_ROUND differs on ties);
- zero points are TOSA tensors: input_zp = -input_offset, weight_zp = -filter_offset, output_zp = output_offset;
- a fused activation is a CLAMP whose bounds are serialized as the raw bytes of an int8 (none for the full int8
  range: RESCALE to int8 saturates already);
- fully connected is a 1x1 CONV2D over [N, 1, 1, C_in] (TOSA 1.0 has no fully-connected operator);
- an elementwise add rescales each input to int32 ((q - zp) << left_shift, then its own multiplier), adds,
  and rescales the sum to int8; each input's two RESCALEs become one wherever one RESCALE keeps every output
  the same (mcu_export.ethosu.add_rescale), which Vela fuses with the ADD into one NPU operation.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from mcu_export.ethosu.add_rescale import add_form


def _ts():
    import tosa_serializer as ts  # imported on first use: tosa-tools is heavy and only the NPU path needs it

    return ts


class TosaGraph:
    """One TOSA graph under construction; tensors are the serializer's, named by `.name`."""

    def __init__(self):
        self.ts = _ts()
        # TOSA 1.0.0 (not the serializer's default 1.1 draft): what Vela 5.2 and ExecuTorch's "TOSA-1.0+INT" speak
        self.ser = self.ts.TosaSerializer(targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)

    # ---- tensors ------------------------------------------------------------------------------
    def input(self, shape: Sequence[int], dtype=None):
        return self.ser.addPlaceholder(list(shape), self.ts.DType.INT8 if dtype is None else dtype)

    def const(self, values, dtype):
        np_dtype = {self.ts.DType.INT8: np.int8, self.ts.DType.INT32: np.int32}[dtype]
        values = np.asarray(values, dtype=np_dtype)
        return self.ser.addConst(list(values.shape), dtype, values)

    def output(self, tensor) -> None:
        self.ser.addOutputTensor(tensor)

    def serialize(self) -> bytes:
        return bytes(self.ser.serialize())

    # ---- operators ----------------------------------------------------------------------------
    def rescale(self, src, shape, out_dtype, multipliers, shifts, in_zp: int, out_zp: int, in_dtype=None,
                rounding=None):  # fmt: skip
        """value * multiplier >> (31 - shift) per CMSIS-NN's (multiplier, shift); per channel when several."""
        ts = self.ts
        in_dtype = ts.DType.INT32 if in_dtype is None else in_dtype
        out = self.ser.addIntermediate(list(shape), out_dtype)
        attr = ts.TosaSerializerAttribute()
        attr.RescaleAttribute(True, rounding or ts.RoundingMode.DOUBLE_ROUND, len(multipliers) > 1, False, False)
        operands = [
            src.name,
            self.const(list(multipliers), ts.DType.INT32).name,
            self.const([31 - s for s in shifts], ts.DType.INT8).name,
            self.const([in_zp], in_dtype).name,
            self.const([out_zp], out_dtype).name,
        ]
        self.ser.addOperator(ts.Op.RESCALE, operands, [out.name], attr)
        return out

    def _rescale_tosa(self, src, shape, out_dtype, multiplier: int, tosa_shift: int, in_zp: int, out_zp: int,
                      in_dtype, double_round: bool):  # fmt: skip
        """One per-tensor RESCALE given in TOSA's own terms (value * multiplier >> tosa_shift)."""
        ts = self.ts
        mode = ts.RoundingMode.DOUBLE_ROUND if double_round else ts.RoundingMode.SINGLE_ROUND
        return self.rescale(src, shape, out_dtype, [multiplier], [31 - tosa_shift], in_zp, out_zp, in_dtype=in_dtype,
                            rounding=mode)  # fmt: skip

    def clamp(self, src, shape, low: int, high: int):
        ts = self.ts
        out = self.ser.addIntermediate(list(shape), ts.DType.INT8)
        attr = ts.TosaSerializerAttribute()
        as_bytes = lambda v: [int(v) & 0xFF]  # noqa: E731  CLAMP bounds are the raw bytes of an int8
        attr.ClampAttribute(as_bytes(low), as_bytes(high), ts.NanPropagationMode.PROPAGATE)
        self.ser.addOperator(ts.Op.CLAMP, [src.name], [out.name], attr)
        return out

    def _activation(self, src, shape, activation: Tuple[int, int]):
        """A fused activation after a RESCALE to int8: a CLAMP, or nothing for the full int8 range (the RESCALE
        saturates to int8 already, and Vela fuses fewer operators)."""
        low, high = activation
        return src if (int(low), int(high)) == (-128, 127) else self.clamp(src, shape, low, high)

    def conv(self, kind: str, src, weight: np.ndarray, bias, *, input_offset: int, filter_offset: int,
             output_offset: int, multipliers: Sequence[int], shifts: Sequence[int], stride: Sequence[int],
             pad_tblr: Sequence[int], dilation: Sequence[int], activation: Tuple[int, int],
             out_shape: Sequence[int], rounding=None):  # fmt: skip
        """kind "conv" (weight [OC, KH, KW, IC]) or "depthwise" (weight [KH, KW, C, M]) -> RESCALE -> CLAMP."""
        ts = self.ts
        bias = np.zeros(out_shape[-1], np.int32) if bias is None else bias
        acc = self.ser.addIntermediate(list(out_shape), ts.DType.INT32)
        attr = ts.TosaSerializerAttribute()
        op = ts.Op.CONV2D if kind == "conv" else ts.Op.DEPTHWISE_CONV2D
        (attr.Conv2dAttribute if kind == "conv" else attr.DepthwiseConv2dAttribute)(
            list(pad_tblr), list(stride), list(dilation), False, ts.DType.INT32
        )
        operands = [
            src.name,
            self.const(weight, ts.DType.INT8).name,
            self.const(bias, ts.DType.INT32).name,
            self.const([-input_offset], ts.DType.INT8).name,
            self.const([-filter_offset], ts.DType.INT8).name,
        ]
        self.ser.addOperator(op, operands, [acc.name], attr)
        q = self.rescale(acc, out_shape, ts.DType.INT8, multipliers, shifts, 0, output_offset, rounding=rounding)
        return self._activation(q, out_shape, activation)

    def fully_connected(self, src, weight: np.ndarray, bias, *, batch: int, multipliers, shifts, **params):
        """src [N, 1, 1, C_in] (reshape before), weight [C_out, C_in]: a 1x1 CONV2D."""
        oc, depth = weight.shape
        return self.conv("conv", src, weight.reshape(oc, 1, 1, depth), bias, multipliers=multipliers,
                         shifts=shifts, stride=(1, 1), pad_tblr=(0, 0, 0, 0), dilation=(1, 1),
                         out_shape=(batch, 1, 1, oc), **params)  # fmt: skip

    def add(self, a, b, shape, p, activation: Tuple[int, int], rounding=None, single_rescale: bool = True):
        """CMSIS-NN's arm_elementwise_add_s8 with its parameters `p` (input_{1,2}_{offset,mult,shift},
        left_shift, out_{mult,shift,offset}). Per operand one RESCALE(int8 -> int32) wherever one keeps every
        output the same (mcu_export.ethosu.add_rescale; Vela then fuses the add into one NPU operation), else
        (and always with single_rescale=False) the chain RESCALE(x 2^left_shift) -> RESCALE(multiplier); ADD
        (SUB for a negative second multiplier); RESCALE to int8; a CLAMP only for an activation narrower than
        int8 (RESCALE saturates to int8 already)."""
        ts = self.ts
        # A subtraction rides on a negative second multiplier (CMSIS-NN's requantization rounds half away from
        # zero at both steps, so it is odd: requantize(x, -m) == -requantize(x, m)); RESCALE takes m >= 0.
        if p["input_1_mult"] < 0:
            raise ValueError("a negative first multiplier has no TOSA form here")
        mode = rounding or ts.RoundingMode.DOUBLE_ROUND
        forms = add_form(p, double_round=mode == ts.RoundingMode.DOUBLE_ROUND) if single_rescale else (None, None)
        scaled: List = []
        for x, i, form in ((a, 1, forms[0]), (b, 2, forms[1])):
            zp = -p[f"input_{i}_offset"]
            if form is not None:
                scaled.append(self._rescale_tosa(x, shape, ts.DType.INT32, form.multiplier, form.shift, zp, 0,
                                                 ts.DType.INT8, form.double_round))  # fmt: skip
                continue
            # (q - zp) << left_shift exactly: multiplier 2^30, TOSA shift 30 - left_shift (CMSIS shift 1 + left_shift)
            wide = self.rescale(x, shape, ts.DType.INT32, [1 << 30], [1 + p["left_shift"]], zp, 0,
                                in_dtype=ts.DType.INT8, rounding=rounding)  # fmt: skip
            scaled.append(self.rescale(wide, shape, ts.DType.INT32, [abs(p[f"input_{i}_mult"])],
                                       [p[f"input_{i}_shift"]], 0, 0, rounding=rounding))  # fmt: skip
        kind, configure = (ts.Op.SUB, "SubAttribute") if p["input_2_mult"] < 0 else (ts.Op.ADD, "AddAttribute")
        total = self._op(kind, scaled, shape, ts.DType.INT32, configure=lambda attr: getattr(attr, configure)())
        q = self.rescale(total, shape, ts.DType.INT8, [p["out_mult"]], [p["out_shift"]], 0, p["out_offset"],
                         rounding=rounding)  # fmt: skip
        return self._activation(q, shape, activation)

    def pool(self, kind: str, src, kernel, stride, pad_tblr, out_shape):
        """kind "max" or "avg" (int32 accumulator, zero points 0: CMSIS-NN's pools keep the scale)."""
        ts = self.ts
        out = self.ser.addIntermediate(list(out_shape), ts.DType.INT8)
        attr = ts.TosaSerializerAttribute()
        if kind == "max":
            attr.MaxPool2dAttribute(list(kernel), list(stride), list(pad_tblr), ts.NanPropagationMode.PROPAGATE)
            self.ser.addOperator(ts.Op.MAX_POOL2D, [src.name], [out.name], attr)
        else:
            attr.AvgPool2dAttribute(list(kernel), list(stride), list(pad_tblr), ts.DType.INT32)
            zps = [self.const([0], ts.DType.INT8).name, self.const([0], ts.DType.INT8).name]
            self.ser.addOperator(ts.Op.AVG_POOL2D, [src.name, *zps], [out.name], attr)
        return out

    # ---- data movement and elementwise ----------------------------------------------------------
    def _shape_const(self, values):
        values = np.asarray(list(values), dtype=np.int64)
        return self.ser.addConst([len(values)], self.ts.DType.SHAPE, values)

    def _op(self, op, operands, out_shape, out_dtype=None, configure=None):
        ts = self.ts
        out = self.ser.addIntermediate(list(out_shape), ts.DType.INT8 if out_dtype is None else out_dtype)
        attr = ts.TosaSerializerAttribute()
        (configure or (lambda a: a.NoneAttribute()))(attr)
        self.ser.addOperator(op, [o.name for o in operands], [out.name], attr)
        return out

    def reshape(self, src, shape):
        return self._op(self.ts.Op.RESHAPE, [src, self._shape_const(shape)], shape,
                        configure=lambda a: a.ReshapeAttribute())  # fmt: skip

    def slice(self, src, start, size):
        return self._op(self.ts.Op.SLICE, [src, self._shape_const(start), self._shape_const(size)], size,
                        configure=lambda a: a.SliceAttribute())  # fmt: skip

    def transpose(self, src, perm, out_shape):
        return self._op(self.ts.Op.TRANSPOSE, [src], out_shape, configure=lambda a: a.TransposeAttribute(list(perm)))

    def pad(self, src, before, after, value: int, out_shape):
        """Constant padding; `before`/`after` per dimension of `src`."""
        amounts = [v for pair in zip(before, after) for v in pair]
        operands = [src, self._shape_const(amounts), self.const([value], self.ts.DType.INT8)]
        return self._op(self.ts.Op.PAD, operands, out_shape, configure=lambda a: a.PadAttribute())

    def concat(self, parts, axis: int, out_shape):
        return self._op(self.ts.Op.CONCAT, parts, out_shape, configure=lambda a: a.ConcatAttribute(axis))

    def table(self, src, lut, shape):
        """int8 lookup: out = lut[x + 128] (TOSA's TABLE indexes an int8 table by the value offset by 128)."""
        return self._op(self.ts.Op.TABLE, [src, self.const(lut, self.ts.DType.INT8)], shape,
                        configure=lambda a: a.TableAttribute())  # fmt: skip

    def widen(self, src, shape, zp: int):
        """int8 -> int32 without the zero point: (q - zp), exactly (RESCALE by 2^30 >> 30)."""
        return self.rescale(src, shape, self.ts.DType.INT32, [1 << 30], [1], zp, 0, in_dtype=self.ts.DType.INT8)

    def mul(self, a, b, shape, *, a_zp: int, b_zp: int, out_zp: int, multiplier: int, shift: int,
            activation: Tuple[int, int] = (-128, 127), rounding=None):  # fmt: skip
        """CMSIS-NN's arm_elementwise_mul_s8: (a - a_zp) * (b - b_zp) in int32, requantized, clamped."""
        ts = self.ts
        wide = [self.widen(a, shape, a_zp), self.widen(b, shape, b_zp)]
        product = self._op(ts.Op.MUL, [*wide, self.const([0], ts.DType.INT8)], shape, ts.DType.INT32,
                           configure=lambda attr: attr.MulAttribute())  # fmt: skip
        q = self.rescale(product, shape, ts.DType.INT8, [multiplier], [shift], 0, out_zp, rounding=rounding)
        return self._activation(q, shape, activation)


def run_reference(graph: bytes, inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    """TOSA's reference model on a serialized graph (raises when it does not call the graph valid)."""
    import tosa_reference_model as rm

    outputs, status = rm.run(graph, list(inputs))
    if status != rm.GraphStatus.TOSA_VALID:
        raise ValueError(f"TOSA reference model: graph status {status}")
    return outputs
