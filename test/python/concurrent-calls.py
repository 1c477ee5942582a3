# Calls of one compiled model from two threads (the extension releases the
# GIL): a model with a run-time index check keeps a status between the
# call and its result, so its calls take turns. One thread passes valid ids
# and must always get numpy's rows, the other an out-of-range id and must
# always get the error; neither sees the other's outcome.
# RUN: %python %s | FileCheck %s
# CHECK: good ok 200, bad errors 200

import threading

import numpy as np

import llmc

MODEL = """
func.func @main(%t: tensor<16x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = llm.embedding %t, %ids : (tensor<16x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
"""

model = llmc.compile(MODEL, cache=False)
table = np.arange(64, dtype=np.float32).reshape(16, 4)
good_ids = np.array([0, 15, -16], dtype=np.int64)
bad_ids = np.array([1, 16, 2], dtype=np.int64)
counts = {"good": 0, "bad": 0}
problems = []


def good():
  for _ in range(200):
    try:
      out = model(table, good_ids)
      if np.array_equal(out, table[good_ids]):
        counts["good"] += 1
      else:
        problems.append("good: wrong rows")
    except Exception as e:  # noqa: BLE001 - any error is a finding
      problems.append("good: %s" % e)


def bad():
  for _ in range(200):
    try:
      model(table, bad_ids)
      problems.append("bad: no error")
    except RuntimeError as e:
      if "index 16 is out of range [-16, 16)" in str(e):
        counts["bad"] += 1
      else:
        problems.append("bad: %s" % e)


threads = [threading.Thread(target=good), threading.Thread(target=bad)]
for t in threads:
  t.start()
for t in threads:
  t.join()
for p in sorted(set(problems)):
  print(p)
print("good ok %d, bad errors %d" % (counts["good"], counts["bad"]))
