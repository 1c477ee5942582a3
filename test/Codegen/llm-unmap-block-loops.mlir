// RUN: llm-opt %s --llm-unmap-block-loops | FileCheck %s
// RUN: llm-opt %s --llm-unmap-block-loops --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: llm-opt %s --canonicalize | FileCheck %s --check-prefix=MAPPED

// The block loop of a CPU kernel loses its #llm.block_loop mapping; a GPU
// mapping stays. Canonicalization then inlines the loop of one iteration,
// which it keeps as a loop while it is mapped (the third run: what
// llm-tile-and-vectorize and llm-count-kernels see).

// CHECK-LABEL: func.func @one_block
// CHECK:       scf.forall (%{{.+}}) in (1) shared_outs
// CHECK-NOT:   mapping
// CHECK:       return
// CANON-LABEL: func.func @one_block
// CANON-NOT:   scf.forall
// CANON:       linalg.generic
// CANON:       return
// MAPPED-LABEL: func.func @one_block
// MAPPED:       scf.forall (%{{.+}}) in (1)
// MAPPED:       {mapping = [#llm.block_loop]}
func.func @one_block(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %r = scf.forall (%i) in (1) shared_outs(%o = %e) -> (tensor<4x16xf32>) {
    %s = tensor.extract_slice %x[0, 0] [4, 16] [1, 1] : tensor<4x16xf32> to tensor<4x16xf32>
    %t = tensor.extract_slice %o[0, 0] [4, 16] [1, 1] : tensor<4x16xf32> to tensor<4x16xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<4x16xf32>) outs(%t : tensor<4x16xf32>) {
    ^bb0(%a: f32, %b: f32):
      %n = arith.negf %a : f32
      linalg.yield %n : f32
    } -> tensor<4x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %g into %o[0, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<4x16xf32>
    }
  } {mapping = [#llm.block_loop]}
  return %r : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @gpu_mapping_kept
// CHECK:       {mapping = [#gpu.block<x>]}
// CANON-LABEL: func.func @gpu_mapping_kept
// CANON:       scf.forall
// CANON:       {mapping = [#gpu.block<x>]}
func.func @gpu_mapping_kept(%m: memref<16xf32>) {
  %c = arith.constant 1.0 : f32
  scf.forall (%i) in (1) {
    memref.store %c, %m[%i] : memref<16xf32>
  } {mapping = [#gpu.block<x>]}
  return
}
