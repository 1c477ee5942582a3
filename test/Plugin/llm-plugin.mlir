// The LLMPlugin shared library in Debian's unmodified mlir-opt
// (/usr/lib/llvm-22/bin/mlir-opt): the dialect plugin makes llm IR parse, the
// pass plugin makes the llmc passes and pipelines available to
// --pass-pipeline (pass flags such as --llm-fold-constants are parsed before
// plugins load, so they are not available; this is upstream behaviour).
//
// RUN: mlir-opt --load-dialect-plugin=%llm_plugin --load-pass-plugin=%llm_plugin %s \
// RUN:   --pass-pipeline='builtin.module(llm-fold-constants)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%llm_plugin --load-pass-plugin=%llm_plugin %s \
// RUN:   --pass-pipeline='builtin.module(llm-fold-constants,convert-llm-to-linalg)' \
// RUN:   | FileCheck %s --check-prefix=LINALG
// RUN: mlir-opt --load-dialect-plugin=%llm_plugin --load-pass-plugin=%llm_plugin %s \
// RUN:   --pass-pipeline='builtin.module(llm-lower-to-cpu{parallel=false vectorize=false})' \
// RUN:   | FileCheck %s --check-prefix=LLVM
// The dialect plugin alone registers the passes too:
// RUN: mlir-opt --load-dialect-plugin=%llm_plugin %s \
// RUN:   --pass-pipeline='builtin.module(llm-fold-constants)' | FileCheck %s
// Without the plugin, mlir-opt does not know llm:
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// CHECK-LABEL: func.func @f(
//  CHECK-NEXT:   %[[C:.+]] = llm.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
//   CHECK-NOT:   llm.mul
//  CHECK-NEXT:   %[[R:.+]] = llm.add %{{.*}}, %[[C]]
//  CHECK-NEXT:   return %[[R]]

// LINALG-LABEL: func.func @f(
//       LINALG:   arith.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
//       LINALG:   linalg.generic
//       LINALG:     arith.addf
//   LINALG-NOT:   llm.

// LLVM: llvm.func @f(
// LLVM: llvm.fadd
// LLVM: llvm.func @_mlir_ciface_f(

// NOPLUGIN: error: Dialect `llm' not found for custom op 'llm.constant'

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = llm.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = llm.mul %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = llm.add %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}
