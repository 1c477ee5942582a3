//===- ImportONNX.h - ONNX model to llm dialect importer --------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Imports an ONNX model (ModelProto, ONNX 1.12 / opsets 7-18) into a module
// holding one `func.func @main` made of `llm` dialect ops.
//
// * Graph inputs become function arguments and graph outputs results; their
//   ONNX names are kept as `llm.name` argument/result attributes.
// * Initializers and `Constant` nodes that reach runtime computation become
//   `llm.constant dense_resource<...>` blobs (scalars and splats stay inline
//   `dense<...>` literals). External data files next to the model are read.
// * Shape plumbing (`Shape`, `Gather`, `Unsqueeze`, `Concat`, `Range`,
//   `ConstantOfShape`, `Where`, comparisons, ... on constant or statically
//   known data) is evaluated at import time; only real computation becomes
//   `llm` ops.
// * Every op carries a `NameLoc` `"<node name>"("<op type>")`. Errors
//   (unsupported op, opset or element type, dynamic dimension with no value,
//   unparsable file) are reported through MLIR diagnostics and the import
//   returns a null module; nothing aborts.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_TARGET_ONNX_IMPORTONNX_H
#define LLM_TARGET_ONNX_IMPORTONNX_H

#include <string>
#include <vector>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <string>

namespace mlir {
class MLIRContext;

namespace llm {

/// Options of the ONNX importer.
struct ImportOptions {
  /// Values for symbolic (`dim_param`) dimensions of the graph inputs, by
  /// name, e.g. {"batch": 1, "seq": 8}. A key of the form `INPUT:INDEX`
  /// (e.g. `input_ids:1`) sets dimension INDEX of graph input INPUT, which
  /// also covers dimensions that have neither a name nor a value.
  llvm::StringMap<int64_t> dimValues;
  /// Bounds of symbolic dimensions left free by `dimValues`, by name (or
  /// `INPUT:INDEX`), e.g. {"seq": 1024}. A free dimension stays dynamic
  /// (`?`, argument attribute `llm.dim_bounds`): llmc keeps one, the
  /// sequence length, so several free symbols must all be given the same
  /// bound here (they are then one length) or be pinned in `dimValues`.
  /// Without a bound, the model's own limit is used (the rows of its
  /// position table or causal mask buffer), else the import fails naming
  /// the dimension. See docs/ONNX.md, "Dynamic sequence length".
  llvm::StringMap<int64_t> dimBounds;
  /// Run ONNX shape inference after importing the nodes, to cross-check the
  /// importer's static shapes (failures become warnings).
  bool runShapeInference = true;
  /// Import a decoder exported with its key/value cache as inputs and
  /// outputs (`past_key_values.*` inputs, `present.*` outputs: Hugging Face
  /// / optimum "decoder with past") in llmc's generation form instead
  /// (docs/Generation.md): the past inputs become `llm.kv_cache` arguments
  /// updated in place, `past_length` / `total_length` arguments are added,
  /// the present outputs are dropped, the batch is 1 and an `attention_mask`
  /// input is taken as all ones. Errors: no past input, and what
  /// `llm-form-kv-cache` reports.
  bool kvCache = false;
  /// Name of the generated function.
  std::string funcName = "main";
};

/// Parses `spec` ("NAME=VALUE[,NAME=VALUE...]") into `options.dimValues`;
/// an entry `NAME<=N` (N >= 1) goes to `options.dimBounds` instead (one
/// string for both, as the C API and Python take it). Returns false and sets
/// `error` on a malformed entry.
bool parseDimSpec(llvm::StringRef spec, ImportOptions &options,
                  std::string &error);

/// Parses `spec` ("NAME=N[,NAME=N...]", N >= 1) into `options.dimBounds`.
/// Returns false and sets `error` on a malformed entry.
bool parseDimBoundSpec(llvm::StringRef spec, ImportOptions &options,
                       std::string &error);

/// Imports the ONNX model stored in the file at `path`. External tensor data
/// is looked up relative to the directory of `path`. Returns null (after
/// emitting diagnostics in `ctx`) on failure.
OwningOpRef<ModuleOp> importONNXModel(llvm::StringRef path, MLIRContext *ctx,
                                      const ImportOptions &options = {});

/// Imports a serialized ONNX model held in memory. `buffer`'s identifier names
/// the model in diagnostics; `externalDataDir` is where external tensor data
/// files are looked up (empty: the current directory).
OwningOpRef<ModuleOp> importONNXModel(llvm::MemoryBufferRef buffer,
                                      llvm::StringRef externalDataDir,
                                      MLIRContext *ctx,
                                      const ImportOptions &options = {});

/// The external data files that the tensors of the ONNX model in the file
/// at `path` name (initializers, sparse initializers and tensor attributes,
/// subgraphs included): each `location` joined to the model's directory, as
/// the importer opens them. Empty when the model cannot be read or parsed
/// (the importer reports that). For tools that must not overwrite them.
std::vector<std::string> getONNXExternalDataFiles(llvm::StringRef path);

/// Registers the `--import-onnx` translation (and its `--onnx-dim` option)
/// with mlir-translate's registry.
void registerImportONNXTranslation();

} // namespace llm
} // namespace mlir

#endif // LLM_TARGET_ONNX_IMPORTONNX_H
