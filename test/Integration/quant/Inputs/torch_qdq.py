#!/usr/bin/env python3
# ===- torch_qdq.py - int8 QDQ models exported by torch ------------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Exports int8 QDQ models with Debian's torch 1.13 and checks llmc against
torch's own quantized output.

  torch_qdq.py gen DIR     writes DIR/{ptq,qat}.onnx, DIR/x.npy and
                           DIR/{ptq,qat}.ref.npy (torch's outputs) with
                           DIR/{ptq,qat}.step (the output quantization step)
  torch_qdq.py check DIR NAME ACTUAL(.npy or llmc's output directory)
                           max |actual - torch| must be <= one step

The model is Linear(16, 32) -> ReLU -> reshape/transpose -> Linear(32, 8):
* ptq: FX static post-training quantization (prepare_fx, calibration,
  convert_fx; qnnpack: per-tensor int8 weights, uint8 activations), then
  torch.onnx.export (QuantizeLinear/DequantizeLinear around float Gemm);
* qat: the fake-quant (QAT-prepared) model exported as is: each fake
  quantize becomes a QuantizeLinear -> DequantizeLinear pair.
"""

import os
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")


class Model:
    @staticmethod
    def build():
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = nn.Linear(16, 32)
                self.l2 = nn.Linear(32, 8)

            def forward(self, x):
                h = torch.relu(self.l1(x))
                h = h.reshape(4, 2, 32).transpose(0, 1).reshape(8, 32)
                return self.l2(h)

        return M


def gen(d):
    import torch
    from torch.ao.quantization import (QConfigMapping,
                                       get_default_qconfig_mapping)
    from torch.ao.quantization.quantize_fx import (convert_fx, prepare_fx,
                                                   prepare_qat_fx)
    torch.manual_seed(0)
    torch.backends.quantized.engine = "qnnpack"
    M = Model.build()
    x = torch.randn(8, 16)
    np.save(os.path.join(d, "x.npy"), x.numpy())
    calib = [torch.randn(8, 16) for _ in range(16)]

    m = M().eval()
    p = prepare_fx(m, get_default_qconfig_mapping("qnnpack"),
                   example_inputs=(x,))
    for c in calib:
        p(c)
    q = convert_fx(p)
    with torch.no_grad():
        ref = q(x)
    torch.onnx.export(q, (x,), os.path.join(d, "ptq.onnx"), opset_version=13,
                      input_names=["x"], output_names=["y"])
    np.save(os.path.join(d, "ptq.ref.npy"), ref.numpy())
    with open(os.path.join(d, "ptq.step"), "w") as f:
        f.write(repr(float(q.l2.scale)))

    m = M().train()
    # Non-fused FakeQuantize modules (the fused observer does not export).
    qat = QConfigMapping().set_global(torch.ao.quantization.default_qat_qconfig)
    p = prepare_qat_fx(m, qat, example_inputs=(x,))
    for c in calib:
        p(c)
    p.eval()
    p.apply(torch.ao.quantization.disable_observer)
    with torch.no_grad():
        ref = p(x)
    torch.onnx.export(p, (x,), os.path.join(d, "qat.onnx"), opset_version=13,
                      input_names=["x"], output_names=["y"])
    np.save(os.path.join(d, "qat.ref.npy"), ref.numpy())
    # The step of the fake quantizer on the graph's output.
    out = [n for n in p.graph.nodes if n.op == "output"][0].args[0]
    with open(os.path.join(d, "qat.step"), "w") as f:
        f.write(repr(float(p.get_submodule(out.target).scale.max())))


def check(d, name, actual):
    ref = np.load(os.path.join(d, name + ".ref.npy"))
    if os.path.isdir(actual):  # llmc's --output-dir: its one output
        outs = [f for f in os.listdir(actual) if f.endswith(".npy")]
        assert len(outs) == 1, outs
        actual = os.path.join(actual, outs[0])
    got = np.load(actual)
    step = float(open(os.path.join(d, name + ".step")).read())
    err = float(np.max(np.abs(got.astype(np.float64) - ref)))
    ok = got.shape == ref.shape and err <= step * (1 + 1e-6)
    print(f"{name}: max_abs_diff={err:.6g} step={step:.6g} "
          f"({err / step:.3f} steps) {'PASS' if ok else 'FAIL'}")
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3], sys.argv[4]) else 1)
