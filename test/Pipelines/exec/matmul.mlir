// Tiled + vectorized matmuls through llm-lower-to-cpu, run with mlir-runner,
// with OpenMP on and off and for several register tiles. Every element is
// compared with a scalar reference (scf.for loops, not tiled); the corner
// values and sums of squares were computed with numpy (integer-valued data,
// so f32 results are exact):
//   A[i,k] = ((3i + 5k) mod 7) - 3 (+ b for batch b),  B[k,j] = ((2k + 7j) mod 5) - 2
//
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu | \
// RUN:   mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%mlir_lib_dir/libomp.so | FileCheck %s
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="parallel=false" | \
// RUN:   mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="num-threads=3 register-tile=3,8,2" | \
// RUN:   mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%mlir_lib_dir/libomp.so | FileCheck %s
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="vectorize=false target=generic" | \
// RUN:   mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%mlir_lib_dir/libomp.so | FileCheck %s

// 67x45x33: no dimension is a multiple of the tiles.
// CHECK-LABEL: matmul 67x45x33
// CHECK-NEXT: max_abs_diff 0
// CHECK-NEXT: 2
// CHECK-NEXT: -5
// CHECK-NEXT: 54000
// 1x100x64: M too small to split, the parallel loop goes over N.
// CHECK-LABEL: matmul 1x100x64
// CHECK-NEXT: max_abs_diff 0
// CHECK-NEXT: -6
// CHECK-NEXT: -5
// CHECK-NEXT: 3400
// 128x96x64: full tiles only.
// CHECK-LABEL: matmul 128x96x64
// CHECK-NEXT: max_abs_diff 0
// CHECK-NEXT: -6
// CHECK-NEXT: 5
// CHECK-NEXT: 564321
// 67x45x33 with B stored transposed [N, K] (transpose_b): B^T is copied
// back to [K, N] by a tiled, vectorized linalg.transpose (the 45x33 copy
// made in @main goes through the same tiles and peeling).
// CHECK-LABEL: matmul_transpose_b 67x45x33
// CHECK-NEXT: max_abs_diff 0
// CHECK-NEXT: 2
// CHECK-NEXT: -5
// CHECK-NEXT: 54000
// batch_matmul 2x19x40x17
// CHECK-LABEL: batch_matmul 2x19x40x17
// CHECK-NEXT: max_abs_diff 0
// CHECK-NEXT: 1
// CHECK-NEXT: 10
// CHECK-NEXT: 133440

#a_map = affine_map<(i, k) -> (i, k)>
#bmap3 = affine_map<(b, i, k) -> (b, i, k)>


// Inputs --------------------------------------------------------------------

func.func @make_a(%init: tensor<?x?xf32>, %off: index) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#a_map], iterator_types = ["parallel", "parallel"]}
      outs(%init : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %t0 = arith.muli %i, %c3 : index
    %t1 = arith.muli %k, %c5 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c7 : index
    %t4 = arith.addi %t3, %off : index
    %t5 = arith.index_cast %t4 : index to i32
    %f = arith.sitofp %t5 : i32 to f32
    %m3 = arith.constant -3.0 : f32
    %v = arith.addf %f, %m3 : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @make_b(%init: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#a_map], iterator_types = ["parallel", "parallel"]}
      outs(%init : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %t0 = arith.muli %k, %c2 : index
    %t1 = arith.muli %j, %c7 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c5 : index
    %t5 = arith.index_cast %t3 : index to i32
    %f = arith.sitofp %t5 : i32 to f32
    %m2 = arith.constant -2.0 : f32
    %v = arith.addf %f, %m2 : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Scalar reference C = A * B and comparison ---------------------------------

func.func @ref_matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %m step %c1 iter_args(%ci = %c) -> tensor<?x?xf32> {
    %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%cj = %ci) -> tensor<?x?xf32> {
      %s = scf.for %kk = %c0 to %k step %c1 iter_args(%acc = %zero) -> f32 {
        %x = tensor.extract %a[%i, %kk] : tensor<?x?xf32>
        %y = tensor.extract %b[%kk, %j] : tensor<?x?xf32>
        %p = arith.mulf %x, %y : f32
        %q = arith.addf %acc, %p : f32
        scf.yield %q : f32
      }
      %u = tensor.insert %s into %cj[%i, %j] : tensor<?x?xf32>
      scf.yield %u : tensor<?x?xf32>
    }
    scf.yield %r1 : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}

// Prints max |x - y|, x[0,0], x[m-1,n-1] and sum(x*x).
func.func @report(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %res:2 = scf.for %i = %c0 to %m step %c1 iter_args(%d0 = %zero, %s0 = %zero) -> (f32, f32) {
    %inner:2 = scf.for %j = %c0 to %n step %c1 iter_args(%d1 = %d0, %s1 = %s0) -> (f32, f32) {
      %u = tensor.extract %x[%i, %j] : tensor<?x?xf32>
      %v = tensor.extract %y[%i, %j] : tensor<?x?xf32>
      %df = arith.subf %u, %v : f32
      %ad = math.absf %df : f32
      %mx = arith.maximumf %d1, %ad : f32
      %sq = arith.mulf %u, %u : f32
      %ss = arith.addf %s1, %sq : f32
      scf.yield %mx, %ss : f32, f32
    }
    scf.yield %inner#0, %inner#1 : f32, f32
  }
  %mm1 = arith.subi %m, %c1 : index
  %nm1 = arith.subi %n, %c1 : index
  %first = tensor.extract %x[%c0, %c0] : tensor<?x?xf32>
  %last = tensor.extract %x[%mm1, %nm1] : tensor<?x?xf32>
  vector.print str "max_abs_diff "
  vector.print %res#0 : f32
  vector.print %first : f32
  vector.print %last : f32
  vector.print %res#1 : f32
  return
}

// Functions under test (tiled, vectorized, parallel) ------------------------

func.func @mm_67x45x33(%a: tensor<67x33xf32>, %b: tensor<33x45xf32>) -> tensor<67x45xf32> attributes {no_inline} {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %r = linalg.matmul ins(%a, %b : tensor<67x33xf32>, tensor<33x45xf32>) outs(%f : tensor<67x45xf32>) -> tensor<67x45xf32>
  return %r : tensor<67x45xf32>
}

func.func @mm_1x100x64(%a: tensor<1x64xf32>, %b: tensor<64x100xf32>) -> tensor<1x100xf32> attributes {no_inline} {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x100xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x100xf32>) -> tensor<1x100xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x100xf32>) outs(%f : tensor<1x100xf32>) -> tensor<1x100xf32>
  return %r : tensor<1x100xf32>
}

func.func @mm_128x96x64(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>) -> tensor<128x96xf32> attributes {no_inline} {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x96xf32>) outs(%f : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %r : tensor<128x96xf32>
}

func.func @mmt_67x45x33(%a: tensor<67x33xf32>, %bt: tensor<45x33xf32>) -> tensor<67x45xf32> attributes {no_inline} {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : tensor<67x33xf32>, tensor<45x33xf32>) outs(%f : tensor<67x45xf32>) -> tensor<67x45xf32>
  return %r : tensor<67x45xf32>
}

func.func @bmm_2x19x40x17(%a: tensor<2x19x17xf32>, %b: tensor<2x17x40xf32>) -> tensor<2x19x40xf32> attributes {no_inline} {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x19x40xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2x19x40xf32>) -> tensor<2x19x40xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x19x17xf32>, tensor<2x17x40xf32>) outs(%f : tensor<2x19x40xf32>) -> tensor<2x19x40xf32>
  return %r : tensor<2x19x40xf32>
}

// Driver ---------------------------------------------------------------------

func.func @check_mm(%m: index, %n: index, %k: index) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %ea = tensor.empty(%m, %k) : tensor<?x?xf32>
  %a = call @make_a(%ea, %c0) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %eb = tensor.empty(%k, %n) : tensor<?x?xf32>
  %b = call @make_b(%eb) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %ec = tensor.empty(%m, %n) : tensor<?x?xf32>
  %ref = call @ref_matmul(%a, %b, %ec) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %a, %b, %ref : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index

  vector.print str "matmul 67x45x33\n"
  %c67 = arith.constant 67 : index
  %c45 = arith.constant 45 : index
  %c33 = arith.constant 33 : index
  %a1, %b1, %r1 = call @check_mm(%c67, %c45, %c33) : (index, index, index) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  %a1s = tensor.cast %a1 : tensor<?x?xf32> to tensor<67x33xf32>
  %b1s = tensor.cast %b1 : tensor<?x?xf32> to tensor<33x45xf32>
  %o1 = call @mm_67x45x33(%a1s, %b1s) : (tensor<67x33xf32>, tensor<33x45xf32>) -> tensor<67x45xf32>
  %o1d = tensor.cast %o1 : tensor<67x45xf32> to tensor<?x?xf32>
  call @report(%o1d, %r1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()

  vector.print str "matmul 1x100x64\n"
  %c100 = arith.constant 100 : index
  %c64 = arith.constant 64 : index
  %a2, %b2, %r2 = call @check_mm(%c1, %c100, %c64) : (index, index, index) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  %a2s = tensor.cast %a2 : tensor<?x?xf32> to tensor<1x64xf32>
  %b2s = tensor.cast %b2 : tensor<?x?xf32> to tensor<64x100xf32>
  %o2 = call @mm_1x100x64(%a2s, %b2s) : (tensor<1x64xf32>, tensor<64x100xf32>) -> tensor<1x100xf32>
  %o2d = tensor.cast %o2 : tensor<1x100xf32> to tensor<?x?xf32>
  call @report(%o2d, %r2) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()

  vector.print str "matmul 128x96x64\n"
  %c128 = arith.constant 128 : index
  %c96 = arith.constant 96 : index
  %a3, %b3, %r3 = call @check_mm(%c128, %c96, %c64) : (index, index, index) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  %a3s = tensor.cast %a3 : tensor<?x?xf32> to tensor<128x64xf32>
  %b3s = tensor.cast %b3 : tensor<?x?xf32> to tensor<64x96xf32>
  %o3 = call @mm_128x96x64(%a3s, %b3s) : (tensor<128x64xf32>, tensor<64x96xf32>) -> tensor<128x96xf32>
  %o3d = tensor.cast %o3 : tensor<128x96xf32> to tensor<?x?xf32>
  call @report(%o3d, %r3) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()

  vector.print str "matmul_transpose_b 67x45x33\n"
  %ebt = tensor.empty() : tensor<45x33xf32>
  %b1t = linalg.transpose ins(%b1s : tensor<33x45xf32>) outs(%ebt : tensor<45x33xf32>) permutation = [1, 0]
  %o5 = call @mmt_67x45x33(%a1s, %b1t) : (tensor<67x33xf32>, tensor<45x33xf32>) -> tensor<67x45xf32>
  %o5d = tensor.cast %o5 : tensor<67x45xf32> to tensor<?x?xf32>
  call @report(%o5d, %r1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()

  // Batch b of A is A + b; the reference is checked per batch and the
  // printed values are over both batches (x[0,0,0], x[1,18,39], sum).
  vector.print str "batch_matmul 2x19x40x17\n"
  %c19 = arith.constant 19 : index
  %c40 = arith.constant 40 : index
  %c17 = arith.constant 17 : index
  %ea0 = tensor.empty(%c19, %c17) : tensor<?x?xf32>
  %ab0 = call @make_a(%ea0, %c0) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %ab1 = call @make_a(%ea0, %c1) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  %eb4 = tensor.empty(%c17, %c40) : tensor<?x?xf32>
  %bb = call @make_b(%eb4) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %ab0s = tensor.cast %ab0 : tensor<?x?xf32> to tensor<19x17xf32>
  %ab1s = tensor.cast %ab1 : tensor<?x?xf32> to tensor<19x17xf32>
  %bbs = tensor.cast %bb : tensor<?x?xf32> to tensor<17x40xf32>
  %eba = tensor.empty() : tensor<2x19x17xf32>
  %ba0 = tensor.insert_slice %ab0s into %eba[0, 0, 0] [1, 19, 17] [1, 1, 1] : tensor<19x17xf32> into tensor<2x19x17xf32>
  %ba = tensor.insert_slice %ab1s into %ba0[1, 0, 0] [1, 19, 17] [1, 1, 1] : tensor<19x17xf32> into tensor<2x19x17xf32>
  %ebb = tensor.empty() : tensor<2x17x40xf32>
  %bb0 = tensor.insert_slice %bbs into %ebb[0, 0, 0] [1, 17, 40] [1, 1, 1] : tensor<17x40xf32> into tensor<2x17x40xf32>
  %bbb = tensor.insert_slice %bbs into %bb0[1, 0, 0] [1, 17, 40] [1, 1, 1] : tensor<17x40xf32> into tensor<2x17x40xf32>
  %o4 = call @bmm_2x19x40x17(%ba, %bbb) : (tensor<2x19x17xf32>, tensor<2x17x40xf32>) -> tensor<2x19x40xf32>
  // Stack the two batches as a 38x40 matrix and the references likewise.
  %o4c = tensor.collapse_shape %o4 [[0, 1], [2]] : tensor<2x19x40xf32> into tensor<38x40xf32>
  %o4d = tensor.cast %o4c : tensor<38x40xf32> to tensor<?x?xf32>
  %ec4 = tensor.empty(%c19, %c40) : tensor<?x?xf32>
  %r40 = call @ref_matmul(%ab0, %bb, %ec4) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %r41 = call @ref_matmul(%ab1, %bb, %ec4) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %r4 = tensor.concat dim(0) %r40, %r41 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  call @report(%o4d, %r4) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  return
}
