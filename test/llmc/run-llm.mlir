// `llmc run` on an llm-dialect model (matmul + bias, GELU, softmax), checked
// against numpy, with the default and the reference (--no-opt) lowering and
// two threads. A module that the lowering rejects fails with the pass's
// located diagnostic.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py save %t/x.npy --shape 4,8 --values random:1
// RUN: %python %S/Inputs/npytool.py save %t/w.npy --shape 8,16 --values random:2
// RUN: %python %S/Inputs/npytool.py save %t/b.npy --shape 16 --values random:3
// RUN: llmc run %s --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/opt --threads 2 --repeat 3 | FileCheck %s
// RUN: %python %S/Inputs/npytool.py check %t/opt/out0.npy 'softmax(gelu(a0.astype(np.float64) @ a1 + a2)).astype(np.float32)' %t/x.npy %t/w.npy %t/b.npy --rtol 1e-4 --atol 1e-6 \
// RUN:   | FileCheck %s --check-prefix=MATCH
// RUN: llmc run %s --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/ref --no-opt | FileCheck %s
// RUN: %python %S/Inputs/npytool.py check %t/ref/out0.npy 'softmax(gelu(a0.astype(np.float64) @ a1 + a2)).astype(np.float32)' %t/x.npy %t/w.npy %t/b.npy --rtol 1e-4 --atol 1e-6 \
// RUN:   | FileCheck %s --check-prefix=MATCH
// RUN: llmc run %s --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/b.npy \
// RUN:   --output-dir %t/noparallel --pipeline-options="parallel=false vectorize=false" | FileCheck %s
// RUN: %python %S/Inputs/npytool.py check %t/noparallel/out0.npy 'softmax(gelu(a0.astype(np.float64) @ a1 + a2)).astype(np.float32)' %t/x.npy %t/w.npy %t/b.npy --rtol 1e-4 --atol 1e-6 \
// RUN:   | FileCheck %s --check-prefix=MATCH
//
// CHECK: out0: tensor<4x16xf32> sum=
// MATCH: match float32 4x16
//
// RUN: rm -rf %t/fail
// RUN: not llmc run %S/Inputs/pass-failure.mlir --output-dir %t/fail 2>&1 | FileCheck %s --check-prefix=PASSFAIL
// PASSFAIL: pass-failure.mlir:7:8: error: llm-to-linalg: dynamic shapes: the enclosing function declares no bounded sequence dimension
// RUN: test ! -e %t/fail/out0.npy
// RUN: not llmc compile %S/Inputs/pass-failure.mlir -o %t/fail.o --emit=obj 2>&1 | FileCheck %s --check-prefix=PASSFAIL
// RUN: test ! -e %t/fail.o

func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>)
    -> tensor<4x16xf32> {
  %h = llm.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %hb = llm.add %h, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %g = llm.gelu %hb : tensor<4x16xf32>
  %s = llm.softmax %g {axis = -1 : i64} : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
