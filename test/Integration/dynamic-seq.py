# A dynamic sequence length: one GPT-2 block compiled ONCE with a `?`
# sequence dimension and a declared bound of 32 (examples/generate.py
# --dynamic-seq, i.e. `llm.dim_bounds`), run at lengths 1, 7 (odd) and 32
# (the bound) through the Python package, each checked against the float64
# numpy reference (llmc_check: rtol 1e-4, atol 1e-4), and at 7 against a
# static compile of the same weights (within 1e-5). The memory plan is
# sized at the bound (dynamic-seq.test checks that the arena is the only
# allocation of the lowered code).
# A length beyond the bound is refused with an error naming the dimension,
# the length and the bound, and nothing runs.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_block --d 64 --heads 4 --seq 32 --dynamic-seq 32 --name dyn --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_block --d 64 --heads 4 --seq 1 --name s1 --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_block --d 64 --heads 4 --seq 7 --name s7 --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_block --d 64 --heads 4 --seq 32 --name s32 --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_block --d 64 --heads 4 --seq 33 --name s33 --out-dir %t
# RUN: %python_ext %s %t | FileCheck %s
#
# CHECK: dynamic: inputs (arg0: f32[1x?x64]) bound 32
# CHECK: seq 1: gpt2_block: shape [1, 1, 64] dtype float32 {{.*}} PASS
# CHECK: seq 7: gpt2_block: shape [1, 7, 64] dtype float32 {{.*}} PASS
# CHECK: seq 7: vs static: max abs diff {{.*}} PASS
# CHECK: seq 32: gpt2_block: shape [1, 32, 64] dtype float32 {{.*}} PASS
# CHECK: seq 33: RuntimeError: @main: input #0 dimension 1 (the sequence length) is 33, outside [1, 32]: the model was compiled for sequences of at most 32 (llm.dim_bounds)
# CHECK: seq 1 again: PASS
# CHECK: dynamic-seq: all checks passed

import os
import sys

import numpy as np

import llmc
import llmc_check

d = sys.argv[1]
dyn_path = os.path.join(d, "dyn.mlir")
config, weights = llmc_check.read_example(dyn_path)
model = llmc.compile(dyn_path)  # once, for every length
print("dynamic: inputs (%s) bound %d" % (
    ", ".join("%s: %s[%s]" % (i.name, i.element_type,
                              "x".join("?" if s is None else str(s) for s in i.shape))
              for i in model.inputs), config["seq_bound"]))
ok = True
first = None
for seq in (1, 7, 32):
  x = np.load(os.path.join(d, "s%d.arg0.npy" % seq))
  out = model(x)
  expected = llmc_check.run_reference(config, weights, {"arg0": x}).astype(np.float32)
  sys.stdout.write("seq %d: " % seq)
  ok &= llmc_check.compare(config["kind"], out, expected, 1e-4, 1e-4)
  if seq == 7:  # One static compile (compile time is the test's cost).
    static = llmc.compile(os.path.join(d, "s%d.mlir" % seq))(x)
    diff = float(np.max(np.abs(static.astype(np.float64) - out)))
    good = diff <= 1e-5
    ok &= good
    print("seq %d: vs static: max abs diff %.3g %s" % (seq, diff, "PASS" if good else "FAIL"))
  if seq == 1:
    first = (x, out)

x33 = np.load(os.path.join(d, "s33.arg0.npy"))
try:
  model(x33)
  print("seq 33: ran beyond the bound FAIL")
  ok = False
except RuntimeError as e:
  print("seq 33: RuntimeError: %s" % str(e).strip())

# The model is still usable after the refused call.
again = model(first[0])
good = np.array_equal(again, first[1])
ok &= good
print("seq 1 again: %s" % ("PASS" if good else "FAIL"))
print("dynamic-seq: all checks passed" if ok else "dynamic-seq: FAILED")
sys.exit(0 if ok else 1)
