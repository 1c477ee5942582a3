// Execution check of llm-keep-last-logits: @main (a pre-norm decoder layer
// with causal attention and an LM head, the sequence dynamic up to 8) runs
// through `llmc run` (JIT on the CPU; weights from the seeded generator,
// uniform in [-1, 1)) as written and after the pass, on prompts of 5 tokens
// and of 1; the pass's output must equal the last row of the original's,
// |a - e| <= 1e-5 + 1e-5 |e| (the rows are computed by the same ops; only
// the kernels' summation order may differ).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -m llmc_check gen %t x5=1x5x16xf32 x1=1x1x16xf32
// RUN: llm-opt %s --llm-keep-last-logits -o %t/last.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t/last.mlir
// RUN: llmc run %s --input arg0=%t/x5.npy --seed 3 --output-dir %t/all5 > /dev/null
// RUN: llmc run %t/last.mlir --input arg0=%t/x5.npy --seed 3 --output-dir %t/last5 > /dev/null
// RUN: %python -m llmc_check expr "all[:, -1]" --arg all=%t/all5/out0.npy --actual %t/last5/out0.npy --rtol 1e-5 --atol 1e-5 --name s5 | FileCheck %s --check-prefix=S5
// RUN: llmc run %s --input arg0=%t/x1.npy --seed 3 --output-dir %t/all1 > /dev/null
// RUN: llmc run %t/last.mlir --input arg0=%t/x1.npy --seed 3 --output-dir %t/last1 > /dev/null
// RUN: %python -m llmc_check expr "all[:, -1]" --arg all=%t/all1/out0.npy --actual %t/last1/out0.npy --rtol 1e-5 --atol 1e-5 --name s1 | FileCheck %s --check-prefix=S1

// S5: s5: shape [1, 37] {{.*}} PASS
// S1: s1: shape [1, 37] {{.*}} PASS

// The LM head and the MLP run on one row.
// OPT: llm.matmul {{.*}} : (tensor<1x1x16xf32>, tensor<16x32xf32>) -> tensor<1x1x32xf32>
// OPT: llm.matmul {{.*}} {transpose_b} : (tensor<1x1x16xf32>, tensor<37x16xf32>) -> tensor<1x1x37xf32>
// OPT: return {{.*}} : tensor<1x37xf32>

func.func @main(%x: tensor<1x?x16xf32> {llm.dim_bounds = array<i64: 1, 8, 16>}, %g: tensor<16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>, %head: tensor<37x16xf32>) -> tensor<1x?x37xf32> {
  %n = llm.rms_norm %x weight %g : (tensor<1x?x16xf32>, tensor<16xf32>) -> tensor<1x?x16xf32>
  %n2 = llm.reshape %n : (tensor<1x?x16xf32>) -> tensor<?x16xf32>
  %q = llm.matmul %n2, %wq : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %k = llm.matmul %n2, %wk : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %v = llm.matmul %n2, %wv : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %q4 = llm.reshape %q : (tensor<?x16xf32>) -> tensor<1x?x2x8xf32>
  %k4 = llm.reshape %k : (tensor<?x16xf32>) -> tensor<1x?x2x8xf32>
  %v4 = llm.reshape %v : (tensor<?x16xf32>) -> tensor<1x?x2x8xf32>
  %a = llm.attention %q4, %k4, %v4 {causal, layout = #llm.attention_layout<bshd>} : (tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>) -> tensor<1x?x2x8xf32>
  %a2 = llm.reshape %a : (tensor<1x?x2x8xf32>) -> tensor<1x?x16xf32>
  %h = llm.add %x, %a2 : (tensor<1x?x16xf32>, tensor<1x?x16xf32>) -> tensor<1x?x16xf32>
  %m = llm.layer_norm %h scale %g : (tensor<1x?x16xf32>, tensor<16xf32>) -> tensor<1x?x16xf32>
  %u = llm.matmul %m, %w1 : (tensor<1x?x16xf32>, tensor<16x32xf32>) -> tensor<1x?x32xf32>
  %s = llm.silu %u : tensor<1x?x32xf32>
  %d = llm.matmul %s, %w2 : (tensor<1x?x32xf32>, tensor<32x16xf32>) -> tensor<1x?x16xf32>
  %o = llm.add %h, %d : (tensor<1x?x16xf32>, tensor<1x?x16xf32>) -> tensor<1x?x16xf32>
  %l = llm.matmul %o, %head {transpose_b} : (tensor<1x?x16xf32>, tensor<37x16xf32>) -> tensor<1x?x37xf32>
  return %l : tensor<1x?x37xf32>
}
