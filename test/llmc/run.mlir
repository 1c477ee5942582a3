// `llmc run` on a model given as a file with all inputs: results are written
// to --output-dir and match numpy; nothing is written without --output-dir.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py save %t/a.npy --shape 2,3 --values random:1
// RUN: %python %S/Inputs/npytool.py save %t/b.npy --shape 2,3 --values random:2
// RUN: llmc run %s --input arg0=%t/a.npy --input arg1=%t/b.npy \
// RUN:   --output-dir %t/out | FileCheck %s
// RUN: %python %S/Inputs/npytool.py check %t/out/out0.npy 'a0 + a1' \
// RUN:   %t/a.npy %t/b.npy | FileCheck %s --check-prefix=OUT0
// RUN: %python %S/Inputs/npytool.py check %t/out/out1.npy 'np.maximum(a0 * a1, 0)' \
// RUN:   %t/a.npy %t/b.npy | FileCheck %s --check-prefix=OUT1
//
// Inputs given in any order, without --output-dir: no file is written.
// RUN: cd %t && llmc run %s --input arg1=b.npy --input arg0=a.npy \
// RUN:   | FileCheck %s --check-prefix=NOWRITE
// RUN: test ! -e %t/out0.npy
//
// The reference lowering (--no-opt) and -opt-level 0 agree.
// RUN: llmc run %s --input arg0=%t/a.npy --input arg1=%t/b.npy --no-opt \
// RUN:   --opt-level=0 --output-dir %t/ref | FileCheck %s
// RUN: %python %S/Inputs/npytool.py check %t/ref/out0.npy 'a0 + a1' \
// RUN:   %t/a.npy %t/b.npy | FileCheck %s --check-prefix=OUT0

// CHECK-NOT: not given
// CHECK: out0: tensor<2x3xf32> sum={{-?[0-9.e+-]+}} mean_abs={{[0-9.e+-]+}}
// CHECK-NEXT: out1: tensor<2x3xf32> sum=
// CHECK-NEXT: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (1 run after 0 warm-up)
// CHECK-NEXT: wrote {{.*}}out0.npy
// CHECK-NEXT: wrote {{.*}}out1.npy
// OUT0: match float32 2x3
// OUT1: match float32 2x3
// NOWRITE: out1: tensor<2x3xf32>
// NOWRITE-NOT: wrote

func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %sum = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>)
                    outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %prod = linalg.mul ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>)
                     outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%prod : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  return %sum, %relu : tensor<2x3xf32>, tensor<2x3xf32>
}
