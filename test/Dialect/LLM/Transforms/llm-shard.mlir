// llm-shard plans Megatron tensor parallelism; shard-partition (upstream)
// then gives the program of one rank; llm-lower-shard specializes it to a
// rank and llm-fold-constants keeps only that rank's slice of each weight.
// RUN: llm-opt %s --llm-shard="ranks=2" -split-input-file 2>&1 | FileCheck %s --check-prefix=ANNOT
// RUN: llm-opt %s -split-input-file \
// RUN:   --pass-pipeline="builtin.module(llm-shard{ranks=2},func.func(shard-partition))" \
// RUN:   | FileCheck %s --check-prefix=PART
// The annotated module parses back and partitions the same way.
// RUN: llm-opt %s -split-input-file --llm-shard="ranks=2" -o %t.mlir 2>/dev/null
// RUN: llm-opt %t.mlir -split-input-file --pass-pipeline="builtin.module(func.func(shard-partition))" \
// RUN:   | FileCheck %s --check-prefix=PART
// RUN: llm-opt %s -split-input-file \
// RUN:   --pass-pipeline="builtin.module(llm-shard{ranks=2},func.func(shard-partition),llm-lower-shard{rank=1},llm-fold-constants)" \
// RUN:   | FileCheck %s --check-prefix=RANK1

// A GPT-2 block (d 8, 2 heads of 4, MLP 16): the fused c_attn projection is
// split into q, k, v projections, each column-parallel by heads; attention
// runs on this rank's heads; c_proj and the MLP's second matmul are
// row-parallel, each followed by an all-reduce (two per layer). The layer
// norms, biases after the all-reduces and the residuals stay replicated.

// ANNOT-LABEL: shard.grid @tp(shape = 2)
// ANNOT-LABEL: func.func @gpt2_block
// ANNOT-DAG: %[[REP:.*]] = shard.sharding @tp split_axes = {{\[\[}}]] : !shard.sharding
// ANNOT-DAG: %[[COL:.*]] = shard.sharding @tp split_axes = {{\[\[}}], [0]] : !shard.sharding
// ANNOT-DAG: %[[ROW:.*]] = shard.sharding @tp split_axes = {{\[\[}}0]] : !shard.sharding
// ANNOT-DAG: %[[LAST:.*]] = shard.sharding @tp split_axes = {{\[\[}}], [], [0]] : !shard.sharding
// The first projection's weight, split by columns for its user.
// ANNOT: %[[W:.*]] = shard.shard %{{.*}} to %[[REP]] : tensor<8x8xf32>
// ANNOT: %[[WC:.*]] = shard.shard %[[W]] to %[[COL]] annotate_for_users : tensor<8x8xf32>
// ANNOT: %[[Q:.*]] = llm.matmul %{{.*}}, %[[WC]]
// ANNOT-NEXT: shard.shard %[[Q]] to %[[LAST]] : tensor<1x4x8xf32>

// PART-LABEL: func.func @gpt2_block
// PART-SAME: (%[[X:.*]]: tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// PART: llm.layer_norm %[[X]]
// PART-COUNT-3: shard.all_slice %{{.*}} on @tp grid_axes = [0] slice_axis = 1 : tensor<8x8xf32> -> tensor<8x4xf32>
// PART: llm.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
// PART: shard.all_slice %{{.*}} on @tp grid_axes = [0] slice_axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
// PART: %[[P:.*]] = llm.matmul %{{.*}}, %{{.*}} : (tensor<1x4x4xf32>, tensor<4x8xf32>) -> tensor<1x4x8xf32>
// PART-NEXT: %[[R1:.*]] = shard.all_reduce %[[P]] on @tp grid_axes = [0] : tensor<1x4x8xf32> -> tensor<1x4x8xf32>
// PART: llm.add %[[R1]],
// PART: llm.matmul %{{.*}}, %{{.*}} : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
// PART: llm.gelu %{{.*}} : tensor<1x4x8xf32>
// PART: %[[M:.*]] = llm.matmul %{{.*}}, %{{.*}} : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
// PART-NEXT: shard.all_reduce %[[M]] on @tp grid_axes = [0]
// PART-NOT: shard.all_reduce
// PART: return

// Rank 1 holds columns 4..7 of each of the q, k and v projections (the
// fused weight's column j holds j: 4..7, 12..15, 20..23) and rows 4..7 of
// c_proj; no shard op but the all-reduces is left.
// RANK1-LABEL: func.func @gpt2_block
// RANK1-NOT: all_slice
// RANK1-NOT: llm.slice
// RANK1-DAG: llm.constant dense<{{\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], {{.*}}> : tensor<8x4xf32>
// RANK1-DAG: llm.constant dense<{{\[\[}}1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], {{.*}}> : tensor<8x4xf32>
// RANK1-DAG: llm.constant dense<{{\[\[}}2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01], {{.*}}> : tensor<8x4xf32>
// RANK1-DAG: llm.constant dense<1.000000e+00> : tensor<4x8xf32>
// RANK1-COUNT-2: shard.all_reduce
// RANK1-NOT: shard.all_reduce

func.func @gpt2_block(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %g = llm.constant dense<1.0> : tensor<8xf32>
  %b = llm.constant dense<0.0> : tensor<8xf32>
  %h = llm.layer_norm %x scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %w_qkv = llm.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<8x24xf32>
  %qkv0 = llm.matmul %h, %w_qkv : (tensor<1x4x8xf32>, tensor<8x24xf32>) -> tensor<1x4x24xf32>
  %b_qkv = llm.constant dense<0.5> : tensor<24xf32>
  %qkv = llm.add %qkv0, %b_qkv : (tensor<1x4x24xf32>, tensor<24xf32>) -> tensor<1x4x24xf32>
  %q0 = llm.slice %qkv {starts = array<i64: 0, 0, 0>, limits = array<i64: 1, 4, 8>, strides = array<i64: 1, 1, 1>} : (tensor<1x4x24xf32>) -> tensor<1x4x8xf32>
  %k0 = llm.slice %qkv {starts = array<i64: 0, 0, 8>, limits = array<i64: 1, 4, 16>, strides = array<i64: 1, 1, 1>} : (tensor<1x4x24xf32>) -> tensor<1x4x8xf32>
  %v0 = llm.slice %qkv {starts = array<i64: 0, 0, 16>, limits = array<i64: 1, 4, 24>, strides = array<i64: 1, 1, 1>} : (tensor<1x4x24xf32>) -> tensor<1x4x8xf32>
  %q1 = llm.reshape %q0 : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32>
  %k1 = llm.reshape %k0 : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32>
  %v1 = llm.reshape %v0 : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32>
  %q = llm.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32>
  %k = llm.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32>
  %v = llm.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32>
  %a = llm.attention %q, %k, %v {causal} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a1 = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x2x4xf32>
  %a2 = llm.reshape %a1 : (tensor<1x4x2x4xf32>) -> tensor<1x4x8xf32>
  %w_proj = llm.constant dense<1.0> : tensor<8x8xf32>
  %p = llm.matmul %a2, %w_proj : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %b_proj = llm.constant dense<0.25> : tensor<8xf32>
  %p1 = llm.add %p, %b_proj : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %r = llm.add %x, %p1 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %h2 = llm.layer_norm %r scale %g bias %b {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %w_fc = llm.constant dense<0.5> : tensor<8x16xf32>
  %f = llm.matmul %h2, %w_fc : (tensor<1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x4x16xf32>
  %f1 = llm.gelu %f approximate <tanh> : tensor<1x4x16xf32>
  %w_out = llm.constant dense<0.125> : tensor<16x8xf32>
  %o = llm.matmul %f1, %w_out : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> tensor<1x4x8xf32>
  %y = llm.add %r, %o : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// A LLaMA block (d 8, 4 query heads and 2 key/value heads of 2, RoPE,
// SwiGLU MLP of 8): q, k, v, gate and up are column-parallel (each rank
// has 2 query heads and 1 key/value head: GQA keeps its group size), RoPE
// and attention run on the local heads, o and down are row-parallel: two
// all-reduces. The RMS norms stay replicated.

// PART-LABEL: func.func @llama_block
// RANK1-LABEL: func.func @llama_block
// RANK1-COUNT-2: shard.all_reduce
// PART: llm.rms_norm
// PART: llm.rope %{{.*}}, %{{.*}} : (tensor<1x2x4x2xf32>, tensor<4xi64>) -> tensor<1x2x4x2xf32>
// PART: llm.rope %{{.*}}, %{{.*}} : (tensor<1x1x4x2xf32>, tensor<4xi64>) -> tensor<1x1x4x2xf32>
// PART: llm.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : (tensor<1x2x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>) -> tensor<1x2x4x2xf32>
// PART: %[[O:.*]] = llm.matmul %{{.*}}, %{{.*}} : (tensor<1x4x4xf32>, tensor<4x8xf32>) -> tensor<1x4x8xf32>
// PART-NEXT: shard.all_reduce %[[O]]
// PART: llm.silu %{{.*}} : tensor<1x4x4xf32>
// PART: %[[D:.*]] = llm.matmul %{{.*}}, %{{.*}} : (tensor<1x4x4xf32>, tensor<4x8xf32>) -> tensor<1x4x8xf32>
// PART-NEXT: shard.all_reduce %[[D]]
// PART-NOT: shard.all_reduce
// PART: return

func.func @llama_block(%x: tensor<1x4x8xf32>, %pos: tensor<4xi64>) -> tensor<1x4x8xf32> {
  %g = llm.constant dense<1.0> : tensor<8xf32>
  %h = llm.rms_norm %x weight %g {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %wq = llm.constant dense<0.1> : tensor<8x8xf32>
  %wk = llm.constant dense<0.2> : tensor<8x4xf32>
  %wv = llm.constant dense<0.3> : tensor<8x4xf32>
  %q0 = llm.matmul %h, %wq : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %k0 = llm.matmul %h, %wk : (tensor<1x4x8xf32>, tensor<8x4xf32>) -> tensor<1x4x4xf32>
  %v0 = llm.matmul %h, %wv : (tensor<1x4x8xf32>, tensor<8x4xf32>) -> tensor<1x4x4xf32>
  %q1 = llm.reshape %q0 : (tensor<1x4x8xf32>) -> tensor<1x4x4x2xf32>
  %k1 = llm.reshape %k0 : (tensor<1x4x4xf32>) -> tensor<1x4x2x2xf32>
  %v1 = llm.reshape %v0 : (tensor<1x4x4xf32>) -> tensor<1x4x2x2xf32>
  %q2 = llm.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %k2 = llm.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x2xf32>) -> tensor<1x2x4x2xf32>
  %v = llm.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x2xf32>) -> tensor<1x2x4x2xf32>
  %q = llm.rope %q2, %pos : (tensor<1x4x4x2xf32>, tensor<4xi64>) -> tensor<1x4x4x2xf32>
  %k = llm.rope %k2, %pos : (tensor<1x2x4x2xf32>, tensor<4xi64>) -> tensor<1x2x4x2xf32>
  %a = llm.attention %q, %k, %v {causal} : (tensor<1x4x4x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>) -> tensor<1x4x4x2xf32>
  %a1 = llm.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %a2 = llm.reshape %a1 : (tensor<1x4x4x2xf32>) -> tensor<1x4x8xf32>
  %wo = llm.constant dense<0.4> : tensor<8x8xf32>
  %o = llm.matmul %a2, %wo : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %r = llm.add %x, %o : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %h2 = llm.rms_norm %r weight %g {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %wg = llm.constant dense<0.5> : tensor<8x8xf32>
  %wu = llm.constant dense<0.6> : tensor<8x8xf32>
  %gate = llm.matmul %h2, %wg : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %up = llm.matmul %h2, %wu : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %s = llm.silu %gate : tensor<1x4x8xf32>
  %m = llm.mul %s, %up : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %wd = llm.constant dense<0.7> : tensor<8x8xf32>
  %d = llm.matmul %m, %wd : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %y = llm.add %r, %d : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// An LM head whose result is a function result is column-parallel (split
// by vocabulary) and its logits are gathered; one whose vocabulary does
// not divide by the ranks stays replicated, with a warning.

// PART-LABEL: func.func @lm_head
// PART: %[[W:.*]] = shard.all_slice %{{.*}} on @tp grid_axes = [0] slice_axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// PART: %[[L:.*]] = llm.matmul %{{.*}}, %[[W]] : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
// PART: shard.all_gather %[[L]] on @tp grid_axes = [0] gather_axis = 2 : tensor<1x4x8xf32> -> tensor<1x4x16xf32>
// RANK1-LABEL: func.func @lm_head
func.func @lm_head(%x: tensor<1x4x8xf32>) -> tensor<1x4x16xf32> {
  %w = llm.constant dense<0.5> : tensor<8x16xf32>
  %y = llm.matmul %x, %w : (tensor<1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x4x16xf32>
  return %y : tensor<1x4x16xf32>
}

// -----

// ANNOT: warning: llm-shard: no column-/row-parallel matmul pair found; every op is replicated on the 2 ranks
// PART-LABEL: func.func @odd_vocab
// PART-NOT: all_slice
// PART: llm.matmul %{{.*}}, %{{.*}} : (tensor<1x4x8xf32>, tensor<8x15xf32>) -> tensor<1x4x15xf32>
// RANK1-LABEL: func.func @odd_vocab
func.func @odd_vocab(%x: tensor<1x4x8xf32>) -> tensor<1x4x15xf32> {
  %w = llm.constant dense<0.5> : tensor<8x15xf32>
  %y = llm.matmul %x, %w : (tensor<1x4x8xf32>, tensor<8x15xf32>) -> tensor<1x4x15xf32>
  return %y : tensor<1x4x15xf32>
}

// -----

// A dynamic sequence dimension before the split one: the reshape into heads
// keeps it, and the split moves to the heads.
// PART-LABEL: func.func @dynamic_seq
// PART: llm.reshape %{{.*}} : (tensor<1x?x4xf32>) -> tensor<1x?x1x4xf32>
// PART: llm.reshape %{{.*}} : (tensor<1x?x1x4xf32>) -> tensor<1x?x4xf32>
// PART: %[[P:.*]] = llm.matmul %{{.*}}, %{{.*}} : (tensor<1x?x4xf32>, tensor<4x8xf32>) -> tensor<1x?x8xf32>
// PART-NEXT: shard.all_reduce %[[P]]
// RANK1-LABEL: func.func @dynamic_seq
func.func @dynamic_seq(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  %w = llm.constant dense<0.5> : tensor<8x8xf32>
  %h = llm.matmul %x, %w : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
  %r = llm.reshape %h : (tensor<1x?x8xf32>) -> tensor<1x?x2x4xf32>
  %s = llm.sigmoid %r : tensor<1x?x2x4xf32>
  %b = llm.reshape %s : (tensor<1x?x2x4xf32>) -> tensor<1x?x8xf32>
  %w2 = llm.constant dense<0.25> : tensor<8x8xf32>
  %y = llm.matmul %b, %w2 : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
  return %y : tensor<1x?x8xf32>
}

// -----

// Generation: a key/value cache argument updated in place is split with the
// heads written into it (the rank's program takes its heads of the cache),
// and a Hugging Face Conv1D projection (rows flattened around the fused
// c_attn matmul) is split into q, k and v before the slices.
// PART-LABEL: func.func @decoder
// PART-SAME: %{{.*}}: tensor<1x32x1x4xf32> {llm.kv_cache}, %{{.*}}: tensor<1x32x1x4xf32> {llm.kv_cache}
// PART-COUNT-3: llm.matmul %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
// PART: llm.kv_cache_update %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x32x1x4xf32>, tensor<1x?x1x4xf32>, tensor<i64>) -> tensor<1x32x1x4xf32>
// PART: llm.attention
// PART-SAME: (tensor<1x?x1x4xf32>, tensor<1x32x1x4xf32>, tensor<1x32x1x4xf32>, tensor<i64>) -> tensor<1x?x1x4xf32>
// PART: shard.all_reduce
// RANK1-LABEL: func.func @decoder
func.func @decoder(%x: tensor<1x?x8xf32> {llm.dim_bounds = array<i64: 1, 32, 8>}, %kc: tensor<1x32x2x4xf32> {llm.kv_cache}, %vc: tensor<1x32x2x4xf32> {llm.kv_cache}, %past: tensor<i64>, %total: tensor<i64>) -> tensor<1x?x8xf32> {
  %rows = llm.reshape %x : (tensor<1x?x8xf32>) -> tensor<?x8xf32>
  %w = llm.constant dense<0.5> : tensor<8x24xf32>
  %p = llm.matmul %rows, %w : (tensor<?x8xf32>, tensor<8x24xf32>) -> tensor<?x24xf32>
  %b = llm.constant dense<0.1> : tensor<24xf32>
  %pb = llm.add %p, %b : (tensor<?x24xf32>, tensor<24xf32>) -> tensor<?x24xf32>
  %qkv = llm.reshape %pb : (tensor<?x24xf32>) -> tensor<1x?x24xf32>
  %q0 = llm.slice %qkv {starts = array<i64: 0, 0, 0>, limits = array<i64: 1, 32, 8>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x24xf32>) -> tensor<1x?x8xf32>
  %k0 = llm.slice %qkv {starts = array<i64: 0, 0, 8>, limits = array<i64: 1, 32, 16>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x24xf32>) -> tensor<1x?x8xf32>
  %v0 = llm.slice %qkv {starts = array<i64: 0, 0, 16>, limits = array<i64: 1, 32, 24>, strides = array<i64: 1, 1, 1>} : (tensor<1x?x24xf32>) -> tensor<1x?x8xf32>
  %q = llm.reshape %q0 : (tensor<1x?x8xf32>) -> tensor<1x?x2x4xf32>
  %k = llm.reshape %k0 : (tensor<1x?x8xf32>) -> tensor<1x?x2x4xf32>
  %v = llm.reshape %v0 : (tensor<1x?x8xf32>) -> tensor<1x?x2x4xf32>
  %kn = llm.kv_cache_update %kc, %k, %past {axis = 1 : i64} : (tensor<1x32x2x4xf32>, tensor<1x?x2x4xf32>, tensor<i64>) -> tensor<1x32x2x4xf32>
  %vn = llm.kv_cache_update %vc, %v, %past {axis = 1 : i64} : (tensor<1x32x2x4xf32>, tensor<1x?x2x4xf32>, tensor<i64>) -> tensor<1x32x2x4xf32>
  %a = llm.attention %q, %kn, %vn kv_length %total {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x?x2x4xf32>, tensor<1x32x2x4xf32>, tensor<1x32x2x4xf32>, tensor<i64>) -> tensor<1x?x2x4xf32>
  %a1 = llm.reshape %a : (tensor<1x?x2x4xf32>) -> tensor<?x8xf32>
  %wo = llm.constant dense<0.25> : tensor<8x8xf32>
  %o = llm.matmul %a1, %wo : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %o1 = llm.reshape %o : (tensor<?x8xf32>) -> tensor<1x?x8xf32>
  %y = llm.add %x, %o1 : (tensor<1x?x8xf32>, tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %y : tensor<1x?x8xf32>
}
