# llmc.calibrate: static W8A8 quantization from samples given as numpy arrays
# (a list of dicts) and as a .npz path; the quantized model compiles with
# llmc.compile, agrees with the f32 model (cosine >= 0.999 on the held-out
# samples, as the report says and as measured here), and its matmuls become
# integer matmuls after llm-fold-quant; errors raise ValueError.
# RUN: %python %s | FileCheck %s

import os
import tempfile

import numpy as np

import llmc

MLP = """
func.func @main(%x: tensor<4x32xf32> {llm.name = "x"}) -> (tensor<4x16xf32> {llm.name = "y"}) {
  %w1 = llm.constant dense<%W1%> : tensor<32x48xf32>
  %w2 = llm.constant dense<%W2%> : tensor<48x16xf32>
  %h = llm.matmul %x, %w1 : (tensor<4x32xf32>, tensor<32x48xf32>) -> tensor<4x48xf32>
  %a = llm.relu %h : tensor<4x48xf32>
  %y = llm.matmul %a, %w2 : (tensor<4x48xf32>, tensor<48x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
"""

rng = np.random.default_rng(3)
w1 = (rng.standard_normal((32, 48)) / 6).astype(np.float32)
w2 = (rng.standard_normal((48, 16)) / 7).astype(np.float32)
hexed = lambda a: '"0x%s"' % a.tobytes().hex().upper()
text = MLP.replace("%W1%", hexed(w1)).replace("%W2%", hexed(w2))
samples = [{"x": rng.standard_normal((4, 32)).astype(np.float32)}
           for _ in range(8)]

result = llmc.calibrate(text, samples, method="minmax")
report = result.report
print("matmuls", report["quantized_matmuls"], "held out",
      report["heldout_samples"], "of", report["calibration_samples"] +
      report["heldout_samples"])
# CHECK: matmuls 2 held out 2 of 8
print("report cosine >= 0.999:",
      all(o["cosine_similarity"] >= 0.999 for o in report["outputs"]))
# CHECK: report cosine >= 0.999: True
folded = llmc.run_pipeline(result.model, "llm-fold-quant")
print("integer matmuls:", folded.count("llm.matmul_integer"),
      "f32 matmuls:", folded.count("llm.matmul %"))
# CHECK: integer matmuls: 2 f32 matmuls: 0

f32 = llmc.compile(text)
q = llmc.compile(result.model)
for s in samples[-2:]:
    a, b = f32(s["x"]).astype(np.float64), q(s["x"]).astype(np.float64)
    cos = float(a.ravel() @ b.ravel() / np.linalg.norm(a) / np.linalg.norm(b))
    print("measured cosine >= 0.999:", cos >= 0.999)
# CHECK: measured cosine >= 0.999: True
# CHECK: measured cosine >= 0.999: True

# The same samples as a stacked .npz file, with percentile and per-channel
# weights.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "calib.npz")
    np.savez(path, x=np.stack([s["x"] for s in samples]))
    r2 = llmc.calibrate(text, path, method="percentile", percentile=99.9,
                        per_channel_weights=True, holdout=1)
    print(r2.report["method"], r2.report["percentile"],
          r2.report["per_channel_weights"], r2.report["heldout_samples"])
# CHECK: percentile 99.9 True 1

for bad in [dict(method="kl"), dict(percentile=0, method="percentile"),
            dict(smooth_alpha=3)]:
    try:
        llmc.calibrate(text, samples, **bad)
        print("no error")
    except ValueError as e:
        print("ValueError:", str(e).splitlines()[0])
# CHECK: ValueError: calibrate: method must be "minmax", "percentile" or "entropy", got 'kl'
# CHECK: ValueError: invalid option 'percentile=0.0': expected a number in (0, 100]
# CHECK: ValueError: invalid option 'smooth-alpha=3.0': expected a number in [0, 1] (0: off)
try:
    llmc.calibrate(text, [{"z": samples[0]["x"]}])
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
# Samples given as dicts name the inputs.
# CHECK: ValueError: calibration data 'sample 0': 'z' is not an input of the model (its inputs: x)

for bad in [dict(fp8="no"), dict(holdout=-1), dict(threads=0),
            dict(method="entropy", percentile=99.0), dict(bits=4)]:
    try:
        llmc.calibrate(text, samples, **bad)
        print("no error")
    except ValueError as e:
        print("ValueError:", str(e).splitlines()[0])
# CHECK: ValueError: calibrate: fp8 must be True or False, got 'no'
# CHECK: ValueError: calibrate: holdout must be >= 0, got -1
# CHECK: ValueError: calibrate: threads must be in [1, 1024], got 0
# CHECK: ValueError: calibrate: percentile applies to method="percentile" only
# CHECK: ValueError: calibrate: bits must be 8
# Samples given as sequences of arrays are positional (arg0 = the input x).
r3 = llmc.calibrate(text, [[s["x"]] for s in samples], method="minmax")
print("positional:", r3.report["quantized_matmuls"],
      r3.model == result.model)
# CHECK: positional: 2 True
try:
    llmc.calibrate(text, samples[0])
except ValueError as e:
    print("ValueError:", str(e))
# CHECK: ValueError: calibrate: inputs must be a path or a list of samples (each a dict of arrays), not one dict
