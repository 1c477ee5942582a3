// llm.kv_cache_update executed through `llmc run`, against numpy: the new
// rows land at the position (bhsd axis 2 and bshd axis 1, a static and a
// dynamic number of rows) and nothing else of the cache changes; a write
// that would end past the cache is an error after the call naming the op
// (the position is clamped, so nothing is written outside the cache).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -m llmc_check gen %t c=1x2x8x4xf32 u=1x2x3x4xf32 p=i64@"np.array(5)" bad=i64@"np.array(6)" cs=1x8x2x4xf32 us=1x3x2x4xf32 p2=i64@"np.array(2)"
// RUN: llmc run %s --entry bhsd --input arg0=%t/c.npy --input arg1=%t/u.npy --input arg2=%t/p.npy --output-dir %t/bhsd
// RUN: %python -m llmc_check expr "np.concatenate([c[:, :, :5], u], axis=2)" --arg c=%t/c.npy --arg u=%t/u.npy --actual %t/bhsd/out0.npy --dtype exact --name bhsd | FileCheck %s --check-prefix=BHSD
// BHSD: bhsd: {{.*}} PASS
// RUN: llmc run %s --entry bshd --input arg0=%t/cs.npy --input arg1=%t/us.npy --input arg2=%t/p2.npy --output-dir %t/bshd
// RUN: %python -m llmc_check expr "np.concatenate([cs[:, :2], us, cs[:, 5:]], axis=1)" --arg cs=%t/cs.npy --arg us=%t/us.npy --actual %t/bshd/out0.npy --dtype exact --name bshd | FileCheck %s --check-prefix=BSHD
// BSHD: bshd: {{.*}} PASS
// RUN: not llmc run %s --entry bhsd --input arg0=%t/c.npy --input arg1=%t/u.npy --input arg2=%t/bad.npy --output-dir %t/badout 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: llmc: error: llm.kv_cache_update at {{.*}}kv-cache-update.mlir:{{[0-9]+}}:{{[0-9]+}}: index 8 is out of range [-8, 8)
// RUN: test ! -e %t/badout/out0.npy

func.func @bhsd(%c: tensor<1x2x8x4xf32>, %u: tensor<1x2x3x4xf32>, %p: tensor<i64>) -> tensor<1x2x8x4xf32> {
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x2x8x4xf32>, tensor<1x2x3x4xf32>, tensor<i64>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

func.func @bshd(%c: tensor<1x8x2x4xf32>, %u: tensor<1x?x2x4xf32> {llm.dim_bounds = array<i64: 1, 8, 2, 4>}, %p: tensor<i64>) -> tensor<1x8x2x4xf32> {
  %0 = llm.kv_cache_update %c, %u, %p {axis = 1 : i64} : (tensor<1x8x2x4xf32>, tensor<1x?x2x4xf32>, tensor<i64>) -> tensor<1x8x2x4xf32>
  return %0 : tensor<1x8x2x4xf32>
}
