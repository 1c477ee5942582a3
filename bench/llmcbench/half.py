# ===- half.py - an f32 ONNX model as the f16 model an exporter writes ----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""`to_float16(src, dst)`: the f32 ONNX model `src` with every float tensor
in float16 (initializers, Constant and ConstantOfShape values, graph inputs,
outputs and value_info, Cast targets), as `model.half()` followed by
torch.onnx.export writes it (Debian's torch 1.13 cannot trace a half model on
the CPU) and as onnxconverter-common's convert_float_to_float16 does with
keep_io_types=False (not packaged by Debian). Values beyond f16's range
saturate to +-65504 (masks of -inf stay -inf)."""

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

F16_MAX = float(np.finfo(np.float16).max)


def _half_tensor(t):
    if t.data_type != TensorProto.FLOAT:
        return t
    a = numpy_helper.to_array(t)
    finite = np.isfinite(a)
    a = np.where(finite, np.clip(a, -F16_MAX, F16_MAX), a).astype(np.float16)
    h = numpy_helper.from_array(a, t.name)
    t.CopyFrom(h)
    return t


def _half_type(vi):
    tt = vi.type.tensor_type
    if tt.elem_type == TensorProto.FLOAT:
        tt.elem_type = TensorProto.FLOAT16


def to_float16(src, dst):
    """Writes to `dst` the float16 version of the ONNX model `src`; returns
    the names of the graph inputs that became float16."""
    m = onnx.load(src)
    g = m.graph
    for t in g.initializer:
        _half_tensor(t)
    for n in g.node:
        for attr in n.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                _half_tensor(attr.t)
            if n.op_type == "Cast" and attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.FLOAT16
    halved = [vi.name for vi in g.input
              if vi.type.tensor_type.elem_type == TensorProto.FLOAT]
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        _half_type(vi)
    onnx.checker.check_model(m)
    onnx.save(m, dst)
    return halved
