// llm.constant: inline dense, splat and dense_resource values (f32, f16, i64)
// feeding computations.
//
// Each function runs through `llmc run --entry NAME` (JIT on the CPU) and its
// out0.npy is compared by `llmc_check expr` with the numpy reference of
// test/lib/llmc_ref.py, written from LLMOps.td (see llmc_check.py for the
// tolerances: f32 rtol 1e-5 + atol 1e-6, f16 2e-3 + 1e-3, bf16 1.6e-2 + 1e-2,
// `exact` for integers and data movement). Inputs are seeded (llmc_check gen).
// bf16 cases take and return f32 and cast inside (numpy has no bf16).
//
// RUN: rm -rf %t && mkdir -p %t/const_inline %t/const_splat %t/const_resource %t/const_resource_table %t/const_resource_i64
// RUN: %python -m llmc_check gen %t x=2x4xf32 'ids=3xi64@[2, 0, 3]'

// RUN: llmc run %s --entry const_inline --input arg0=%t/x.npy --output-dir %t/const_inline
// RUN: %python -m llmc_check expr "add(x, np.array([[1.5, -2.0, 0.25, 8.0]], np.float32))" --arg x=%t/x.npy --actual %t/const_inline/out0.npy --name const_inline | FileCheck %s --check-prefix=CONST_INLINE
// CONST_INLINE: const_inline: shape [2, 4] dtype float32 {{.*}} PASS
func.func @const_inline(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = llm.constant dense<[[1.5, -2.0, 0.25, 8.0]]> : tensor<1x4xf32>
  %0 = llm.add %x, %c : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// RUN: llmc run %s --entry const_splat --input arg0=%t/x.npy --output-dir %t/const_splat
// RUN: %python -m llmc_check expr "mul(x, np.full((2, 4), 3.0, np.float32))" --arg x=%t/x.npy --actual %t/const_splat/out0.npy --name const_splat | FileCheck %s --check-prefix=CONST_SPLAT
// CONST_SPLAT: const_splat: shape [2, 4] dtype float32 {{.*}} PASS
func.func @const_splat(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = llm.constant dense<3.0> : tensor<2x4xf32>
  %0 = llm.mul %x, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// blob_f32 = [1, 2, 3, 4].
// RUN: llmc run %s --entry const_resource --input arg0=%t/x.npy --output-dir %t/const_resource
// RUN: %python -m llmc_check expr "sub(x, np.array([1.0, 2.0, 3.0, 4.0], np.float32))" --arg x=%t/x.npy --actual %t/const_resource/out0.npy --name const_resource | FileCheck %s --check-prefix=CONST_RESOURCE
// CONST_RESOURCE: const_resource: shape [2, 4] dtype float32 {{.*}} PASS
func.func @const_resource(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = llm.constant dense_resource<blob_f32> : tensor<4xf32>
  %0 = llm.sub %x, %c : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// blob_f16 = [[1, -1], [0.5, 2], [-3, 4], [8, 0]] (alignment 2).
// RUN: llmc run %s --entry const_resource_table --input arg0=%t/ids.npy --output-dir %t/const_resource_table
// RUN: %python -m llmc_check expr "embedding(np.array([[1, -1], [0.5, 2], [-3, 4], [8, 0]], np.float16), ids)" --arg ids=%t/ids.npy --actual %t/const_resource_table/out0.npy --dtype exact --name const_resource_table | FileCheck %s --check-prefix=CONST_RESOURCE_TABLE
// CONST_RESOURCE_TABLE: const_resource_table: shape [3, 2] dtype float16 {{.*}} PASS
func.func @const_resource_table(%ids: tensor<3xi64>) -> tensor<3x2xf16> {
  %t = llm.constant dense_resource<blob_f16> : tensor<4x2xf16>
  %0 = llm.embedding %t, %ids : (tensor<4x2xf16>, tensor<3xi64>) -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// blob_i64 = [1, 0, 1] (alignment 8).
// RUN: llmc run %s --entry const_resource_i64 --input arg0=%t/x.npy --output-dir %t/const_resource_i64
// RUN: %python -m llmc_check expr "embedding(x, np.array([1, 0, 1]))" --arg x=%t/x.npy --actual %t/const_resource_i64/out0.npy --dtype exact --name const_resource_i64 | FileCheck %s --check-prefix=CONST_RESOURCE_I64
// CONST_RESOURCE_I64: const_resource_i64: shape [3, 4] dtype float32 {{.*}} PASS
func.func @const_resource_i64(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %ids = llm.constant dense_resource<blob_i64> : tensor<3xi64>
  %0 = llm.embedding %x, %ids : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob_f32: "0x040000000000803F000000400000404000008040",
      blob_f16: "0x02000000003C00BC0038004000C2004400480000",
      blob_i64: "0x08000000010000000000000000000000000000000100000000000000"
    }
  }
#-}
