# A compiled model never writes its inputs: ops whose destination is an
# input (llm.scatter_nd / scatter_elements update a copy of their data input)
# used to be bufferized in place into the caller's buffer, because one-shot
# bufferization treats function arguments as writable unless told otherwise
# (llm-mark-argument-writability marks them read-only). The caller's numpy
# arrays must be unchanged after the call, and the results correct.
# RUN: %python %s | FileCheck %s

import numpy as np

import llmc

MODEL = """
func.func @main(%data: tensor<4x3xf32>, %idx: tensor<2x1xi64>, %upd: tensor<2x3xf32>,
                %x: tensor<5xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>)
    -> (tensor<4x3xf32>, tensor<5xf32>) {
  %0 = llm.scatter_nd %data, %idx, %upd : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = llm.scatter_elements %x, %i, %u {axis = 0 : i64} : (tensor<5xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<5xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<5xf32>
}
"""

for no_opt in (False, True):
  model = llmc.compile(MODEL, no_opt=no_opt, cache=False)
  data = np.arange(12, dtype=np.float32).reshape(4, 3)
  idx = np.array([[3], [1]], dtype=np.int64)
  upd = -np.ones((2, 3), dtype=np.float32)
  x = np.arange(5, dtype=np.float32)
  i = np.array([4, 0], dtype=np.int64)
  u = np.array([10.0, 20.0], dtype=np.float32)
  copies = [a.copy() for a in (data, idx, upd, x, i, u)]
  out0, out1 = model(data, idx, upd, x, i, u)
  unchanged = all(np.array_equal(a, b) for a, b in zip((data, idx, upd, x, i, u), copies))
  want0 = copies[0].copy()
  want0[[3, 1]] = upd
  want1 = copies[3].copy()
  want1[[4, 0]] = u
  # CHECK: no_opt=False: inputs unchanged True, results correct True
  # CHECK: no_opt=True: inputs unchanged True, results correct True
  print(f"no_opt={no_opt}: inputs unchanged {unchanged}, results correct "
        f"{np.array_equal(out0, want0) and np.array_equal(out1, want1)}")
