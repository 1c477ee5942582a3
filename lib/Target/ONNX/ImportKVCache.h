//===- ImportKVCache.h - ONNX decoders with past, cached ----*- C++ -*-===//
//-*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Import of a "decoder with past" export in llmc's generation form
// (ImportOptions::kvCache; see ImportKVCache.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_TARGET_ONNX_IMPORTKVCACHE_H
#define LLM_LIB_TARGET_ONNX_IMPORTKVCACHE_H

#include "llm/Target/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace onnx {
class ModelProto;
} // namespace onnx

namespace mlir::llm::onnx_import {

/// Imports `model`, a decoder exported with its past, in the cached form
/// (ImportOptions::kvCache; see ImportKVCache.cpp):
///   1. the past inputs' length is set to 0 and the batch to 1, and an
///      `attention_mask` input becomes ones shaped [1, P + S] in `model`;
///   2. `import` (the importer, which keeps the sequence dynamic) reads that
///      prefill, and `formKVCache` rewrites it into the cached form;
///   3. `import` reads the model again with a past of one and of two tokens
///      (static), and the past's use that step 2 assumed is checked
///      (`checkDecoderWithPast`; position tables must change with the past).
/// Errors at `loc` or at the ONNX node: no past input, a past input without
/// exactly one symbolic length, a past length or batch the user set to
/// another value, what `formKVCache` refuses, a model that uses its past
/// otherwise.
OwningOpRef<ModuleOp> importWithKVCache(
    onnx::ModelProto &model, const ImportOptions &options, MLIRContext *ctx,
    Location loc,
    llvm::function_ref<OwningOpRef<ModuleOp>(const ImportOptions &)> import);

} // namespace mlir::llm::onnx_import

#endif // LLM_LIB_TARGET_ONNX_IMPORTKVCACHE_H
