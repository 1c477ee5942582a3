// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file -verify-diagnostics

// Dynamic shapes without a declared bound (llm.dim_bounds) are reported on
// each offending op and fail the pass (no
// crash, no partial rewrite).

func.func @dynamic_add(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: the enclosing function declares no bounded sequence dimension}}
  %0 = llm.add %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @dynamic_matmul(%a: tensor<?x8xf32>, %w: tensor<8x16xf32>) -> tensor<?x16xf32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: the enclosing function declares no bounded sequence dimension}}
  %0 = llm.matmul %a, %w : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Every dynamic op is reported, static ones are not.
func.func @dynamic_chain(%x: tensor<2x?xf32>, %y: tensor<2x8xf32>) -> (tensor<2x?xf32>, tensor<2x8xf32>) {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: the enclosing function declares no bounded sequence dimension}}
  %0 = llm.softmax %x : tensor<2x?xf32>
  %1 = llm.exp %y : tensor<2x8xf32>
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: the enclosing function declares no bounded sequence dimension}}
  %2 = llm.neg %0 : tensor<2x?xf32>
  return %2, %1 : tensor<2x?xf32>, tensor<2x8xf32>
}

// -----

func.func @dynamic_attention(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  // expected-error @+1 {{llm-to-linalg: dynamic shapes: the enclosing function declares no bounded sequence dimension}}
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}

// -----

// Intermediate tensors whose size in bytes overflows int64 (the allocation
// size used to wrap, and the lowered code wrote out of bounds) or exceeds the
// 2^47-byte address space are reported on the op.
func.func @overflowing_intermediate(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'llm.broadcast_to' op result #0 type 'tensor<4611686018427387904x2x3xf32>' is too large: its size in bytes overflows int64 (llm-to-linalg lowers tensors of at most 2^47 bytes, 128 TiB)}}
  %b = llm.broadcast_to %x : (tensor<2x3xf32>) -> tensor<4611686018427387904x2x3xf32>
  %0 = llm.reduce_sum %b {axes = array<i64: 0>} : (tensor<4611686018427387904x2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @huge_intermediate(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'llm.broadcast_to' op result #0 type 'tensor<8796093022208x2x3xf32>' is too large: 211106232532992 bytes (llm-to-linalg lowers tensors of at most 2^47 bytes, 128 TiB)}}
  %b = llm.broadcast_to %x : (tensor<2x3xf32>) -> tensor<8796093022208x2x3xf32>
  %0 = llm.reduce_max %b {axes = array<i64: 0>} : (tensor<8796093022208x2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Constants become global data: at most 2 GiB each (a 24 TiB splat aborted
// the translation to LLVM IR with "out of memory").
func.func @huge_constant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'llm.constant' op result #0 type 'tensor<1099511627776x2x3xf32>' is too large: 26388279066624 bytes (llm-to-linalg lowers constants of at most 2^31 bytes, 2 GiB)}}
  %c = llm.constant dense<1.0> : tensor<1099511627776x2x3xf32>
  %0 = llm.reduce_max %c {axes = array<i64: 0>} : (tensor<1099511627776x2x3xf32>) -> tensor<2x3xf32>
  %1 = llm.add %x, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Operands that no llm op made (function arguments) are checked too.
func.func @overflowing_argument(%x: tensor<4611686018427387904x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'llm.reduce_max' op operand #0 type 'tensor<4611686018427387904x4xf32>' is too large: its size in bytes overflows int64}}
  %0 = llm.reduce_max %x {axes = array<i64: 0>} : (tensor<4611686018427387904x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The status symbol of the run-time index checks is reserved.
// expected-error @+1 {{the symbol '@__llmc_status' is reserved for llmc's run-time index checks}}
func.func private @__llmc_status()
func.func @taken(%ids: tensor<2xi64>) -> tensor<2x8xf32> {
  %t = llm.constant dense<1.0> : tensor<16x8xf32>
  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

