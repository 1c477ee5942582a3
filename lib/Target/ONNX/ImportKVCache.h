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

namespace onnx {
class ModelProto;
} // namespace onnx

namespace mlir::llm::onnx_import {

/// Prepares `model` and `options` for the import of a decoder with past in
/// the cached form: the past inputs' length is set to 0 and the batch to 1
/// in `options`, and an `attention_mask` input becomes a constant of ones
/// shaped like `input_ids` in `model` (one sequence has no padding). Errors
/// at `loc`: no past input; a past input without exactly one symbolic
/// length; a past length or batch that the user set to another value.
LogicalResult prepareKVCacheImport(onnx::ModelProto &model,
                                   ImportOptions &options, Location loc);

/// Rewrites the imported function `options.funcName` of `module` into the
/// cached form (`formKVCache`). Errors at the op that prevents it.
LogicalResult finishKVCacheImport(ModuleOp module,
                                  const ImportOptions &options);

/// Checks `module`, the model imported with a past of one token (static),
/// for the past's use that finishKVCacheImport assumed
/// (`checkDecoderWithPast`, after recomposition).
LogicalResult checkKVCacheImport(ModuleOp module, const ImportOptions &options);

/// Checks that a model whose cached form `cached` reads tables by the new
/// tokens' positions computes with other constants with a past of two
/// tokens (`twoPast`) than with one (`onePast`, both imported static):
/// otherwise its positions ignore the past. Errors at `loc`.
LogicalResult checkPositionsMove(ModuleOp cached, ModuleOp onePast,
                                 ModuleOp twoPast, Location loc);

} // namespace mlir::llm::onnx_import

#endif // LLM_LIB_TARGET_ONNX_IMPORTKVCACHE_H
