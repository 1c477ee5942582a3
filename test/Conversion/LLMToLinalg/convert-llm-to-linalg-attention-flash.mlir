// RUN: llm-opt %s -convert-llm-to-linalg="attention-tile=16,16" -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-select-lowering-config="target=generic" -convert-llm-to-linalg -split-input-file | FileCheck %s --check-prefix=GENERIC

// Structure of the flash-attention lowering of llm.attention (the default):
// one scf.forall over (batch, query head, query tile) holding an scf.for over
// key/value tiles with the online-softmax state (m, l, acc) as iter_args; no
// tensor of the full [Sq, Skv] score shape. Values are checked by
// test/Integration/attention-flash.mlir.

// Sq = Skv = 37 with 16x16 tiles: 3 query tiles, the last one shifted back to
// rows [21, 37); key tiles shifted the same way, with the columns already
// seen excluded (col >= nominal start). GQA: kv head = h / 2. Causal: the
// key loop stops after the tile holding column qs + 15.
// CHECK-LABEL: func.func @gqa_causal_mask_odd
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x37x8xf32>, %[[K:.+]]: tensor<1x2x37x8xf32>, %[[V:.+]]: tensor<1x2x37x4xf32>, %[[M:.+]]: tensor<1x1x37x37xi1>)
// CHECK-NOT: tensor<37x37xf32>
// CHECK-NOT: tensor<1x4x37x37xf32>
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<1x4x37x4xf32>
// CHECK: scf.forall (%[[B:.+]], %[[H:.+]], %[[T:.+]]) in (1, 4, 3) shared_outs(%[[ACC_OUT:.+]] = %[[OUT]])
// CHECK: %[[QN:.+]] = arith.muli %[[T]], %{{.+}} : index
// CHECK: %[[QS:.+]] = arith.minsi %[[QN]], %{{.+}} : index
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %{{.+}} : index
// CHECK: %[[QT:.+]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[QS]], 0] [1, 1, 16, 8] [1, 1, 1, 1] : tensor<1x4x37x8xf32> to tensor<16x8xf32>
// CHECK: arith.floordivsi
// CHECK: %[[NKV:.+]] = arith.minsi
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %[[NKV]] step %{{.+}} iter_args(%[[MI:.+]] = %{{.+}}, %[[LI:.+]] = %{{.+}}, %[[AI:.+]] = %{{.+}}) -> (tensor<16xf32>, tensor<16xf32>, tensor<16x4xf32>)
// CHECK: %[[KN:.+]] = arith.muli %[[J]]
// CHECK: %[[KS:.+]] = arith.minsi %[[KN]]
// CHECK: %[[KT:.+]] = tensor.extract_slice %[[K]][%[[B]], %[[KVH]], %[[KS]], 0] [1, 1, 16, 8] {{.*}} to tensor<16x8xf32>
// CHECK: %[[VT:.+]] = tensor.extract_slice %[[V]][%[[B]], %[[KVH]], %[[KS]], 0] [1, 1, 16, 4] {{.*}} to tensor<16x4xf32>
// K_j^T copied to [D, Tk]; both tile matmuls marked for in-place
// vectorization by llm-tile-and-vectorize.
// CHECK: %[[KTT:.+]] = linalg.transpose ins(%[[KT]] : tensor<16x8xf32>) outs(%{{.+}} : tensor<8x16xf32>) permutation = [1, 0]
// CHECK: %[[S:.+]] = linalg.matmul {llm.vectorize_in_place} ins(%[[QT]], %[[KTT]] : tensor<16x8xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<16x16xf32>)
// CHECK: %[[MT:.+]] = tensor.extract_slice %[[M]][0, 0, %[[QS]], %[[KS]]] [1, 1, 16, 16] {{.*}} to tensor<16x16xi1>
// The [Tq, Tk] and [Tq, Dv] elementwise ops and the row reductions (max and
// sum) are marked to be vectorized one row at a time
// (llm-tile-and-vectorize).
// CHECK: %[[X:.+]] = linalg.generic {{.*}} ins(%[[S]], %[[MT]] : tensor<16x16xf32>, tensor<16x16xi1>)
// CHECK-SAME: attrs =  {llm.vectorize_rows}
// causal: j <= i + 0; overlap: j >= nominal start; i1 mask
// CHECK: arith.cmpi sle
// CHECK: arith.andi
// CHECK: arith.cmpi sge, %{{.+}}, %[[KN]]
// CHECK: arith.select
// row max, alpha, m' written into m, p, l' into l, acc' into acc:
// CHECK: %[[R:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<16x16xf32>)
// CHECK-SAME: attrs =  {llm.vectorize_rows}
// CHECK: arith.maximumf
// CHECK: %[[ALPHA:.+]] = linalg.generic {{.*}} ins(%[[MI]], %[[R]] : tensor<16xf32>, tensor<16xf32>)
// CHECK: math.exp
// CHECK: %[[MN:.+]] = linalg.generic {{.*}} ins(%[[R]] : tensor<16xf32>) outs(%[[MI]] : tensor<16xf32>)
// CHECK: %[[P:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[MN]] : tensor<16x16xf32>, tensor<16xf32>)
// CHECK-SAME: attrs =  {llm.vectorize_rows}
// CHECK: math.exp
// CHECK: %[[LS:.+]] = linalg.generic {{.*}} ins(%[[ALPHA]] : tensor<16xf32>) outs(%[[LI]] : tensor<16xf32>)
// CHECK: %[[LN:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<16x16xf32>) outs(%[[LS]] : tensor<16xf32>)
// CHECK-SAME: attrs =  {llm.vectorize_rows}
// CHECK: %[[AS:.+]] = linalg.generic {{.*}} ins(%[[ALPHA]] : tensor<16xf32>) outs(%[[AI]] : tensor<16x4xf32>)
// CHECK-SAME: attrs =  {llm.vectorize_rows}
// CHECK: %[[AN:.+]] = linalg.matmul {llm.vectorize_in_place} ins(%[[P]], %[[VT]] : tensor<16x16xf32>, tensor<16x4xf32>) outs(%[[AS]] : tensor<16x4xf32>)
// CHECK: scf.yield %[[MN]], %[[LN]], %[[AN]]
// out = l == 0 ? 0 : acc / l; only the rows this tile owns are stored.
// CHECK: arith.divf
// CHECK: %[[ROWS:.+]] = tensor.extract_slice %{{.+}}[%{{.+}}, 0] [%{{.+}}, 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[ROWS]] into %[[ACC_OUT]][%[[B]], %[[H]], %[[QN]], 0]
func.func @gqa_causal_mask_odd(%q: tensor<1x4x37x8xf32>, %k: tensor<1x2x37x8xf32>, %v: tensor<1x2x37x4xf32>, %m: tensor<1x1x37x37xi1>) -> tensor<1x4x37x4xf32> {
  %0 = llm.attention %q, %k, %v mask %m {causal} : (tensor<1x4x37x8xf32>, tensor<1x2x37x8xf32>, tensor<1x2x37x4xf32>, tensor<1x1x37x37xi1>) -> tensor<1x4x37x4xf32>
  return %0 : tensor<1x4x37x4xf32>
}

// -----

// Tiles from the target description (generic: [64, 64]); f16 inputs are read
// as f16 tiles into f32 matmuls, the output rounded once. S = 128 is a tile
// multiple: no shift, the whole tile is stored.
// GENERIC-LABEL: func.func @f16_default_tiles
// GENERIC-NOT: tensor<128x128x
// GENERIC: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 12, 2)
// GENERIC-NOT: arith.minsi %{{.+}}, %c64
// GENERIC: scf.for {{.*}} -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>)
// GENERIC: linalg.matmul {llm.vectorize_in_place} ins(%{{.+}}, %{{.+}} : tensor<64x64xf16>, tensor<64x64xf16>) outs(%{{.+}} : tensor<64x64xf32>)
// GENERIC: linalg.matmul {llm.vectorize_in_place} ins(%{{.+}}, %{{.+}} : tensor<64x64xf32>, tensor<64x64xf16>) outs(%{{.+}} : tensor<64x64xf32>)
// GENERIC: arith.truncf %{{.+}} : f32 to f16
// GENERIC: tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, 0] [1, 1, 64, 64] [1, 1, 1, 1] : tensor<64x64xf16> into tensor<1x12x128x64xf16>
// CHECK-LABEL: func.func @f16_default_tiles
func.func @f16_default_tiles(%q: tensor<1x12x128x64xf16>, %k: tensor<1x12x128x64xf16>, %v: tensor<1x12x128x64xf16>) -> tensor<1x12x128x64xf16> {
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x12x128x64xf16>, tensor<1x12x128x64xf16>, tensor<1x12x128x64xf16>) -> tensor<1x12x128x64xf16>
  return %0 : tensor<1x12x128x64xf16>
}

// -----

// Decode: one query row against 512 cached keys; the tile is clamped to
// [1, 16]; a float mask [512] is sliced per key tile and broadcast over the
// row (map (i, j) -> (j)).
// CHECK-DAG: #[[$MJ:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @decode_float_mask
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (2, 8, 1)
// CHECK: scf.for {{.*}} -> (tensor<1xf32>, tensor<1xf32>, tensor<1x64xf32>)
// CHECK: tensor.extract_slice %{{.+}}[%{{.+}}] [16] [1] : tensor<512xf32> to tensor<16xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$MJ]], #{{.+}}]
// CHECK: arith.addf
func.func @decode_float_mask(%q: tensor<2x8x1x64xf32>, %k: tensor<2x8x512x64xf32>, %v: tensor<2x8x512x64xf32>, %m: tensor<512xf32>) -> tensor<2x8x1x64xf32> {
  %0 = llm.attention %q, %k, %v mask %m : (tensor<2x8x1x64xf32>, tensor<2x8x512x64xf32>, tensor<2x8x512x64xf32>, tensor<512xf32>) -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

// -----

// Layout bshd: q [B, Sq, Hq, D], k/v [B, Skv, Hkv, D]; the loop nest is the
// same, the tiles are read (and the output rows stored) with the sequence in
// dimension 1 and the head in dimension 2 -- strided [16, 8] tiles, no
// transpose of the operands or of the result.
// CHECK-LABEL: func.func @bshd_gqa_causal
// CHECK-SAME: (%[[Q:.+]]: tensor<1x37x4x8xf32>, %[[K:.+]]: tensor<1x37x2x8xf32>, %[[V:.+]]: tensor<1x37x2x4xf32>)
// CHECK-NOT: linalg.transpose ins(%[[Q]]
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<1x37x4x4xf32>
// CHECK: scf.forall (%[[B:.+]], %[[H:.+]], %[[T:.+]]) in (1, 4, 3) shared_outs(%{{.+}} = %[[OUT]])
// CHECK: %[[QS:.+]] = arith.minsi
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %{{.+}} : index
// CHECK: tensor.extract_slice %[[Q]][%[[B]], %[[QS]], %[[H]], 0] [1, 16, 1, 8] [1, 1, 1, 1] : tensor<1x37x4x8xf32> to tensor<16x8xf32>
// CHECK: scf.for
// CHECK: %[[KS:.+]] = arith.minsi
// CHECK: tensor.extract_slice %[[K]][%[[B]], %[[KS]], %[[KVH]], 0] [1, 16, 1, 8] {{.*}} to tensor<16x8xf32>
// CHECK: tensor.extract_slice %[[V]][%[[B]], %[[KS]], %[[KVH]], 0] [1, 16, 1, 4] {{.*}} to tensor<16x4xf32>
// CHECK: tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[B]], %{{.+}}, %[[H]], 0] [1, %{{.+}}, 1, 4] [1, 1, 1, 1] : tensor<?x4xf32> into tensor<1x37x4x4xf32>
func.func @bshd_gqa_causal(%q: tensor<1x37x4x8xf32>, %k: tensor<1x37x2x8xf32>, %v: tensor<1x37x2x4xf32>) -> tensor<1x37x4x4xf32> {
  %0 = llm.attention %q, %k, %v {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x37x4x8xf32>, tensor<1x37x2x8xf32>, tensor<1x37x2x4xf32>) -> tensor<1x37x4x4xf32>
  return %0 : tensor<1x37x4x4xf32>
}

// -----

// `stage_values = true` in the lowering configuration (the GPU target's
// choice): each value tile is copied into a tile of its own before the PV
// product, which reads the copy.
// CHECK-LABEL: func.func @stage_values
// CHECK: scf.for
// CHECK: %[[VS:.+]] = tensor.extract_slice %arg2{{.*}} to tensor<8x16xf32>
// CHECK: %[[VE:.+]] = tensor.empty() : tensor<8x16xf32>
// CHECK: %[[VT:.+]] = linalg.copy ins(%[[VS]] : tensor<8x16xf32>) outs(%[[VE]] : tensor<8x16xf32>)
// CHECK: linalg.matmul {{.*}}ins(%{{.+}}, %[[VT]] : tensor<8x8xf32>, tensor<8x16xf32>)
func.func @stage_values(%q: tensor<1x1x16x16xf32>, %k: tensor<1x1x16x16xf32>, %v: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32> {
  %0 = llm.attention %q, %k, %v {llm.lowering_config = {attention_tile = array<i64: 8, 8>, stage_values = true}} : (tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %0 : tensor<1x1x16x16xf32>
}

// -----

// `kv_splits = 4` (flash-decoding): the forall gains a part dimension; each
// part visits its chunk of the key/value tiles (2 of 8 here) and stores its
// unnormalized m, l and acc; after the loop, the parts are combined: M =
// max_p m, L = sum_p w l, O = sum_p w acc with w = exp(m - M) (0 for a part
// that saw no column), out = O / L.
// CHECK-LABEL: func.func @kv_splits
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}, %[[P:.+]]) in (1, 2, 1, 4) shared_outs(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>, tensor<1x2x4x1x8xf32>)
// CHECK: %[[LO:.+]] = arith.muli %[[P]], %c2
// CHECK: %[[HI0:.+]] = arith.addi %[[LO]], %c2
// CHECK: %[[HI:.+]] = arith.minsi %{{.+}}, %[[HI0]]
// CHECK: scf.for %{{.+}} = %[[LO]] to %[[HI]]
// CHECK: tensor.parallel_insert_slice {{.*}} into {{.*}}[%{{.+}}, %{{.+}}, %[[P]], 0] [1, 1, 1, 1]
// CHECK: tensor.parallel_insert_slice {{.*}} into {{.*}}[%{{.+}}, %{{.+}}, %[[P]], 0] [1, 1, 1, 1]
// CHECK: tensor.parallel_insert_slice {{.*}} into {{.*}}[%{{.+}}, %{{.+}}, %[[P]], 0, 0] [1, 1, 1, 1, 8]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:   arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:   arith.divf
func.func @kv_splits(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x64x16xf32>, %v: tensor<1x2x64x8xf32>) -> tensor<1x2x1x8xf32> {
  %0 = llm.attention %q, %k, %v {llm.lowering_config = {attention_tile = array<i64: 1, 8>, kv_splits = 4}} : (tensor<1x2x1x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x8xf32>) -> tensor<1x2x1x8xf32>
  return %0 : tensor<1x2x1x8xf32>
}

// -----

// padded_head_dims = [16, 32] on D = 15, Dv = 30: the query tile is padded
// once per query tile and the key and value tiles at each key/value step
// (tensor.pad of zeros at the end of each row, marked llm.vectorize_rows);
// the transposed key tile is [16, Tk], the accumulator [Tq, 32], and only its
// 30 leading columns are normalized and stored. The scale stays 1/sqrt(15).
// CHECK-LABEL: func.func @padded_head_dims
// CHECK: %[[QT:.+]] = tensor.extract_slice %{{.+}} to tensor<16x15xf32>
// CHECK: %[[QP:.+]] = tensor.pad %[[QT]] low[0, 0] high[0, 1]
// CHECK: {llm.vectorize_rows} : tensor<16x15xf32> to tensor<16x16xf32>
// CHECK: scf.for {{.*}} -> (tensor<16xf32>, tensor<16xf32>, tensor<16x32xf32>)
// CHECK: %[[KT:.+]] = tensor.extract_slice %{{.+}} to tensor<16x15xf32>
// CHECK: %[[VT:.+]] = tensor.extract_slice %{{.+}} to tensor<16x30xf32>
// CHECK: %[[VP:.+]] = tensor.pad %[[VT]] low[0, 0] high[0, 2]
// CHECK: {llm.vectorize_rows} : tensor<16x30xf32> to tensor<16x32xf32>
// CHECK: %[[KP:.+]] = tensor.pad %[[KT]] low[0, 0] high[0, 1]
// CHECK: %[[KTT:.+]] = linalg.transpose ins(%[[KP]] : tensor<16x16xf32>) outs(%{{.+}} : tensor<16x16xf32>)
// CHECK: linalg.matmul {llm.vectorize_in_place} ins(%[[QP]], %[[KTT]] : tensor<16x16xf32>, tensor<16x16xf32>)
// CHECK: arith.constant 0.258198{{[0-9]*}} : f32
// CHECK: linalg.matmul {llm.vectorize_in_place} ins(%{{.+}}, %[[VP]] : tensor<16x16xf32>, tensor<16x32xf32>) outs(%{{.+}} : tensor<16x32xf32>)
// CHECK: %[[ACC:.+]] = tensor.extract_slice %{{.+}}[0, 0] [16, 30] [1, 1] : tensor<16x32xf32> to tensor<16x30xf32>
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<16x30xf32>, tensor<16xf32>)
// CHECK: tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, 0] [1, 1, 16, 30]
func.func @padded_head_dims(%q: tensor<1x2x32x15xf32>, %k: tensor<1x2x32x15xf32>, %v: tensor<1x2x32x30xf32>) -> tensor<1x2x32x30xf32> {
  %0 = llm.attention %q, %k, %v {llm.lowering_config = {padded_head_dims = array<i64: 16, 32>}} : (tensor<1x2x32x15xf32>, tensor<1x2x32x15xf32>, tensor<1x2x32x30xf32>) -> tensor<1x2x32x30xf32>
  return %0 : tensor<1x2x32x30xf32>
}
