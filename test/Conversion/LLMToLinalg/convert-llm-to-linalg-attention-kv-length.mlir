// RUN: llm-opt %s -convert-llm-to-linalg="attention-tile=16,16" -split-input-file | FileCheck %s
// RUN: llm-opt %s -convert-llm-to-linalg="attention=materialized" -split-input-file | FileCheck %s --check-prefix=MAT

// llm.attention with kv_length L (the valid prefix of a key/value cache) and
// with a dynamic query/key length, in the flash lowering (16x16 tiles) and
// the materialized one. Values: test/Integration/attention-kv-length.py and
// attention-dynamic-seq.test.

// Decode over a cache of capacity 100 (not a multiple of 16): L is read
// once, clamped to [0, 100]; the key/value loop runs to ceil(L / 16) (with
// causal, at most to the tile holding column qs + L - Sq), every bound at
// run time; columns >= L are excluded (cmpi slt col, L) besides the causal
// limit and the columns of the shifted-back last tile already seen.
// CHECK-LABEL: func.func @decode_kv_length
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x1x8xf32>, %[[K:.+]]: tensor<1x2x100x8xf32>, %[[V:.+]]: tensor<1x2x100x4xf32>, %[[LEN:.+]]: tensor<i64>)
// CHECK: %[[RAW:.+]] = tensor.extract %[[LEN]][] : tensor<i64>
// CHECK: %[[RAWI:.+]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK: %[[MIN:.+]] = arith.minsi %[[RAWI]], %{{.+}} : index
// CHECK: %[[L:.+]] = arith.maxsi %[[MIN]], %{{.+}} : index
// CHECK: %[[OFF:.+]] = arith.subi %[[L]], %{{.+}} : index
// CHECK: %[[NK:.+]] = arith.ceildivsi %[[L]], %{{.+}} : index
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 4, 1)
// CHECK: %[[LAST:.+]] = arith.addi %{{.+}}, %[[OFF]] : index
// CHECK: arith.floordivsi %[[LAST]]
// CHECK: %[[UB:.+]] = arith.minsi %{{.+}}, %[[NK]] : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[UB]] step
// CHECK: %[[KN:.+]] = arith.muli
// CHECK: %[[KS:.+]] = arith.minsi %[[KN]], %{{.+}} : index
// CHECK: tensor.extract_slice %[[K]][%{{.+}}, %{{.+}}, %[[KS]], 0] [1, 1, 16, 8] {{.*}} to tensor<16x8xf32>
// CHECK: linalg.generic
// CHECK: %[[COL:.+]] = arith.addi %[[KS]], %{{.+}} : index
// CHECK: arith.cmpi sle, %[[COL]]
// CHECK: arith.cmpi slt, %[[COL]], %[[L]] : index
// CHECK: arith.cmpi sge, %[[COL]], %[[KN]] : index
// CHECK: arith.select
// The materialized form: L enters the score generic as a 0-d input.
// MAT-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1, d2, d3, d4) -> ()>
// MAT-LABEL: func.func @decode_kv_length
// MAT: linalg.batch_matmul
// MAT: linalg.generic {indexing_maps = [#{{.+}}, #[[$SCALAR]], #{{.+}}]{{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x2x2x1x100xf32>, tensor<i64>)
// MAT: arith.index_cast %{{.+}} : i64 to index
// MAT: arith.minsi
// MAT: %[[ML:.+]] = arith.maxsi
// MAT: %[[J:.+]] = linalg.index 4 : index
// MAT: arith.cmpi slt, %[[J]], %[[ML]] : index
// MAT: arith.subi %[[ML]]
// MAT: arith.cmpi sle
func.func @decode_kv_length(%q: tensor<1x4x1x8xf32>, %k: tensor<1x2x100x8xf32>, %v: tensor<1x2x100x4xf32>, %len: tensor<i64>) -> tensor<1x4x1x4xf32> {
  %0 = llm.attention %q, %k, %v kv_length %len {causal} : (tensor<1x4x1x8xf32>, tensor<1x2x100x8xf32>, tensor<1x2x100x4xf32>, tensor<i64>) -> tensor<1x4x1x4xf32>
  return %0 : tensor<1x4x1x4xf32>
}

// -----

// Prefill into a cache: a dynamic query length Sq (read from the bounded
// argument), an i32 L. ceil(Sq / 16) query tiles at run time; each query
// tile is a static [16, 8] tile holding the min(16, Sq - qs) existing rows
// (read by one generic, row index clamped) and zeros, and only those rows
// are stored. The causal offset is L - Sq.
// CHECK-LABEL: func.func @prefill_dynamic_kv_length
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x?x8xf32> {{.*}}, %[[LEN:.+]]: tensor<i32>)
// CHECK: %[[SQ:.+]] = tensor.dim %[[Q]], %{{.+}} : tensor<1x4x?x8xf32>
// CHECK: tensor.extract %[[LEN]][] : tensor<i32>
// CHECK: arith.index_cast %{{.+}} : i32 to index
// CHECK: %[[L:.+]] = arith.maxsi
// CHECK: arith.subi %[[L]], %[[SQ]] : index
// CHECK: %[[NQ:.+]] = arith.ceildivsi %[[SQ]], %{{.+}} : index
// CHECK: %[[NK:.+]] = arith.ceildivsi %[[L]], %{{.+}} : index
// CHECK: %[[OUT:.+]] = tensor.empty(%[[SQ]]) : tensor<1x4x?x4xf32>
// CHECK: scf.forall (%[[B:.+]], %[[H:.+]], %[[T:.+]]) in (1, 4, %[[NQ]]) shared_outs(%[[ACC:.+]] = %[[OUT]])
// CHECK: %[[QS:.+]] = arith.muli %[[T]], %{{.+}} : index
// CHECK: %[[REST:.+]] = arith.subi %[[SQ]], %[[QS]] : index
// CHECK: %[[ROWS:.+]] = arith.minsi %{{.+}}, %[[REST]] : index
// CHECK: %[[LASTQ:.+]] = arith.subi %[[ROWS]], %{{.+}} : index
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<16x8xf32>)
// CHECK: %[[R:.+]] = linalg.index 0 : index
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[IN:.+]] = arith.cmpi slt, %[[R]], %[[ROWS]] : index
// CHECK: %[[RC:.+]] = arith.minsi %[[R]], %[[LASTQ]] : index
// CHECK: %[[ROW:.+]] = arith.addi %[[QS]], %[[RC]] : index
// CHECK: %[[X:.+]] = tensor.extract %[[Q]][%[[B]], %[[H]], %[[ROW]], %[[C]]] : tensor<1x4x?x8xf32>
// CHECK: arith.select %[[IN]], %[[X]], %{{.+}} : f32
// CHECK: arith.minsi %{{.+}}, %[[NK]] : index
// CHECK: scf.for
// CHECK: tensor.extract_slice %{{.+}} [1, 1, 16, 8] {{.*}} : tensor<1x2x64x8xf32> to tensor<16x8xf32>
// CHECK: arith.cmpi slt, %{{.+}}, %[[L]] : index
// The existing rows are normalized straight into their slice of the result.
// CHECK: %[[DEST:.+]] = tensor.extract_slice %[[ACC]][%[[B]], %[[H]], %[[QS]], 0] [1, 1, %[[ROWS]], 4] [1, 1, 1, 1] : tensor<1x4x?x4xf32> to tensor<?x4xf32>
// CHECK: %[[ACCR:.+]] = tensor.extract_slice %{{.+}}[0, 0] [%[[ROWS]], 4] [1, 1] : tensor<16x4xf32> to tensor<?x4xf32>
// CHECK: %[[LR:.+]] = tensor.extract_slice %{{.+}}[0] [%[[ROWS]]] [1] : tensor<16xf32> to tensor<?xf32>
// CHECK: %[[OWN:.+]] = linalg.generic {{.*}} ins(%[[ACCR]], %[[LR]] : tensor<?x4xf32>, tensor<?xf32>) outs(%[[DEST]] : tensor<?x4xf32>)
// CHECK: tensor.parallel_insert_slice %[[OWN]] into %[[ACC]][%[[B]], %[[H]], %[[QS]], 0] [1, 1, %[[ROWS]], 4]
// MAT-LABEL: func.func @prefill_dynamic_kv_length
// MAT: linalg.batch_matmul
// MAT: arith.index_cast %{{.+}} : i32 to index
func.func @prefill_dynamic_kv_length(%q: tensor<1x4x?x8xf32> {llm.dim_bounds = array<i64: 1, 4, 64, 8>}, %k: tensor<1x2x64x8xf32>, %v: tensor<1x2x64x4xf32>, %len: tensor<i32>) -> tensor<1x4x?x4xf32> {
  %0 = llm.attention %q, %k, %v kv_length %len {causal} : (tensor<1x4x?x8xf32>, tensor<1x2x64x8xf32>, tensor<1x2x64x4xf32>, tensor<i32>) -> tensor<1x4x?x4xf32>
  return %0 : tensor<1x4x?x4xf32>
}

// -----

// Prefill without a cache, GQA: query and key/value lengths are the one
// dynamic sequence. The key/value loop is split: the full tiles
// (j < S / 16) are read in place as static [16, 8] slices, the last partial
// tile (at most one iteration) as a zero-padded copy like the query tiles;
// the columns >= Skv are excluded.
// CHECK-LABEL: func.func @prefill_dynamic_no_cache
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x?x8xf32> {{.*}}, %[[K:.+]]: tensor<1x2x?x8xf32> {{.*}}, %[[V:.+]]: tensor<1x2x?x4xf32> {{.*}})
// CHECK: %[[S:.+]] = tensor.dim %[[Q]]
// CHECK: scf.forall
// CHECK: arith.divui
// CHECK: arith.floordivsi
// CHECK: %[[UB:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK: %[[NF:.+]] = arith.divsi %[[S]], %{{.+}} : index
// CHECK: %[[FULL:.+]] = arith.minsi %[[UB]], %[[NF]] : index
// CHECK: %[[HEAD:.+]]:3 = scf.for %{{.+}} = %{{.+}} to %[[FULL]] step
// CHECK: tensor.extract_slice %[[K]][{{.+}}] [1, 1, 16, 8] [1, 1, 1, 1] : tensor<1x2x?x8xf32> to tensor<16x8xf32>
// CHECK: tensor.extract_slice %[[V]][{{.+}}] [1, 1, 16, 4] [1, 1, 1, 1] : tensor<1x2x?x4xf32> to tensor<16x4xf32>
// CHECK: arith.cmpi slt, %{{.+}}, %[[S]] : index
// CHECK: scf.for %{{.+}} = %[[FULL]] to %[[UB]] step %{{.+}} iter_args(%{{.+}} = %[[HEAD]]#0, %{{.+}} = %[[HEAD]]#1, %{{.+}} = %[[HEAD]]#2)
// CHECK: %[[KS:.+]] = arith.muli
// CHECK: %[[KR:.+]] = arith.subi %[[S]], %[[KS]] : index
// CHECK: %[[KROWS:.+]] = arith.minsi %{{.+}}, %[[KR]] : index
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<16x8xf32>)
// CHECK: arith.cmpi slt, %{{.+}}, %[[KROWS]] : index
// CHECK: tensor.extract %[[K]]
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<16x4xf32>)
// CHECK: arith.cmpi slt, %{{.+}}, %[[KROWS]] : index
// CHECK: tensor.extract %[[V]]
// CHECK: arith.cmpi slt, %{{.+}}, %[[S]] : index
// Materialized: GQA with a dynamic sequence, the [B*Hkv, G*Sq, Skv] scores
// sized G * Sq by Sq (Sq from the bounded argument).
// MAT-LABEL: func.func @prefill_dynamic_no_cache
// MAT: tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2, 3], [4]] : tensor<1x2x2x?x8xf32> into tensor<2x?x8xf32>
// MAT: %[[S:.+]] = tensor.dim %arg0, %{{.+}} : tensor<1x4x?x8xf32>
// MAT: %[[ROWS:.+]] = arith.muli %[[S]], %{{.+}} : index
// MAT: tensor.empty(%[[ROWS]], %[[S]]) : tensor<2x?x?xf32>
// MAT: linalg.batch_matmul
func.func @prefill_dynamic_no_cache(%q: tensor<1x4x?x8xf32> {llm.dim_bounds = array<i64: 1, 4, 64, 8>}, %k: tensor<1x2x?x8xf32> {llm.dim_bounds = array<i64: 1, 2, 64, 8>}, %v: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 64, 4>}) -> tensor<1x4x?x4xf32> {
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x4xf32>) -> tensor<1x4x?x4xf32>
  return %0 : tensor<1x4x?x4xf32>
}

// -----

// A mask along the dynamic query length: the flash lowering reads its
// [Tq, Tk] tiles element by element with the row index clamped to the last
// row (a tile past the end of the sequence is not written).
// CHECK-LABEL: func.func @dynamic_query_mask
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK: arith.minsi
// CHECK: tensor.extract %arg2
// CHECK-NOT: linalg.batch_matmul
func.func @dynamic_query_mask(%q: tensor<1x2x?x8xf32> {llm.dim_bounds = array<i64: 1, 2, 64, 8>}, %k: tensor<1x2x64x8xf32>, %m: tensor<1x1x?x64xi1> {llm.dim_bounds = array<i64: 1, 1, 64, 64>}) -> tensor<1x2x?x8xf32> {
  %0 = llm.attention %q, %k, %k mask %m : (tensor<1x2x?x8xf32>, tensor<1x2x64x8xf32>, tensor<1x2x64x8xf32>, tensor<1x1x?x64xi1>) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}
