//===- RuntimeDetail.h - Shared by the runtime's files ----------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Runtime: what CompiledModel.cpp, EntrySignature.cpp and
// Lowering.cpp share.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_RUNTIME_RUNTIMEDETAIL_H
#define LLM_LIB_RUNTIME_RUNTIMEDETAIL_H

#include "llm/Runtime/CompiledModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir::llm::runtime::detail {

/// The prefix of the C-interface wrappers MLIR emits (llvm.emit_c_interface).
inline constexpr llvm::StringLiteral kCInterfacePrefix("_mlir_ciface_");

/// The location for module-level errors: the module's own, except that the
/// implicit module of a parsed file (at `file:0:0`) reports `file:1:1`.
inline Location getModuleDiagLoc(ModuleOp module) {
  Location loc = module.getLoc();
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    if (fileLoc.getLine() == 0)
      return FileLineColLoc::get(fileLoc.getFilename(), 1, 1);
  return loc;
}

/// translateToLLVMIR, with `beforeOptimize` run on the LLVM module after
/// translation (and internalization) and before the optimization pipeline.
FailureOr<std::unique_ptr<llvm::Module>>
translateAndOptimize(ModuleOp module, llvm::LLVMContext &llvmContext,
                     llvm::TargetMachine &tm, unsigned optLevel,
                     bool internalizeAllButCInterface,
                     CompileProgress *progress,
                     llvm::function_ref<void(llvm::Module &)> beforeOptimize);

} // namespace mlir::llm::runtime::detail

#endif // LLM_LIB_RUNTIME_RUNTIMEDETAIL_H
