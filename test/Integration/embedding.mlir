// llm.embedding with i64 and i32 ids, negative ids (counted from the end) at
// the edges of [-V, V), ids of rank 1-3, f16 table; out-of-range ids (also
// INT32_MIN, where id + V must not wrap into range) are a run-time error.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/emb %t/emb_i32 %t/emb_rank3 %t/emb_f16
// RUN: %python -m llmc_check gen %t tab=10x4xf32 'ids=2x5xi64@[[0, 9, -1, -10, 2], [-9, 3, 8, -2, 5]]' 'ids32=7xi32@[0, 1, 9, -1, -5, -10, 4]' 'bad=2x5xi64@[[0, 9, -1, -10, 12], [-11, 3, 100, -100, 5]]' 'bad32=7xi32@[0, 1, 9, -1, -5, 3, -2147483648]' ids3=2x2x3xi64:0:9 tabh=10x4xf16

// ids 0, 9, -1 -> 9, -10 -> 0, -9 -> 1, ...
// RUN: llmc run %s --entry emb --input arg0=%t/tab.npy --input arg1=%t/ids.npy --output-dir %t/emb
// RUN: %python -m llmc_check expr "embedding(tab, ids)" --arg ids=%t/ids.npy --arg tab=%t/tab.npy --actual %t/emb/out0.npy --dtype exact --name emb | FileCheck %s --check-prefix=EMB
// EMB: emb: shape [2, 5, 4] dtype float32 {{.*}} PASS
// Out of range: the largest offending id is named (the smallest when none is
// too large); nothing is written.
// RUN: rm -rf %t/bad && mkdir %t/bad
// RUN: not llmc run %s --entry emb --input arg0=%t/tab.npy --input arg1=%t/bad.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: llmc: error: llm.embedding at {{.*}}embedding.mlir:[[# @LINE + 6]]:8: index 100 is out of range [-10, 10) of a dimension of size 10
// RUN: not llmc run %s --entry emb_i32 --input arg0=%t/tab.npy --input arg1=%t/bad32.npy --output-dir %t/bad 2>&1 | FileCheck %s --check-prefix=BAD32
// BAD32: llmc: error: llm.embedding at {{.*}}embedding.mlir:{{[0-9]+}}:8: index -2147483648 is out of range [-10, 10)
// RUN: %python -c "import os, sys; print('files', os.listdir(sys.argv[1]))" %t/bad | FileCheck %s --check-prefix=NOFILES
// NOFILES: files []
func.func @emb(%t: tensor<10x4xf32>, %ids: tensor<2x5xi64>) -> tensor<2x5x4xf32> {
  %0 = llm.embedding %t, %ids : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// i32 ids including INT32_MIN (id + V must not overflow into range).
// RUN: llmc run %s --entry emb_i32 --input arg0=%t/tab.npy --input arg1=%t/ids32.npy --output-dir %t/emb_i32
// RUN: %python -m llmc_check expr "embedding(tab, ids32)" --arg ids32=%t/ids32.npy --arg tab=%t/tab.npy --actual %t/emb_i32/out0.npy --dtype exact --name emb_i32 | FileCheck %s --check-prefix=EMB_I32
// EMB_I32: emb_i32: shape [7, 4] dtype float32 {{.*}} PASS
func.func @emb_i32(%t: tensor<10x4xf32>, %ids: tensor<7xi32>) -> tensor<7x4xf32> {
  %0 = llm.embedding %t, %ids : (tensor<10x4xf32>, tensor<7xi32>) -> tensor<7x4xf32>
  return %0 : tensor<7x4xf32>
}

// RUN: llmc run %s --entry emb_rank3 --input arg0=%t/tab.npy --input arg1=%t/ids3.npy --output-dir %t/emb_rank3
// RUN: %python -m llmc_check expr "embedding(tab, ids3)" --arg ids3=%t/ids3.npy --arg tab=%t/tab.npy --actual %t/emb_rank3/out0.npy --dtype exact --name emb_rank3 | FileCheck %s --check-prefix=EMB_RANK3
// EMB_RANK3: emb_rank3: shape [2, 2, 3, 4] dtype float32 {{.*}} PASS
func.func @emb_rank3(%t: tensor<10x4xf32>, %ids: tensor<2x2x3xi64>) -> tensor<2x2x3x4xf32> {
  %0 = llm.embedding %t, %ids : (tensor<10x4xf32>, tensor<2x2x3xi64>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// RUN: llmc run %s --entry emb_f16 --input arg0=%t/tabh.npy --input arg1=%t/ids.npy --output-dir %t/emb_f16
// RUN: %python -m llmc_check expr "embedding(tabh, ids)" --arg ids=%t/ids.npy --arg tabh=%t/tabh.npy --actual %t/emb_f16/out0.npy --dtype exact --name emb_f16 | FileCheck %s --check-prefix=EMB_F16
// EMB_F16: emb_f16: shape [2, 5, 4] dtype float16 {{.*}} PASS
func.func @emb_f16(%t: tensor<10x4xf16>, %ids: tensor<2x5xi64>) -> tensor<2x5x4xf16> {
  %0 = llm.embedding %t, %ids : (tensor<10x4xf16>, tensor<2x5xi64>) -> tensor<2x5x4xf16>
  return %0 : tensor<2x5x4xf16>
}
