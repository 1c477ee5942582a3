// RUN: llm-opt %s --llm-map-gpu-kernels="tensor-cores=true" --split-input-file | FileCheck %s

// A bf16 matmul accumulating in f32 with M, N multiples of 64 and K of 32:
// tensor cores. 128 x 128 outputs in 64 x 64 tiles (4 blocks) of 4 warps;
// A and B staged [64][40] in workgroup memory (B n-major); per K tile of 32
// each warp issues 2 x 8 nvvm.mma.sync m16n8k16 on bf16 (operands packed in
// i32), carrying 32 f32 accumulators; C read and written at the fragments'
// positions, the fill before (then a barrier).
// CHECK-LABEL: func.func @bf16
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c4{{.*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c128{{.*}}, {{.*}}) module(@bf16_mma_0) function(@bf16_mma_0) workgroup(%[[AS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>)
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %arg2
// CHECK:           gpu.barrier
// CHECK-COUNT-32:  memref.load %arg2
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c32{{.*}} iter_args
// CHECK:             gpu.barrier
// CHECK-COUNT-16:    memref.store %{{.*}}, %[[AS]]
// CHECK-COUNT-16:    memref.store %{{.*}}, %[[BS]]
// CHECK:             gpu.barrier
// CHECK:             vector.load %[[AS]]{{.*}} {alignment = 4 : i64} : memref<64x40xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK:             vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK-COUNT-16:    nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:             scf.yield
// CHECK-COUNT-32:  memref.store %{{.*}}, %arg2
// CHECK:         } {llm.gpu_strategy = {mma = "m16n8k16", rows = 0 : i64, stages = 2 : i64, strategy = "tiles", tile = array<i64: 64, 64, 32>}}
func.func @bf16(%x: memref<128x64xbf16>, %w: memref<64x128xbf16>, %out: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<128x128xf32>)
    linalg.matmul ins(%x, %w : memref<128x64xbf16>, memref<64x128xbf16>) outs(%out : memref<128x128xf32>)
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// f32 (no f16/bf16 inputs) and a bf16 matmul whose N (96) is no multiple of
// 64 keep the FMA tiles.
// CHECK-LABEL: func.func @no_tensor_cores
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         llm.gpu_strategy = {rows = 0 : i64, stages = 2 : i64, strategy = "tiles", thread_tile = array<i64: 2, 2>, tile = array<i64: 32, 32, 16>}
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         llm.gpu_strategy = {rows = 0 : i64, stages = 2 : i64, strategy = "tiles", thread_tile = array<i64: 2, 2>, tile = array<i64: 32, 32, 16>}
func.func @no_tensor_cores(%x: memref<128x64xf32>, %w: memref<64x128xf32>, %out: memref<128x128xf32>,
                           %xb: memref<128x64xbf16>, %wb: memref<64x96xbf16>, %outb: memref<128x96xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<128x128xf32>)
    linalg.matmul ins(%x, %w : memref<128x64xf32>, memref<64x128xf32>) outs(%out : memref<128x128xf32>)
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%outb : memref<128x96xf32>)
    linalg.matmul ins(%xb, %wb : memref<128x64xbf16>, memref<64x96xbf16>) outs(%outb : memref<128x96xf32>)
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}

// -----

// A demoted f32 matmul (llm-demote-contraction-inputs: the f32 activation
// rounded in the payload, the weight stored in bf16): tensor cores, the
// activation rounded to bf16 as its tile is staged. A payload that reads
// the rounded activation otherwise (here: also adds it) is no MMA.
// CHECK-LABEL: func.func @demoted
// CHECK:         gpu.launch {{.*}} module(@demoted_mma_0) function(@demoted_mma_0) workgroup(%[[AS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>)
// CHECK:           scf.for
// CHECK:             %[[A:.*]] = memref.load %arg0[{{.*}}] : memref<128x64xf32>
// CHECK-NEXT:        %[[AT:.*]] = arith.truncf %[[A]] : f32 to bf16
// CHECK-NEXT:        memref.store %[[AT]], %[[AS]]
// CHECK:             nvvm.mma.sync
// CHECK:         module(@demoted_tiles_1)
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         return
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @demoted(%x: memref<128x64xf32>, %w: memref<64x128xbf16>, %out: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<128x128xf32>)
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<128x64xf32>, memref<64x128xbf16>) outs(%out : memref<128x128xf32>) {
    ^bb0(%a: f32, %b: bf16, %c: f32):
      %at = arith.truncf %a : f32 to bf16
      %ae = arith.extf %at : bf16 to f32
      %be = arith.extf %b : bf16 to f32
      %p = arith.mulf %ae, %be : f32
      %s = arith.addf %c, %p : f32
      linalg.yield %s : f32
    }
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%out : memref<128x128xf32>)
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w : memref<128x64xf32>, memref<64x128xbf16>) outs(%out : memref<128x128xf32>) {
    ^bb0(%a: f32, %b: bf16, %c: f32):
      %at = arith.truncf %a : f32 to bf16
      %ae = arith.extf %at : bf16 to f32
      %be = arith.extf %b : bf16 to f32
      %p = arith.mulf %ae, %be : f32
      %q = arith.addf %p, %ae : f32
      %s = arith.addf %c, %q : f32
      linalg.yield %s : f32
    }
  } {llm.gpu_kernel, mapping = [#gpu.block<x>]}
  return
}
