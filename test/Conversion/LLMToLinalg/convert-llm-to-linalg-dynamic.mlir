// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// A dynamic sequence dimension (llm.dim_bounds on the arguments): every `?`
// is the sequence length, read with tensor.dim from the bounded argument.

// CHECK-LABEL: func.func @add_bias
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 16, 8>}
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[S:.+]] = tensor.dim %[[X]], %[[C1]] : tensor<1x?x8xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[S]]) : tensor<1x?x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.+}} : tensor<1x?x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<1x?x8xf32>)
func.func @add_bias(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 16, 8>}, %b: tensor<8xf32>) -> tensor<1x?x8xf32> {
  %0 = llm.add %x, %b : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  return %0 : tensor<1x?x8xf32>
}

// -----

// The rows [1, S] of the lhs collapse to one `?` dimension: a matmul with a
// dynamic M (llm-tile-and-vectorize tiles it at the bound), expanded back.
// CHECK-LABEL: func.func @linear
// CHECK: %[[A:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<1x?x8xf32> into tensor<?x8xf32>
// CHECK: %[[S:.+]] = tensor.dim %arg0, %{{.+}} : tensor<1x?x8xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[S]]) : tensor<?x4xf32>
// CHECK: %[[Z:.+]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[A]], %{{.+}} : tensor<?x8xf32>, tensor<8x4xf32>) outs(%[[Z]] : tensor<?x4xf32>)
// CHECK-NOT: tensor.pad
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [1, %{{.+}}, 4] : tensor<?x4xf32> into tensor<1x?x4xf32>
func.func @linear(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 16, 8>}, %w: tensor<8x4xf32>) -> tensor<1x?x4xf32> {
  %0 = llm.matmul %x, %w : (tensor<1x?x8xf32>, tensor<8x4xf32>) -> tensor<1x?x4xf32>
  return %0 : tensor<1x?x4xf32>
}

// -----

// A batch of 2 sequences: the rows [2, S] collapse to one `?` dimension of
// 2 * S rows, which is not the sequence length: M is read from the
// collapsed lhs. An f16 result is rounded after the rows are expanded back
// (the rounding's result is sized by the sequence length).
// CHECK-LABEL: func.func @linear_batch2
// CHECK: %[[A:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<2x?x8xf16> into tensor<?x8xf16>
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[M:.+]] = tensor.dim %[[A]], %[[C0]] : tensor<?x8xf16>
// CHECK: %[[E:.+]] = tensor.empty(%[[M]]) : tensor<?x4xf32>
// CHECK: %[[Z:.+]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %{{.+}} : tensor<?x8xf16>, tensor<8x4xf16>) outs(%[[Z]] : tensor<?x4xf32>)
// CHECK: %[[X:.+]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [2, %{{.+}}, 4] : tensor<?x4xf32> into tensor<2x?x4xf32>
// CHECK: %[[S:.+]] = tensor.dim %arg0, %{{.+}} : tensor<2x?x8xf16>
// CHECK: %[[H:.+]] = tensor.empty(%[[S]]) : tensor<2x?x4xf16>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<2x?x4xf32>) outs(%[[H]] : tensor<2x?x4xf16>)
// CHECK: arith.truncf
func.func @linear_batch2(%x: tensor<2x?x8xf16> {llm.dim_bounds = array<i64: 2, 16, 8>}, %w: tensor<8x4xf16>) -> tensor<2x?x4xf16> {
  %0 = llm.matmul %x, %w : (tensor<2x?x8xf16>, tensor<8x4xf16>) -> tensor<2x?x4xf16>
  return %0 : tensor<2x?x4xf16>
}

// -----

// Norms over the static hidden dimension, per (dynamic) row.
// CHECK-LABEL: func.func @norms
// CHECK-COUNT-2: tensor.empty(%{{.+}}) : tensor<?xf64>
// CHECK: tensor.empty(%{{.+}}) : tensor<?x8xf32>
// CHECK: linalg.generic
func.func @norms(%x: tensor<?x8xf32> {llm.dim_bounds = array<i64: 16, 8>}, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %1 = llm.rms_norm %x weight %g {epsilon = 1.0e-06 : f32} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Head split and merge, GELU, softmax along the static axis, a slice of the
// static (last) dimension that keeps the sequence whole.
// CHECK-LABEL: func.func @heads
// CHECK: tensor.extract_slice %{{.+}}[0, 0, 4] [1, %{{.+}}, 4] [1, 1, 1] : tensor<1x?x12xf32> to tensor<1x?x4xf32>
// CHECK: tensor.expand_shape {{.*}} : tensor<1x?x4xf32> into tensor<1x?x2x2xf32>
// CHECK: linalg.transpose ins(%{{.+}} : tensor<1x?x2x2xf32>) outs(%{{.+}} : tensor<1x2x?x2xf32>) permutation = [0, 2, 1, 3]
func.func @heads(%x: tensor<1x?x12xf32> {llm.dim_bounds = array<i64: 1, 16, 12>}) -> tensor<1x2x?x2xf32> {
  %0 = llm.slice %x {starts = array<i64: 0, 0, 4>, limits = array<i64: 1, 16, 8>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x12xf32>) -> tensor<1x?x4xf32>
  %1 = llm.gelu %0 approximate <tanh> : tensor<1x?x4xf32>
  %2 = llm.softmax %1 {axis = -1 : i64} : tensor<1x?x4xf32>
  %3 = llm.reshape %2 : (tensor<1x?x4xf32>) -> tensor<1x?x2x2xf32>
  %4 = llm.transpose %3 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x2xf32>) -> tensor<1x2x?x2xf32>
  return %4 : tensor<1x2x?x2xf32>
}

// -----

// Causal attention with a dynamic sequence takes the flash lowering: static
// [Tq, Tk] tiles, ceil(S / Tq) query tiles at run time, no [?, ?] score
// matrix (convert-llm-to-linalg-attention-kv-length.mlir has the details).
// CHECK-LABEL: func.func @attention
// CHECK-NOT: tensor<2x?x?xf32>
// CHECK: %[[S:.+]] = tensor.dim %arg0
// CHECK: %[[N:.+]] = arith.ceildivsi %[[S]]
// CHECK: scf.forall ({{.*}}) in (1, 2, %[[N]])
// CHECK: scf.for
// CHECK: linalg.matmul
func.func @attention(%q: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 16, 4>}, %k: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 16, 4>}, %v: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 16, 4>}) -> tensor<1x2x?x4xf32> {
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  return %0 : tensor<1x2x?x4xf32>
}

// -----

// Grouped-query attention with a dynamic sequence (4 query heads over 2
// key/value heads).
// CHECK-LABEL: func.func @attention_gqa
// CHECK: scf.forall ({{.*}}) in (1, 4, %{{.+}})
// CHECK: arith.divui
func.func @attention_gqa(%q: tensor<1x4x?x8xf32> {llm.dim_bounds = array<i64: 1, 4, 16, 8>}, %k: tensor<1x2x?x8xf32> {llm.dim_bounds = array<i64: 1, 2, 16, 8>}) -> tensor<1x4x?x8xf32> {
  %0 = llm.attention %q, %k, %k {causal} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x4x?x8xf32>
  return %0 : tensor<1x4x?x8xf32>
}

// -----

// Token ids [1, S] -> embeddings [1, S, D].
// CHECK-LABEL: func.func @embedding
// CHECK: %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<1x?x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.+}} : tensor<1x?xi64>) outs(%[[E]] : tensor<1x?x4xf32>)
func.func @embedding(%t: tensor<10x4xf32>, %ids: tensor<1x?xi64> {llm.dim_bounds = array<i64: 1, 16>}) -> tensor<1x?x4xf32> {
  %0 = llm.embedding %t, %ids : (tensor<10x4xf32>, tensor<1x?xi64>) -> tensor<1x?x4xf32>
  return %0 : tensor<1x?x4xf32>
}

// -----

// A reshape that regroups the static sizes on each side of the sequence
// (nn.MultiheadAttention's [S, B, D] -> [S, B * H, D / H]) goes through
// [?, 48]: a collapse, then an expand.
// CHECK-LABEL: func.func @regroup_heads
// CHECK: %[[C:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2]] : tensor<?x1x48xf32> into tensor<?x48xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [%{{.+}}, 3, 16] : tensor<?x48xf32> into tensor<?x3x16xf32>
func.func @regroup_heads(%x: tensor<?x1x48xf32> {llm.dim_bounds = array<i64: 16, 1, 48>}) -> tensor<?x3x16xf32> {
  %0 = llm.reshape %x : (tensor<?x1x48xf32>) -> tensor<?x3x16xf32>
  return %0 : tensor<?x3x16xf32>
}

// -----

// The two sides differ by a unit group before the sequence ([?, 256] on one,
// [1, ?, 256] on the other): a collapse, an expand of the unit, then the
// heads (this crashed in tensor.expand_shape's shape inference).
// CHECK-LABEL: func.func @unit_before_sequence
// CHECK: %[[C:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2]] : tensor<?x1x256xf32> into tensor<?x256xf32>
// CHECK: %[[U:.+]] = tensor.expand_shape %[[C]] {{\[}}[0, 1], [2]] output_shape [1, %{{.+}}, 256] : tensor<?x256xf32> into tensor<1x?x256xf32>
// CHECK: tensor.expand_shape %[[U]] {{\[}}[0], [1], [2, 3]] output_shape [1, %{{.+}}, 4, 64] : tensor<1x?x256xf32> into tensor<1x?x4x64xf32>
func.func @unit_before_sequence(%x: tensor<?x1x256xf32> {llm.dim_bounds = array<i64: 64, 1, 256>}) -> tensor<1x?x4x64xf32> {
  %0 = llm.reshape %x : (tensor<?x1x256xf32>) -> tensor<1x?x4x64xf32>
  return %0 : tensor<1x?x4x64xf32>
}

// -----

// llm.select, llm.compare and the logical ops broadcast a dynamic sequence
// dimension like the arithmetic ops (a key padding mask [1, S] over scores).
// CHECK-LABEL: func.func @masked_fill
// CHECK: %[[S:.+]] = tensor.dim
// CHECK: %[[E:.+]] = tensor.empty(%[[S]]) : tensor<1x?xi1>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<1x?xi1>)
// CHECK: arith.xori
// CHECK: tensor.empty(%{{.+}}) : tensor<1x?xf32>
// CHECK: arith.select
func.func @masked_fill(%m: tensor<1x?xi1> {llm.dim_bounds = array<i64: 1, 16>}, %x: tensor<1x?xf32> {llm.dim_bounds = array<i64: 1, 16>}, %f: tensor<f32>) -> tensor<1x?xf32> {
  %0 = llm.logical_not %m : tensor<1x?xi1>
  %1 = llm.select %0, %x, %f : (tensor<1x?xi1>, tensor<1x?xf32>, tensor<f32>) -> tensor<1x?xf32>
  return %1 : tensor<1x?xf32>
}

// -----

// llm.gather of a static table by positions along the sequence (the rows
// [past, past + S) of a position table, llm-form-kv-cache): the indices are
// range-checked over their dynamic shape, then one generic over the result
// reads the clamped row.
// CHECK-LABEL: func.func @gather_rows
// CHECK: linalg.generic {{.*}} ins(%{{.+}} : tensor<?xi64>) outs(%{{.+}}, %{{.+}} : tensor<i64>, tensor<i64>)
// CHECK: scf.if
// CHECK: %[[S:.+]] = tensor.dim
// CHECK: %[[E:.+]] = tensor.empty(%[[S]]) : tensor<?x8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.+}} : tensor<?xi64>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %{{.+}}] : tensor<32x8xf32>
func.func @gather_rows(%pos: tensor<?xi64> {llm.dim_bounds = array<i64: 16>}, %t: tensor<32x8xf32>) -> tensor<?x8xf32> {
  %0 = llm.gather %t, %pos : (tensor<32x8xf32>, tensor<?xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A mean over the sequence (sentence-transformers' pooling): the reduction
// runs to the run-time length and the sum is divided by it, in f64.
// CHECK-LABEL: func.func @mean_over_seq
// CHECK-SAME: (%[[X:.+]]: tensor<2x?x8xf32>
// CHECK: %[[S:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<2x?x8xf32>
// CHECK: %[[SI:.+]] = arith.index_cast %[[S]] : index to i64
// CHECK: %[[SF:.+]] = arith.sitofp %[[SI]] : i64 to f64
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x?x8xf32>) outs(%{{.+}} : tensor<2x8xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x8xf64>)
// CHECK:   arith.divf %{{.+}}, %[[SF]] : f64
// CHECK: tensor.expand_shape {{.*}} : tensor<2x8xf32> into tensor<2x1x8xf32>
func.func @mean_over_seq(%x: tensor<2x?x8xf32> {llm.dim_bounds = array<i64: 2, 16, 8>}) -> tensor<2x1x8xf32> {
  %0 = llm.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x?x8xf32>) -> tensor<2x1x8xf32>
  return %0 : tensor<2x1x8xf32>
}

// -----

// Over the sequence and the hidden size: 8 * length elements.
// CHECK-LABEL: func.func @mean_over_seq_and_hidden
// CHECK: %[[S:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<2x?x8xf32>
// CHECK: %[[SI:.+]] = arith.index_cast %[[S]] : index to i64
// CHECK: %[[SF:.+]] = arith.sitofp %[[SI]] : i64 to f64
// CHECK: %[[C8:.+]] = arith.constant 8.000000e+00 : f64
// CHECK: %[[N:.+]] = arith.mulf %[[SF]], %[[C8]] : f64
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: arith.divf %{{.+}}, %[[N]] : f64
func.func @mean_over_seq_and_hidden(%x: tensor<2x?x8xf32> {llm.dim_bounds = array<i64: 2, 16, 8>}) -> tensor<2xf32> {
  %0 = llm.reduce_mean %x {axes = array<i64: 1, 2>} : (tensor<2x?x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A max over the sequence: no count.
// CHECK-LABEL: func.func @max_over_seq
// CHECK-NOT: arith.sitofp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.+}} : tensor<1x?x8xf32>) outs(%{{.+}} : tensor<1x8xf32>)
// CHECK:   arith.maximumf
func.func @max_over_seq(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 16, 8>}) -> tensor<1x8xf32> {
  %0 = llm.reduce_max %x {axes = array<i64: 1>} : (tensor<1x?x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// An integer max over a static dimension keeps the sequence: its
// accumulator is sized by the run-time length (it was a tensor.empty without
// its dynamic size, which crashed the lowering).
// CHECK-LABEL: func.func @int_max_keeps_seq
// CHECK: %[[S:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<2x?x4xi32>
// CHECK: %[[E:.+]] = tensor.empty(%[[S]]) : tensor<2x?xi32>
// CHECK: linalg.fill {{.*}} outs(%[[E]] : tensor<2x?xi32>)
// CHECK: arith.maxsi
// CHECK: tensor.expand_shape {{.*}} : tensor<2x?xi32> into tensor<2x?x1xi32>
func.func @int_max_keeps_seq(%x: tensor<2x?x4xi32> {llm.dim_bounds = array<i64: 2, 16, 4>}) -> tensor<2x?x1xi32> {
  %0 = llm.reduce_max %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x?x4xi32>) -> tensor<2x?x1xi32>
  return %0 : tensor<2x?x1xi32>
}
