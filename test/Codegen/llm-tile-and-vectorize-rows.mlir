// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512}))" | FileCheck %s
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-tile-and-vectorize{target=avx512 vectorize=false}))" | FileCheck %s --check-prefix=NOVEC

// A static 2-D elementwise op marked llm.vectorize_rows (flash attention's
// rescale of its [Tq, Dv] accumulator by a per-row factor) becomes a loop
// over its 32 rows, each row one vector of 40 (not a multiple of the 16
// lanes: LLVM would unroll the row and vectorize across the rows with
// gathers); the per-row factor is broadcast along the row. The marker is
// removed; with vectorize=false the op stays as it is.
// CHECK-LABEL: func.func @rescale_rows
// CHECK: scf.for %[[I:.+]] = %c0 to %c32 step %c1 iter_args(%[[ACC:.+]] = %{{.+}}) -> (tensor<32x40xf32>)
// CHECK:   %[[ROW:.+]] = tensor.extract_slice %[[ACC]][%[[I]], 0] [1, 40] [1, 1]
// CHECK:   %[[S:.+]] = vector.transfer_read {{.*}} : tensor<1xf32>, vector<1x40xf32>
// CHECK:   %[[X:.+]] = vector.transfer_read %[[ROW]]{{.*}} : tensor<1x40xf32>, vector<1x40xf32>
// CHECK:   %[[M:.+]] = arith.mulf %[[X]], %[[S]] : vector<1x40xf32>
// CHECK:   vector.transfer_write %[[M]], {{.*}} : vector<1x40xf32>, tensor<1x40xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: llm.vectorize_rows
// NOVEC-LABEL: func.func @rescale_rows
// NOVEC: linalg.generic
// NOVEC-NOT: llm.vectorize_rows
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rescale_rows(%acc: tensor<32x40xf32>, %alpha: tensor<32xf32>) -> tensor<32x40xf32> {
  %r = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%alpha : tensor<32xf32>) outs(%acc : tensor<32x40xf32>) attrs = {llm.vectorize_rows} {
  ^bb0(%a: f32, %x: f32):
    %m = arith.mulf %x, %a : f32
    linalg.yield %m : f32
  } -> tensor<32x40xf32>
  return %r : tensor<32x40xf32>
}

// A marked row reduction (flash attention's row max and row sum) becomes a
// loop over its 32 rows, each row one vector read of 64 and one
// vector.reduction into the row's accumulator: the max as maxnumf without
// NaN or signed zeros (it only bounds the exponents), the sum reassociated.
// With vectorize=false the ops stay.
// CHECK-LABEL: func.func @row_max_sum
// CHECK: %[[MAX:.+]] = scf.for %[[I:.+]] = %c0 to %c32 step %c1 iter_args(%[[M:.+]] = %{{.+}}) -> (tensor<32xf32>)
// CHECK:   %[[ROW:.+]] = vector.transfer_read %{{.+}}[%[[I]], %c0], %{{.+}} {in_bounds = [true]} : tensor<32x64xf32>, vector<64xf32>
// CHECK:   %[[ACC:.+]] = tensor.extract %[[M]][%[[I]]]
// CHECK:   %[[R:.+]] = vector.reduction <maxnumf>, %[[ROW]], %[[ACC]] fastmath<nnan,nsz> : vector<64xf32> into f32
// CHECK:   tensor.insert %[[R]] into %[[M]][%[[I]]]
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[MAX]]) -> (tensor<32xf32>)
// CHECK:   vector.reduction <add>, %{{.+}}, %{{.+}} fastmath<reassoc,contract> : vector<64xf32> into f32
// CHECK-NOT: linalg.generic
// CHECK-NOT: llm.vectorize_rows
// NOVEC-LABEL: func.func @row_max_sum
// NOVEC: linalg.generic
// NOVEC: linalg.generic
// NOVEC-NOT: llm.vectorize_rows
func.func @row_max_sum(%x: tensor<32x64xf32>, %init: tensor<32xf32>) -> tensor<32xf32> {
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32xf32>) attrs = {llm.vectorize_rows} {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.maximumf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x64xf32>) outs(%m : tensor<32xf32>) attrs = {llm.vectorize_rows} {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %acc, %a : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// A marked row reduction whose body is more than one combining op (here a
// max of squares) is not vectorized: the marker is dropped and the op left to
// the later lowering.
// CHECK-LABEL: func.func @row_reduction_left
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-NOT: llm.vectorize_rows
// CHECK-NOT: vector.reduction
func.func @row_reduction_left(%x: tensor<32x64xf32>, %init: tensor<32xf32>) -> tensor<32xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32xf32>) attrs = {llm.vectorize_rows} {
  ^bb0(%a: f32, %m: f32):
    %sq = arith.mulf %a, %a : f32
    %y = arith.maximumf %sq, %m : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// A marked op reading a boolean (i1) mask is not row-vectorized: a vector of
// i1 would be loaded as packed bits from a tensor stored one byte per element.
// CHECK-LABEL: func.func @bool_mask_left
// CHECK: linalg.generic
// CHECK-NOT: llm.vectorize_rows
// CHECK-NOT: vector.transfer_read
func.func @bool_mask_left(%x: tensor<8x24xf32>, %m: tensor<8x24xi1>, %init: tensor<8x24xf32>) -> tensor<8x24xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<8x24xf32>, tensor<8x24xi1>) outs(%init : tensor<8x24xf32>) attrs = {llm.vectorize_rows} {
  ^bb0(%a: f32, %keep: i1, %o: f32):
    %y = arith.select %keep, %a, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<8x24xf32>
  return %r : tensor<8x24xf32>
}

// Partial row sums (a row of 64 as 4 x 16: the reduction over the 4 between
// the row and the 16 contiguous lanes) become a
// loop over the rows, each a multi_reduction over dim 1 of a vector<1x4x16>
// (which llm-lower-vectors lowers to whole-vector adds).
// CHECK-LABEL: func.func @partial_row_sums
// CHECK: scf.for %{{.+}} = %c0 to %c8 step %c1 iter_args(%{{.+}} = %{{.+}}) -> (tensor<8x16xf32>)
// CHECK:   vector.transfer_read {{.*}} : tensor<1x4x16xf32>, vector<1x4x16xf32>
// CHECK:   vector.multi_reduction <add>, %{{.+}}, %{{.+}} [1] : vector<1x4x16xf32> to vector<1x16xf32>
// CHECK-NOT: llm.vectorize_rows
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#part = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @partial_row_sums(%x: tensor<8x4x16xf32>, %init: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = linalg.generic {indexing_maps = [#id3, #part], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<8x4x16xf32>) outs(%init : tensor<8x16xf32>) attrs = {llm.vectorize_rows} {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A tensor.pad marked llm.vectorize_rows that pads the end of each row
// (flash attention's tiles, padded_head_dims: [64, 15] -> [64, 16]) becomes
// a loop over the 64 rows, each one read of 16 elements that may run past
// the row (no in_bounds: lane 15 takes the padding value, a masked load) and
// one in-bounds write. With vectorize=false the pad stays.
// CHECK-LABEL: func.func @pad_rows
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<64x16xf32>
// CHECK: scf.for %[[I:.+]] = %c0 to %c64 step %c1 iter_args(%[[T:.+]] = %[[INIT]]) -> (tensor<64x16xf32>)
// CHECK:   %[[ROW:.+]] = vector.transfer_read %{{.+}}[%[[I]], %c0], %{{.+}} : tensor<64x15xf32>, vector<16xf32>
// CHECK:   vector.transfer_write %[[ROW]], %[[T]][%[[I]], %c0] {in_bounds = [true]} : vector<16xf32>, tensor<64x16xf32>
// CHECK-NOT: tensor.pad
// CHECK-NOT: llm.vectorize_rows
// NOVEC-LABEL: func.func @pad_rows
// NOVEC: tensor.pad
// NOVEC-NOT: llm.vectorize_rows
func.func @pad_rows(%x: tensor<64x15xf32>) -> tensor<64x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c0 : f32
  } {llm.vectorize_rows} : tensor<64x15xf32> to tensor<64x16xf32>
  return %p : tensor<64x16xf32>
}

// A marked pad that also pads rows (low or high on the first dimension) is
// not vectorized: the marker is dropped and the pad left as it is.
// CHECK-LABEL: func.func @pad_rows_left
// CHECK: tensor.pad
// CHECK-NOT: llm.vectorize_rows
// CHECK-NOT: vector.transfer_read
func.func @pad_rows_left(%x: tensor<64x15xf32>) -> tensor<65x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c0 : f32
  } {llm.vectorize_rows} : tensor<64x15xf32> to tensor<65x16xf32>
  return %p : tensor<65x16xf32>
}
