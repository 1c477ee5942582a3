// llm-lower-to-cpu on linalg-level input: matmuls are tiled, vectorized into
// vector FMAs and run under OpenMP; public functions get a C interface with
// their tensor results as trailing out-params; each option turns its stage
// off.
//
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=avx512" | FileCheck %s
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=avx2" | FileCheck %s --check-prefix=AVX2
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=generic" | FileCheck %s --check-prefix=GENERIC
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=avx512 parallel=false" | FileCheck %s --check-prefix=SERIAL
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=avx512 vectorize=false" | FileCheck %s --check-prefix=NOVEC
// RUN: llm-opt %s --verify-each --llm-lower-to-cpu="target=avx512 num-threads=4" | FileCheck %s --check-prefix=THREADS

// The whole module is LLVM dialect.
// CHECK-NOT: func.func
// CHECK-NOT: linalg.
// CHECK-NOT: vector.contract

// Public function: out-param for the result, C wrapper.
// CHECK-LABEL: llvm.func @matmul(
// 8x32 register tile on AVX-512: FMAs on two zmm-sized halves of 32 lanes,
// inside an OpenMP worksharing loop.
// CHECK: omp.parallel
// CHECK: omp.wsloop
// CHECK: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-LABEL: llvm.func @_mlir_ciface_matmul(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.call @matmul(

// Private functions get no C wrapper.
// CHECK-NOT: @_mlir_ciface_helper

// On avx2 the register tile is 4x16.
// AVX2: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// AVX2-NOT: vector<32xf32>

// GENERIC: llvm.intr.fmuladd({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// GENERIC-NOT: vector<16xf32>

// parallel=false: no OpenMP, still vectorized.
// SERIAL-NOT: omp.
// SERIAL: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>
// SERIAL-NOT: omp.

// vectorize=false: OpenMP, scalar loops only.
// NOVEC: omp.wsloop
// NOVEC-NOT: llvm.intr.fmuladd
// NOVEC-NOT: vector<

// num-threads=4 is baked into omp.parallel.
// THREADS: omp.parallel num_threads(

func.func @matmul(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>) -> tensor<256x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x512xf32>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %h = call @helper(%r) : (tensor<256x512xf32>) -> tensor<256x512xf32>
  return %h : tensor<256x512xf32>
}

func.func private @helper(%x: tensor<256x512xf32>) -> tensor<256x512xf32> attributes {no_inline} {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256x512xf32>) outs(%x : tensor<256x512xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}
