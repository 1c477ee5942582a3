// RUN: split-file %s %t
// The matmuls of the entries for znver4 at 2 threads get their tiles.
// RUN: llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/cache.json target=znver4 num-threads=2" | FileCheck %s
// Planned for 1 thread (parallel=false), the keys say threads=1.
// RUN: llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/cache.json target=znver4 parallel=false" | FileCheck %s --check-prefix=SERIAL
// A cache made on another kind of CPU: a warning, nothing recorded.
// RUN: llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/cache.json target=sapphirerapids num-threads=2" 2>&1 | FileCheck %s --check-prefix=OTHER
// warn-other-cpu=false (the second run of the pass in llm-lower-to-cpu):
// silent.
// RUN: llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/cache.json target=sapphirerapids warn-other-cpu=false" 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: warning
// Bad caches: an error naming the file and what is wrong.
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/not-json.json target=znver4" 2>&1 | FileCheck %s --check-prefix=NOTJSON
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/bad-tile.json target=znver4" 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/other-format.json target=znver4" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/bad-attention.json target=znver4" 2>&1 | FileCheck %s --check-prefix=BADATTN
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/inf-time.json target=znver4" 2>&1 | FileCheck %s --check-prefix=INF
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/cache.json target=znver4 num-threads=5000" 2>&1 | FileCheck %s --check-prefix=NUMTHREADS
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/missing.json target=znver4" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not llm-opt %t/input.mlir --llm-apply-tuning-cache="cache=%t/cache.json target=pentium-pro" 2>&1 | FileCheck %s --check-prefix=TARGET

// NOTJSON: error: llm-apply-tuning-cache: tuning cache '{{.*}}not-json.json': not JSON:
// BADTILE: error: llm-apply-tuning-cache: tuning cache '{{.*}}bad-tile.json': entry 0: 'register_tile' must hold integers >= 1
// FORMAT: error: llm-apply-tuning-cache: tuning cache '{{.*}}other-format.json': not an llmc tuning cache (its "format" is not "llmc-tuning-cache")
// BADATTN: error: llm-apply-tuning-cache: tuning cache '{{.*}}bad-attention.json': entry 0: 'attention_tile' must be an array of two integers >= 1
// INF: error: llm-apply-tuning-cache: tuning cache '{{.*}}inf-time.json': entry 0: 'time_ms' and 'default_ms' must be finite non-negative numbers
// NUMTHREADS: error: llm-apply-tuning-cache: num-threads must be in [0, 1024] (0: the machine's), got 5000
// MISSING: error: llm-apply-tuning-cache: cannot read tuning cache '{{.*}}missing.json': No such file or directory
// TARGET: error: llm-apply-tuning-cache: unknown target 'pentium-pro'

//--- input.mlir
// CHECK-LABEL: func.func @const_rhs
// CHECK: linalg.matmul {llm.lowering_config = {cache_tile = array<i64: 64, 128, 32>, register_tile = array<i64: 4, 64, 1>}}
// SERIAL-LABEL: func.func @const_rhs
// SERIAL: linalg.matmul {llm.lowering_config = {cache_tile = array<i64: 0, 0, 0>, register_tile = array<i64: 12, 32, 1>}}
// OTHER: warning: tuning cache '{{.*}}cache.json' was made on another kind of CPU (znver4/avx512-bf16), not sapphirerapids/avx512-bf16: ignored
// OTHER-NOT: llm.lowering_config
// OTHER-LABEL: func.func @kept
func.func @const_rhs(%a: tensor<16x32xf32>) -> tensor<16x64xf32> {
  %w = arith.constant dense<1.0> : tensor<32x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// The same shape with B computed at run time: another kernel, no entry.
// CHECK-LABEL: func.func @value_rhs
// CHECK-NOT: llm.lowering_config
// CHECK: return
func.func @value_rhs(%a: tensor<16x32xf32>, %w: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// A configuration already there (written by hand) is kept.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul {llm.lowering_config = {cache_tile = array<i64: 0, 0, 0>, register_tile = array<i64: 2, 16, 1>}}
func.func @kept(%a: tensor<16x32xf32>) -> tensor<16x64xf32> {
  %w = arith.constant dense<1.0> : tensor<32x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul {llm.lowering_config = {cache_tile = array<i64: 0, 0, 0>, register_tile = array<i64: 2, 16, 1>}} ins(%a, %w : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// A batch matmul with B [N, K] (its layout "nk").
// CHECK-LABEL: func.func @batch_nk
// CHECK: linalg.batch_matmul {{.*}}llm.lowering_config = {cache_tile = array<i64: 0, 0, 0>, register_tile = array<i64: 8, 16, 1>}
func.func @batch_nk(%a: tensor<2x16x32xf32>, %b: tensor<2x64x32xf32>) -> tensor<2x16x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %r = linalg.batch_matmul indexing_maps = [
      affine_map<(b, m, n, k) -> (b, m, k)>,
      affine_map<(b, m, n, k) -> (b, n, k)>,
      affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x16x32xf32>, tensor<2x64x32xf32>) outs(%f : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// An attention's flash-attention tile.
// CHECK-LABEL: func.func @attention
// CHECK: llm.attention {{.*}}{llm.lowering_config = {attention_tile = array<i64: 4, 8>}}
func.func @attention(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = llm.attention %q, %q, %q : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

//--- cache.json
{"format": "llmc-tuning-cache", "version": 1, "entries": [
  {"target": "znver4/avx512-bf16", "kernel": "matmul b=1 m=16 n=64 k=32 f32*f32->f32 rhs=const-kn threads=2", "register_tile": [4, 64, 1], "cache_tile": [64, 128, 32], "time_ms": 0.01, "default_ms": 0.02},
  {"target": "znver4/avx512-bf16", "kernel": "matmul b=1 m=16 n=64 k=32 f32*f32->f32 rhs=const-kn threads=1", "register_tile": [12, 32, 1], "cache_tile": [0, 0, 0]},
  {"target": "znver4/avx512-bf16", "kernel": "batch_matmul b=2 m=16 n=64 k=32 f32*f32->f32 rhs=value-nk threads=2", "register_tile": [8, 16, 1], "cache_tile": [0, 0, 0]},
  {"target": "znver4/avx512-bf16", "kernel": "attention b=1 hq=2 hkv=2 sq=8 skv=8 d=16 dv=16 f32 layout=bhsd causal=0 mask=0 threads=2", "attention_tile": [4, 8]}
]}

//--- not-json.json
{"format": "llmc-tuning-cache",

//--- bad-tile.json
{"format": "llmc-tuning-cache", "version": 1, "entries": [
  {"target": "znver4/avx512-bf16", "kernel": "matmul", "register_tile": [0, 64, 1], "cache_tile": [0, 0, 0]}]}

//--- bad-attention.json
{"format": "llmc-tuning-cache", "version": 1, "entries": [
  {"target": "znver4/avx512-bf16", "kernel": "attention b=1", "attention_tile": [4]}]}

//--- inf-time.json
{"format": "llmc-tuning-cache", "version": 1, "entries": [
  {"target": "znver4/avx512-bf16", "kernel": "matmul", "register_tile": [1, 16, 1], "cache_tile": [0, 0, 0], "time_ms": 1e999}]}

//--- other-format.json
{"entries": []}
