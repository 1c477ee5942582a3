// A transformer-like block at the llm level (embedding gather, matmul with a
// transposed weight, layer_norm, softmax, gelu, transpose, reduce_sum,
// concat, slice), big enough that llm-lower-to-cpu tiles, vectorizes and
// parallelizes it. Its printed results must be identical to those of the
// plain upstream lowering (no tiling, no vectors, no OpenMP): every
// elementwise/reduction result is computed in the same order by both, and
// the matmul data are small integers, so the vector FMAs are exact too.
// The polynomial exp/tanh/erf (llm-approximate-math) differ from libm in the
// last bit: they are off here (approximate-math=false) and checked against
// numpy in test/Integration/math-approx.mlir.
//
// RUN: llm-opt %s --convert-llm-to-linalg | mlir-opt --inline --linalg-fuse-elementwise-ops \
// RUN:   --eliminate-empty-tensors \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --canonicalize --cse --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --convert-linalg-to-loops --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --convert-vector-to-llvm --convert-math-to-llvm --convert-math-to-libm --convert-arith-to-llvm --convert-index-to-llvm \
// RUN:   --finalize-memref-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | grep -v "base@" > %t.ref
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="approximate-math=false" | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%mlir_lib_dir/libomp.so \
// RUN: | grep -v "base@" > %t.par
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="parallel=false approximate-math=false" | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | grep -v "base@" > %t.ser
// RUN: diff %t.ref %t.par
// RUN: diff %t.ref %t.ser
// RUN: FileCheck %s < %t.par
// RUN: llm-opt %s --pass-pipeline="builtin.module(convert-llm-to-linalg,linalg-fuse-elementwise-ops,func.func(llm-tile-and-vectorize{num-threads=2}))" \
// RUN: | FileCheck %s --check-prefix=STRATEGY

// The strategy really ran on this input: the gather and the matmul (fill
// fused, vectorized) got parallel loops, and so did the row reductions and
// elementwise generics of layer_norm/softmax/gelu and the transpose (the
// layer_norm sums accumulate in f64).
// STRATEGY-LABEL: func.func @block
// STRATEGY:       scf.forall
// STRATEGY:         tensor.extract
// STRATEGY:       scf.forall
// STRATEGY:         linalg.fill
// STRATEGY:         vector.contract
// STRATEGY-COUNT-6: scf.forall {{.*}} -> (tensor<128x{{(512x)?}}f{{32|64}}>)
// STRATEGY:       scf.forall {{.*}} -> (tensor<512x128xf32>)
// STRATEGY-LABEL: func.func @main

// CHECK: matmul
// CHECK-NEXT: [
// CHECK-SAME: [
// CHECK: layer_norm+softmax+gelu+transpose
// CHECK: reduce_sum
// CHECK: concat+slice

func.func private @printMemrefF32(tensor<*xf32>)

func.func @block(%table: tensor<1000x256xf32>, %ids: tensor<128xi64>, %w: tensor<512x256xf32>,
                 %g: tensor<512xf32>, %b: tensor<512xf32>)
    -> (tensor<128x512xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<64x256xf32>) {
  %e = llm.embedding %table, %ids : (tensor<1000x256xf32>, tensor<128xi64>) -> tensor<128x256xf32>
  %h = llm.matmul %e, %w {transpose_b} : (tensor<128x256xf32>, tensor<512x256xf32>) -> tensor<128x512xf32>
  %n = llm.layer_norm %h scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<128x512xf32>, tensor<512xf32>, tensor<512xf32>) -> tensor<128x512xf32>
  %s = llm.softmax %n {axis = -1 : i64} : tensor<128x512xf32>
  %a = llm.gelu %s : tensor<128x512xf32>
  %t = llm.transpose %a {permutation = array<i64: 1, 0>} : (tensor<128x512xf32>) -> tensor<512x128xf32>
  %r = llm.reduce_sum %t {axes = array<i64: 1>} : (tensor<512x128xf32>) -> tensor<512xf32>
  %c = llm.concat %e, %e {axis = 0 : i64} : (tensor<128x256xf32>, tensor<128x256xf32>) -> tensor<256x256xf32>
  %sl = llm.slice %c {starts = array<i64: 100, 0>, limits = array<i64: 228, 256>, strides = array<i64: 2, 1>}
      : (tensor<256x256xf32>) -> tensor<64x256xf32>
  return %h, %t, %r, %sl : tensor<128x512xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<64x256xf32>
}

// table[v, d] = ((7v + 3d) mod 11) - 5, w[n, d] = ((5n + 2d) mod 7) - 3,
// ids[i] = (37i + 11) mod 1000, g[n] = 1 + (n mod 3) / 4, b[n] = (n mod 5) / 8.
func.func @iota2(%init: tensor<?x?xf32>, %p: index, %q: index, %mod: index, %off: f32) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%init : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.muli %i, %p : index
    %bb = arith.muli %j, %q : index
    %s = arith.addi %a, %bb : index
    %m = arith.remui %s, %mod : index
    %x = arith.index_cast %m : index to i32
    %f = arith.sitofp %x : i32 to f32
    %v = arith.subf %f, %off : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c1000 = arith.constant 1000 : index
  %f5 = arith.constant 5.0 : f32
  %f3 = arith.constant 3.0 : f32
  %et = tensor.empty(%c1000, %c256) : tensor<?x?xf32>
  %table_d = call @iota2(%et, %c7, %c3, %c11, %f5) : (tensor<?x?xf32>, index, index, index, f32) -> tensor<?x?xf32>
  %table = tensor.cast %table_d : tensor<?x?xf32> to tensor<1000x256xf32>
  %ew = tensor.empty(%c512, %c256) : tensor<?x?xf32>
  %w_d = call @iota2(%ew, %c5, %c2, %c7, %f3) : (tensor<?x?xf32>, index, index, index, f32) -> tensor<?x?xf32>
  %w = tensor.cast %w_d : tensor<?x?xf32> to tensor<512x256xf32>
  %ids = tensor.generate {
  ^bb0(%i: index):
    %c37 = arith.constant 37 : index
    %a = arith.muli %i, %c37 : index
    %s = arith.addi %a, %c11 : index
    %m = arith.remui %s, %c1000 : index
    %x = arith.index_cast %m : index to i64
    tensor.yield %x : i64
  } : tensor<128xi64>
  %g = tensor.generate {
  ^bb0(%i: index):
    %m = arith.remui %i, %c3 : index
    %x = arith.index_cast %m : index to i32
    %f = arith.sitofp %x : i32 to f32
    %q = arith.constant 0.25 : f32
    %one = arith.constant 1.0 : f32
    %y = arith.mulf %f, %q : f32
    %z = arith.addf %y, %one : f32
    tensor.yield %z : f32
  } : tensor<512xf32>
  %b = tensor.generate {
  ^bb0(%i: index):
    %m = arith.remui %i, %c5 : index
    %x = arith.index_cast %m : index to i32
    %f = arith.sitofp %x : i32 to f32
    %q = arith.constant 0.125 : f32
    %y = arith.mulf %f, %q : f32
    tensor.yield %y : f32
  } : tensor<512xf32>
  %h, %t, %r, %sl = call @block(%table, %ids, %w, %g, %b)
      : (tensor<1000x256xf32>, tensor<128xi64>, tensor<512x256xf32>, tensor<512xf32>, tensor<512xf32>)
      -> (tensor<128x512xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<64x256xf32>)
  vector.print str "matmul\n"
  %hu = tensor.cast %h : tensor<128x512xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  vector.print str "layer_norm+softmax+gelu+transpose\n"
  %tu = tensor.cast %t : tensor<512x128xf32> to tensor<*xf32>
  call @printMemrefF32(%tu) : (tensor<*xf32>) -> ()
  vector.print str "reduce_sum\n"
  %ru = tensor.cast %r : tensor<512xf32> to tensor<*xf32>
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  vector.print str "concat+slice\n"
  %su = tensor.cast %sl : tensor<64x256xf32> to tensor<*xf32>
  call @printMemrefF32(%su) : (tensor<*xf32>) -> ()
  return
}
