// RUN: llm-opt %s -split-input-file -llm-count-kernels | FileCheck %s

// Three kernels (the fill and two generics). The fill's and the first
// generic's [4, 8] f32 results are intermediates (128 bytes each); the
// second generic's reaches the return through a reshape, which is no
// kernel.
// CHECK: module attributes {llm.report = {intermediate_bytes = 256 : i64, kernels = 3 : i64}}
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @static(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %r = tensor.collapse_shape %h [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// A dynamic (sequence) dimension counts at the declared bound: the
// intermediate [?, 8] f32 at 16 rows is 512 bytes (it counted 0 before).
// CHECK: module attributes {llm.report = {intermediate_bytes = 512 : i64, kernels = 2 : i64}}
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic(%x: tensor<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  %h = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %h : tensor<?x8xf32>
}
