// llm.rope in rotate_half and interleaved modes, i64 and i32 positions, per-
// head positions broadcast, custom theta, f16 and bf16.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// Angles are f32 (as LLMOps.td specifies): the reference rounds inv_freq and p
// * inv_freq to f32 too, so that only the last-ulp differences of powf/cos/sin
// remain (positions stay below 20 to keep them under 1e-6).
//
// RUN: rm -rf %t && mkdir -p %t/rope_half %t/rope_interleaved %t/rope_i32 %t/rope_per_head %t/rope_theta %t/rope_long %t/rope_f16 %t/rope_bf16
// RUN: %python -m llmc_check gen %t x=1x2x5x8xf32 'pos=5xi64@[0, 1, 2, 7, 19]' 'pos32=5xi32@[3, 4, 5, 6, 7]' 'plong=5xi64@[0, 100, 1000, 2047, 4095]' 'ph=2x5xi64@[[0,1,2,3,4],[10,11,12,13,14]]' x3=3x6x16xf32 'p3=6xi64@np.arange(6)*3+1' xh=1x2x5x8xf16 xb=1x2x5x8xbf16

// RUN: llmc run %s --entry rope_half --input arg0=%t/x.npy --input arg1=%t/pos.npy --output-dir %t/rope_half
// RUN: %python -m llmc_check expr "rope(x, pos)" --arg pos=%t/pos.npy --arg x=%t/x.npy --actual %t/rope_half/out0.npy --name rope_half | FileCheck %s --check-prefix=ROPE_HALF
// ROPE_HALF: rope_half: shape [1, 2, 5, 8] dtype float32 {{.*}} PASS
func.func @rope_half(%x: tensor<1x2x5x8xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x8xf32> {
  %0 = llm.rope %x, %p : (tensor<1x2x5x8xf32>, tensor<5xi64>) -> tensor<1x2x5x8xf32>
  return %0 : tensor<1x2x5x8xf32>
}

// RUN: llmc run %s --entry rope_interleaved --input arg0=%t/x.npy --input arg1=%t/pos.npy --output-dir %t/rope_interleaved
// RUN: %python -m llmc_check expr "rope(x, pos, 'interleaved')" --arg pos=%t/pos.npy --arg x=%t/x.npy --actual %t/rope_interleaved/out0.npy --name rope_interleaved | FileCheck %s --check-prefix=ROPE_INTERLEAVED
// ROPE_INTERLEAVED: rope_interleaved: shape [1, 2, 5, 8] dtype float32 {{.*}} PASS
func.func @rope_interleaved(%x: tensor<1x2x5x8xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x8xf32> {
  %0 = llm.rope %x, %p mode <interleaved> : (tensor<1x2x5x8xf32>, tensor<5xi64>) -> tensor<1x2x5x8xf32>
  return %0 : tensor<1x2x5x8xf32>
}

// i32 positions starting at 3 (a chunk in the middle of a sequence).
// RUN: llmc run %s --entry rope_i32 --input arg0=%t/x.npy --input arg1=%t/pos32.npy --output-dir %t/rope_i32
// RUN: %python -m llmc_check expr "rope(x, pos32)" --arg pos32=%t/pos32.npy --arg x=%t/x.npy --actual %t/rope_i32/out0.npy --name rope_i32 | FileCheck %s --check-prefix=ROPE_I32
// ROPE_I32: rope_i32: shape [1, 2, 5, 8] dtype float32 {{.*}} PASS
func.func @rope_i32(%x: tensor<1x2x5x8xf32>, %p: tensor<5xi32>) -> tensor<1x2x5x8xf32> {
  %0 = llm.rope %x, %p : (tensor<1x2x5x8xf32>, tensor<5xi32>) -> tensor<1x2x5x8xf32>
  return %0 : tensor<1x2x5x8xf32>
}

// Positions [2, 5] broadcast to input.shape[:-1] = [1, 2, 5]: different per
// head.
// RUN: llmc run %s --entry rope_per_head --input arg0=%t/x.npy --input arg1=%t/ph.npy --output-dir %t/rope_per_head
// RUN: %python -m llmc_check expr "rope(x, ph, 'interleaved')" --arg ph=%t/ph.npy --arg x=%t/x.npy --actual %t/rope_per_head/out0.npy --name rope_per_head | FileCheck %s --check-prefix=ROPE_PER_HEAD
// ROPE_PER_HEAD: rope_per_head: shape [1, 2, 5, 8] dtype float32 {{.*}} PASS
func.func @rope_per_head(%x: tensor<1x2x5x8xf32>, %p: tensor<2x5xi64>) -> tensor<1x2x5x8xf32> {
  %0 = llm.rope %x, %p mode <interleaved> : (tensor<1x2x5x8xf32>, tensor<2x5xi64>) -> tensor<1x2x5x8xf32>
  return %0 : tensor<1x2x5x8xf32>
}

// Rank-3 input, D = 16, theta 500.
// RUN: llmc run %s --entry rope_theta --input arg0=%t/x3.npy --input arg1=%t/p3.npy --output-dir %t/rope_theta
// RUN: %python -m llmc_check expr "rope(x3, p3, theta=500.0)" --arg p3=%t/p3.npy --arg x3=%t/x3.npy --actual %t/rope_theta/out0.npy --name rope_theta | FileCheck %s --check-prefix=ROPE_THETA
// ROPE_THETA: rope_theta: shape [3, 6, 16] dtype float32 {{.*}} PASS
func.func @rope_theta(%x: tensor<3x6x16xf32>, %p: tensor<6xi64>) -> tensor<3x6x16xf32> {
  %0 = llm.rope %x, %p {theta = 5.0e+02 : f32} : (tensor<3x6x16xf32>, tensor<6xi64>) -> tensor<3x6x16xf32>
  return %0 : tensor<3x6x16xf32>
}

// Long-context positions up to 4095: an f32 angle near 4095 rad has an ulp of
// 2.4e-4, so a 1-ulp difference in powf or in the product moves cos/sin by up
// to ~5e-4; atol 2e-3 (still far below a wrong angle).
// RUN: llmc run %s --entry rope_long --input arg0=%t/x.npy --input arg1=%t/plong.npy --output-dir %t/rope_long
// RUN: %python -m llmc_check expr "rope(x, plong)" --arg plong=%t/plong.npy --arg x=%t/x.npy --actual %t/rope_long/out0.npy --rtol 0.0 --atol 0.002 --name rope_long | FileCheck %s --check-prefix=ROPE_LONG
// ROPE_LONG: rope_long: shape [1, 2, 5, 8] dtype float32 {{.*}} PASS
func.func @rope_long(%x: tensor<1x2x5x8xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x8xf32> {
  %0 = llm.rope %x, %p : (tensor<1x2x5x8xf32>, tensor<5xi64>) -> tensor<1x2x5x8xf32>
  return %0 : tensor<1x2x5x8xf32>
}

// RUN: llmc run %s --entry rope_f16 --input arg0=%t/xh.npy --input arg1=%t/pos.npy --output-dir %t/rope_f16
// RUN: %python -m llmc_check expr "rope(xh, pos)" --arg pos=%t/pos.npy --arg xh=%t/xh.npy --actual %t/rope_f16/out0.npy --dtype f16 --name rope_f16 | FileCheck %s --check-prefix=ROPE_F16
// ROPE_F16: rope_f16: shape [1, 2, 5, 8] dtype float16 {{.*}} PASS
func.func @rope_f16(%x: tensor<1x2x5x8xf16>, %p: tensor<5xi64>) -> tensor<1x2x5x8xf16> {
  %0 = llm.rope %x, %p : (tensor<1x2x5x8xf16>, tensor<5xi64>) -> tensor<1x2x5x8xf16>
  return %0 : tensor<1x2x5x8xf16>
}

// RUN: llmc run %s --entry rope_bf16 --input arg0=%t/xb.npy --input arg1=%t/pos.npy --output-dir %t/rope_bf16
// RUN: %python -m llmc_check expr "rope(xb, pos, 'interleaved', dtype='bf16')" --arg pos=%t/pos.npy --arg xb=%t/xb.npy --actual %t/rope_bf16/out0.npy --dtype bf16 --name rope_bf16 | FileCheck %s --check-prefix=ROPE_BF16
// ROPE_BF16: rope_bf16: shape [1, 2, 5, 8] dtype float32 {{.*}} PASS
func.func @rope_bf16(%x: tensor<1x2x5x8xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x8xf32> {
  %0 = llm.cast %x : (tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xbf16>
  %1 = llm.rope %0, %p mode <interleaved> : (tensor<1x2x5x8xbf16>, tensor<5xi64>) -> tensor<1x2x5x8xbf16>
  %2 = llm.cast %1 : (tensor<1x2x5x8xbf16>) -> tensor<1x2x5x8xf32>
  return %2 : tensor<1x2x5x8xf32>
}

// Constant positions: the lowering reads cos/sin from compile-time tables
// (odd head size 10 -> 5 pairs, 7 rows, 3 heads), both modes.
// RUN: mkdir -p %t/rope_const %t/rope_const_il %t/rope_attn
// RUN: %python -m llmc_check gen %t/rope_const xc=1x3x7x10xf32 'pc=7xi64@[0, 1, 2, 3, 5, 8, 13]'
// RUN: llmc run %s --entry rope_const --input arg0=%t/rope_const/xc.npy --output-dir %t/rope_const
// RUN: %python -m llmc_check expr "rope(xc, pc)" --arg pc=%t/rope_const/pc.npy --arg xc=%t/rope_const/xc.npy --actual %t/rope_const/out0.npy --name rope_const | FileCheck %s --check-prefix=ROPE_CONST
// ROPE_CONST: rope_const: shape [1, 3, 7, 10] dtype float32 {{.*}} PASS
func.func @rope_const(%x: tensor<1x3x7x10xf32>) -> tensor<1x3x7x10xf32> {
  %p = llm.constant dense<[0, 1, 2, 3, 5, 8, 13]> : tensor<7xi64>
  %0 = llm.rope %x, %p : (tensor<1x3x7x10xf32>, tensor<7xi64>) -> tensor<1x3x7x10xf32>
  return %0 : tensor<1x3x7x10xf32>
}
// RUN: llmc run %s --entry rope_const_il --input arg0=%t/rope_const/xc.npy --output-dir %t/rope_const_il
// RUN: %python -m llmc_check expr "rope(xc, pc, 'interleaved', theta=500.0)" --arg pc=%t/rope_const/pc.npy --arg xc=%t/rope_const/xc.npy --actual %t/rope_const_il/out0.npy --name rope_const_il | FileCheck %s --check-prefix=ROPE_CONST_IL
// ROPE_CONST_IL: rope_const_il: shape [1, 3, 7, 10] dtype float32 {{.*}} PASS
func.func @rope_const_il(%x: tensor<1x3x7x10xf32>) -> tensor<1x3x7x10xf32> {
  %p = llm.constant dense<[0, 1, 2, 3, 5, 8, 13]> : tensor<7xi64>
  %0 = llm.rope %x, %p mode <interleaved> {theta = 5.0e+02 : f32} : (tensor<1x3x7x10xf32>, tensor<7xi64>) -> tensor<1x3x7x10xf32>
  return %0 : tensor<1x3x7x10xf32>
}

// Head splits, RoPE on q and k (GQA 4 query / 2 kv heads, 7 positions),
// attention and head merge: llm-optimize-layout moves the transposes through
// the ropes so attention runs in layout bshd with no transpose left
// (test/Dialect/LLM/Transforms/llm-optimize-layout.mlir @rope_heads);
// checked against the reference on the original [B, H, S, D] graph.
// RUN: %python -m llmc_check gen %t/rope_attn q=1x7x4x10xf32 k=1x7x2x10xf32 v=1x7x2x10xf32
// RUN: llmc run %s --entry rope_attn --input arg0=%t/rope_attn/q.npy --input arg1=%t/rope_attn/k.npy --input arg2=%t/rope_attn/v.npy --output-dir %t/rope_attn
// RUN: %python -m llmc_check expr "attention(rope(q.transpose(0, 2, 1, 3), pc), rope(k.transpose(0, 2, 1, 3), pc), v.transpose(0, 2, 1, 3), causal=True).transpose(0, 2, 1, 3)" --arg pc=%t/rope_const/pc.npy --arg q=%t/rope_attn/q.npy --arg k=%t/rope_attn/k.npy --arg v=%t/rope_attn/v.npy --actual %t/rope_attn/out0.npy --name rope_attn | FileCheck %s --check-prefix=ROPE_ATTN
// ROPE_ATTN: rope_attn: shape [1, 7, 4, 10] dtype float32 {{.*}} PASS
func.func @rope_attn(%q: tensor<1x7x4x10xf32>, %k: tensor<1x7x2x10xf32>, %v: tensor<1x7x2x10xf32>) -> tensor<1x7x4x10xf32> {
  %p = llm.constant dense<[0, 1, 2, 3, 5, 8, 13]> : tensor<7xi64>
  %qt = llm.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x7x4x10xf32>) -> tensor<1x4x7x10xf32>
  %kt = llm.transpose %k {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x7x2x10xf32>) -> tensor<1x2x7x10xf32>
  %vt = llm.transpose %v {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x7x2x10xf32>) -> tensor<1x2x7x10xf32>
  %qr = llm.rope %qt, %p : (tensor<1x4x7x10xf32>, tensor<7xi64>) -> tensor<1x4x7x10xf32>
  %kr = llm.rope %kt, %p : (tensor<1x2x7x10xf32>, tensor<7xi64>) -> tensor<1x2x7x10xf32>
  %a = llm.attention %qr, %kr, %vt {causal} : (tensor<1x4x7x10xf32>, tensor<1x2x7x10xf32>, tensor<1x2x7x10xf32>) -> tensor<1x4x7x10xf32>
  %m = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x7x10xf32>) -> tensor<1x7x4x10xf32>
  return %m : tensor<1x7x4x10xf32>
}

// Per-head positions [H, S] under a head split: llm-optimize-layout moves
// the rope before the transpose and transposes the positions to [S, H].
// RUN: mkdir -p %t/rope_pos_t
// RUN: %python -m llmc_check gen %t/rope_pos_t xt=1x6x3x8xf32 'pt=3x6xi64@np.arange(18).reshape(3, 6) % 11'
// RUN: llmc run %s --entry rope_pos_t --input arg0=%t/rope_pos_t/xt.npy --input arg1=%t/rope_pos_t/pt.npy --output-dir %t/rope_pos_t
// RUN: %python -m llmc_check expr "rope(xt.transpose(0, 2, 1, 3), pt, 'interleaved')" --arg pt=%t/rope_pos_t/pt.npy --arg xt=%t/rope_pos_t/xt.npy --actual %t/rope_pos_t/out0.npy --name rope_pos_t | FileCheck %s --check-prefix=ROPE_POS_T
// ROPE_POS_T: rope_pos_t: shape [1, 3, 6, 8] dtype float32 {{.*}} PASS
func.func @rope_pos_t(%x: tensor<1x6x3x8xf32>, %p: tensor<3x6xi64>) -> tensor<1x3x6x8xf32> {
  %t = llm.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x6x3x8xf32>) -> tensor<1x3x6x8xf32>
  %r = llm.rope %t, %p mode <interleaved> : (tensor<1x3x6x8xf32>, tensor<3x6xi64>) -> tensor<1x3x6x8xf32>
  return %r : tensor<1x3x6x8xf32>
}

// Partial rotary (rotary_dims = R): only x[..., :R] rotates (D = R in
// inv_freq), x[..., R:] passes through. GPT-NeoX's quarter of a head (4 of
// 16, rotate_half, run-time positions: cos/sin per element), GPT-J's
// interleaved pairs (6 of 10: an odd number of pairs, constant positions:
// the table path), f16 (8 of 12), and rotary_dims = D (the whole head).
// RUN: mkdir -p %t/rope_partial %t/rope_partial_il %t/rope_partial_f16 %t/rope_partial_full %t/rope_partial_chain %t/rope_partial_chain_noopt
// RUN: %python -m llmc_check gen %t/rope_partial xq=1x2x5x16xf32 xi=1x3x7x10xf32 xr=1x2x5x12xf16 'pq=5xi64@[0, 3, 4, 9, 17]'
// RUN: llmc run %s --entry rope_partial --input arg0=%t/rope_partial/xq.npy --input arg1=%t/rope_partial/pq.npy --output-dir %t/rope_partial
// RUN: %python -m llmc_check expr "rope(xq, pq, rotary_dims=4)" --arg pq=%t/rope_partial/pq.npy --arg xq=%t/rope_partial/xq.npy --actual %t/rope_partial/out0.npy --name rope_partial | FileCheck %s --check-prefix=ROPE_PARTIAL
// ROPE_PARTIAL: rope_partial: shape [1, 2, 5, 16] dtype float32 {{.*}} PASS
func.func @rope_partial(%x: tensor<1x2x5x16xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x16xf32> {
  %0 = llm.rope %x, %p {rotary_dims = 4} : (tensor<1x2x5x16xf32>, tensor<5xi64>) -> tensor<1x2x5x16xf32>
  return %0 : tensor<1x2x5x16xf32>
}
// RUN: llmc run %s --entry rope_partial_il --input arg0=%t/rope_partial/xi.npy --output-dir %t/rope_partial_il
// RUN: %python -m llmc_check expr "rope(xi, pc, 'interleaved', theta=500.0, rotary_dims=6)" --arg pc=%t/rope_const/pc.npy --arg xi=%t/rope_partial/xi.npy --actual %t/rope_partial_il/out0.npy --name rope_partial_il | FileCheck %s --check-prefix=ROPE_PARTIAL_IL
// ROPE_PARTIAL_IL: rope_partial_il: shape [1, 3, 7, 10] dtype float32 {{.*}} PASS
func.func @rope_partial_il(%x: tensor<1x3x7x10xf32>) -> tensor<1x3x7x10xf32> {
  %p = llm.constant dense<[0, 1, 2, 3, 5, 8, 13]> : tensor<7xi64>
  %0 = llm.rope %x, %p mode <interleaved> {rotary_dims = 6, theta = 5.0e+02 : f32} : (tensor<1x3x7x10xf32>, tensor<7xi64>) -> tensor<1x3x7x10xf32>
  return %0 : tensor<1x3x7x10xf32>
}
// RUN: llmc run %s --entry rope_partial_f16 --input arg0=%t/rope_partial/xr.npy --input arg1=%t/rope_partial/pq.npy --output-dir %t/rope_partial_f16
// RUN: %python -m llmc_check expr "rope(xr, pq, rotary_dims=8)" --arg pq=%t/rope_partial/pq.npy --arg xr=%t/rope_partial/xr.npy --actual %t/rope_partial_f16/out0.npy --dtype f16 --name rope_partial_f16 | FileCheck %s --check-prefix=ROPE_PARTIAL_F16
// ROPE_PARTIAL_F16: rope_partial_f16: shape [1, 2, 5, 12] dtype float16 {{.*}} PASS
func.func @rope_partial_f16(%x: tensor<1x2x5x12xf16>, %p: tensor<5xi64>) -> tensor<1x2x5x12xf16> {
  %0 = llm.rope %x, %p {rotary_dims = 8} : (tensor<1x2x5x12xf16>, tensor<5xi64>) -> tensor<1x2x5x12xf16>
  return %0 : tensor<1x2x5x12xf16>
}
// RUN: llmc run %s --entry rope_partial_full --input arg0=%t/rope_partial/xq.npy --input arg1=%t/rope_partial/pq.npy --output-dir %t/rope_partial_full
// RUN: %python -m llmc_check expr "rope(xq, pq)" --arg pq=%t/rope_partial/pq.npy --arg xq=%t/rope_partial/xq.npy --actual %t/rope_partial_full/out0.npy --name rope_partial_full | FileCheck %s --check-prefix=ROPE_PARTIAL_FULL
// ROPE_PARTIAL_FULL: rope_partial_full: shape [1, 2, 5, 16] dtype float32 {{.*}} PASS
func.func @rope_partial_full(%x: tensor<1x2x5x16xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x16xf32> {
  %0 = llm.rope %x, %p {rotary_dims = 16} : (tensor<1x2x5x16xf32>, tensor<5xi64>) -> tensor<1x2x5x16xf32>
  return %0 : tensor<1x2x5x16xf32>
}

// Partial rotary as Hugging Face writes it, slice -> rope -> concat: the
// canonicalizer makes it one llm.rope {rotary_dims = 4}
// (test/Dialect/LLM/canonicalize.mlir @partial_rope); the result equals
// the reference with and without the graph passes (--no-opt).
// RUN: llmc run %s --entry rope_partial_chain --input arg0=%t/rope_partial/xq.npy --input arg1=%t/rope_partial/pq.npy --output-dir %t/rope_partial_chain
// RUN: %python -m llmc_check expr "rope(xq, pq, rotary_dims=4)" --arg pq=%t/rope_partial/pq.npy --arg xq=%t/rope_partial/xq.npy --actual %t/rope_partial_chain/out0.npy --name rope_partial_chain | FileCheck %s --check-prefix=ROPE_PARTIAL_CHAIN
// RUN: llmc run %s --no-opt --entry rope_partial_chain --input arg0=%t/rope_partial/xq.npy --input arg1=%t/rope_partial/pq.npy --output-dir %t/rope_partial_chain_noopt
// RUN: %python -m llmc_check expr "rope(xq, pq, rotary_dims=4)" --arg pq=%t/rope_partial/pq.npy --arg xq=%t/rope_partial/xq.npy --actual %t/rope_partial_chain_noopt/out0.npy --name rope_partial_chain | FileCheck %s --check-prefix=ROPE_PARTIAL_CHAIN
// ROPE_PARTIAL_CHAIN: rope_partial_chain: shape [1, 2, 5, 16] dtype float32 {{.*}} PASS
func.func @rope_partial_chain(%x: tensor<1x2x5x16xf32>, %p: tensor<5xi64>) -> tensor<1x2x5x16xf32> {
  %rot = llm.slice %x {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 5, 4>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x16xf32>) -> tensor<1x2x5x4xf32>
  %pass = llm.slice %x {starts = array<i64: 0, 0, 0, 4>, limits = array<i64: 1, 2, 5, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x16xf32>) -> tensor<1x2x5x12xf32>
  %r = llm.rope %rot, %p : (tensor<1x2x5x4xf32>, tensor<5xi64>) -> tensor<1x2x5x4xf32>
  %c = llm.concat %r, %pass {axis = -1 : i64} : (tensor<1x2x5x4xf32>, tensor<1x2x5x12xf32>) -> tensor<1x2x5x16xf32>
  return %c : tensor<1x2x5x16xf32>
}

// GPT-NeoX's query and key columns of one fused projection ([.., H, 3D]:
// each head's q, k, v side by side), each with partial rotary: llm-fuse
// rotates both with one rope over [.., H, 2, D]
// (test/Dialect/LLM/Transforms/llm-fuse.mlir @merge_column_ropes); both
// results equal the reference, with and without the graph passes.
// RUN: mkdir -p %t/rope_qk %t/rope_qk_noopt
// RUN: %python -m llmc_check gen %t/rope_qk xk=1x5x3x48xf32
// RUN: llmc run %s --entry rope_qk_columns --input arg0=%t/rope_qk/xk.npy --input arg1=%t/rope_partial/pq.npy --output-dir %t/rope_qk
// RUN: %python -m llmc_check expr "rope(xk[..., 0:16], pq[:, None], rotary_dims=4)" --arg pq=%t/rope_partial/pq.npy --arg xk=%t/rope_qk/xk.npy --actual %t/rope_qk/out0.npy --name rope_qk_columns | FileCheck %s --check-prefix=ROPE_QK
// RUN: %python -m llmc_check expr "rope(xk[..., 16:32], pq[:, None], rotary_dims=4)" --arg pq=%t/rope_partial/pq.npy --arg xk=%t/rope_qk/xk.npy --actual %t/rope_qk/out1.npy --name rope_qk_columns | FileCheck %s --check-prefix=ROPE_QK
// RUN: llmc run %s --no-opt --entry rope_qk_columns --input arg0=%t/rope_qk/xk.npy --input arg1=%t/rope_partial/pq.npy --output-dir %t/rope_qk_noopt
// RUN: %python -m llmc_check expr "rope(xk[..., 16:32], pq[:, None], rotary_dims=4)" --arg pq=%t/rope_partial/pq.npy --arg xk=%t/rope_qk/xk.npy --actual %t/rope_qk_noopt/out1.npy --name rope_qk_columns | FileCheck %s --check-prefix=ROPE_QK
// ROPE_QK: rope_qk_columns: shape [1, 5, 3, 16] dtype float32 {{.*}} PASS
func.func @rope_qk_columns(%x: tensor<1x5x3x48xf32>, %p: tensor<5xi64>) -> (tensor<1x5x3x16xf32>, tensor<1x5x3x16xf32>) {
  %pp = llm.reshape %p : (tensor<5xi64>) -> tensor<5x1xi64>
  %q = llm.slice %x {limits = array<i64: 1, 5, 3, 16>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x5x3x48xf32>) -> tensor<1x5x3x16xf32>
  %k = llm.slice %x {limits = array<i64: 1, 5, 3, 32>, starts = array<i64: 0, 0, 0, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x5x3x48xf32>) -> tensor<1x5x3x16xf32>
  %qr = llm.rope %q, %pp {rotary_dims = 4} : (tensor<1x5x3x16xf32>, tensor<5x1xi64>) -> tensor<1x5x3x16xf32>
  %kr = llm.rope %k, %pp {rotary_dims = 4} : (tensor<1x5x3x16xf32>, tensor<5x1xi64>) -> tensor<1x5x3x16xf32>
  return %qr, %kr : tensor<1x5x3x16xf32>, tensor<1x5x3x16xf32>
}
