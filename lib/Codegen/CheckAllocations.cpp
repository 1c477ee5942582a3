//===- CheckAllocations.cpp - allocations that report out-of-memory -------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// llm-check-allocations: bodies for the generic allocation functions that
// finalize-memref-to-llvm{use-generic-functions=true} calls, so that an
// allocation the C library refuses reaches an out-of-memory handler instead
// of a write through a null pointer.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMCHECKALLOCATIONSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

// The generic functions of MLIR's memref-to-LLVM lowering
// (mlir/lib/Dialect/LLVMIR/IR/FunctionCallUtils.cpp).
static constexpr llvm::StringLiteral kGenericAlloc =
    "_mlir_memref_to_llvm_alloc";
static constexpr llvm::StringLiteral kGenericAlignedAlloc =
    "_mlir_memref_to_llvm_aligned_alloc";
static constexpr llvm::StringLiteral kGenericFree = "_mlir_memref_to_llvm_free";

namespace {
struct LLMCheckAllocationsPass
    : public llm::impl::LLMCheckAllocationsPassBase<LLMCheckAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto declared = [&](StringRef name) {
      auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      return func && func.isExternal() ? func : LLVM::LLVMFuncOp();
    };
    LLVM::LLVMFuncOp alloc = declared(kGenericAlloc);
    LLVM::LLVMFuncOp alignedAlloc = declared(kGenericAlignedAlloc);
    LLVM::LLVMFuncOp release = declared(kGenericFree);
    if (!alloc && !alignedAlloc && !release)
      return;
    if ((alloc && failed(defineAlloc(alloc, /*aligned=*/false))) ||
        (alignedAlloc && failed(defineAlloc(alignedAlloc, /*aligned=*/true))) ||
        (release && failed(defineFree(release))))
      return signalPassFailure();
  }

  /// The entry block of `func`, which gets `weak` linkage (a definition
  /// elsewhere in a linked program, or in the JIT, wins).
  static Block *addBody(OpBuilder &b, LLVM::LLVMFuncOp func) {
    func.setLinkage(LLVM::Linkage::Weak);
    Block *entry = func.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    return entry;
  }

  // _mlir_memref_to_llvm_free(p) -> free(p)
  LogicalResult defineFree(LLVM::LLVMFuncOp func) {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    FailureOr<LLVM::LLVMFuncOp> libcFree =
        LLVM::lookupOrCreateFreeFn(b, module);
    if (failed(libcFree))
      return func.emitError("llm-check-allocations: 'free' is declared with "
                            "another signature");
    Block *entry = addBody(b, func);
    Location loc = func.getLoc();
    LLVM::CallOp::create(b, loc, *libcFree, entry->getArguments());
    LLVM::ReturnOp::create(b, loc, ValueRange());
    return success();
  }

  // _mlir_memref_to_llvm_alloc(n) ->
  //   p = malloc(n); if (!p && n) __llmc_out_of_memory(n); return p
  // (aligned: aligned_alloc(a, n), the same check).
  LogicalResult defineAlloc(LLVM::LLVMFuncOp func, bool aligned) {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    Location loc = func.getLoc();
    auto i64 = IntegerType::get(ctx, 64);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    unsigned args = aligned ? 2 : 1;
    LLVM::LLVMFunctionType type = func.getFunctionType();
    if (type.getNumParams() != args || type.isVarArg() ||
        llvm::any_of(type.getParams(), [&](Type t) { return t != i64; }) ||
        type.getReturnType() != ptr)
      return func.emitError("llm-check-allocations: unexpected signature of '")
             << func.getSymName() << "': " << type;

    b.setInsertionPointToEnd(module.getBody());
    FailureOr<LLVM::LLVMFuncOp> libcAlloc =
        aligned ? LLVM::lookupOrCreateAlignedAllocFn(b, module, i64)
                : LLVM::lookupOrCreateMallocFn(b, module, i64);
    if (failed(libcAlloc))
      return func.emitError("llm-check-allocations: '")
             << (aligned ? "aligned_alloc" : "malloc")
             << "' is declared with another signature";
    FailureOr<LLVM::LLVMFuncOp> handler = getOutOfMemoryHandler(b, loc);
    if (failed(handler))
      return failure();

    Block *entry = addBody(b, func);
    Value bytes = entry->getArgument(args - 1);
    Value p = LLVM::CallOp::create(b, loc, *libcAlloc, entry->getArguments())
                  .getResult();
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    Value zero = LLVM::ConstantOp::create(b, loc, i64, 0);
    Value isNull =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, p, null);
    Value nonEmpty =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, bytes, zero);
    Value failedAlloc = LLVM::AndOp::create(b, loc, isNull, nonEmpty);
    Block *fail = b.createBlock(&func.getBody());
    Block *ok = b.createBlock(&func.getBody());
    b.setInsertionPointToEnd(entry);
    LLVM::CondBrOp::create(b, loc, failedAlloc, fail, ok);
    b.setInsertionPointToStart(fail);
    LLVM::CallOp::create(b, loc, *handler, ValueRange{bytes});
    LLVM::UnreachableOp::create(b, loc);
    b.setInsertionPointToStart(ok);
    LLVM::ReturnOp::create(b, loc, p);
    return success();
  }

  /// The module's `__llmc_out_of_memory(i64 bytes)`: a declaration gets a
  /// body, a definition is kept. The body (weak linkage: a program's or
  /// llmc's runtime's definition wins) prints the size to standard error
  /// and calls exit(1).
  FailureOr<LLVM::LLVMFuncOp> getOutOfMemoryHandler(OpBuilder &b,
                                                    Location loc) {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto i32 = IntegerType::get(ctx, 32);
    auto i64 = IntegerType::get(ctx, 64);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto voidTy = LLVM::LLVMVoidType::get(ctx);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto declare =
        [&](StringRef name,
            LLVM::LLVMFunctionType type) -> FailureOr<LLVM::LLVMFuncOp> {
      if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name)) {
        if (f.getFunctionType() != type)
          return f.emitError("llm-check-allocations: '")
                 << name << "' is declared with another signature";
        return f;
      }
      return LLVM::LLVMFuncOp::create(b, loc, name, type);
    };
    FailureOr<LLVM::LLVMFuncOp> handler =
        declare(llm::kOutOfMemoryHandlerName,
                LLVM::LLVMFunctionType::get(voidTy, {i64}));
    if (failed(handler) || !handler->isExternal())
      return handler;
    FailureOr<LLVM::LLVMFuncOp> dprintf =
        declare("dprintf", LLVM::LLVMFunctionType::get(i32, {i32, ptr}, true));
    FailureOr<LLVM::LLVMFuncOp> exitFn =
        declare("exit", LLVM::LLVMFunctionType::get(voidTy, {i32}));
    if (failed(dprintf) || failed(exitFn))
      return failure();

    Block *entry = addBody(b, *handler);
    Value bytes = entry->getArgument(0);
    std::string message = "llmc: out of memory: the compiled model could not "
                          "allocate %lld bytes\n";
    message.push_back('\0');
    Value format =
        LLVM::createGlobalString(loc, b, "__llmc_out_of_memory_message",
                                 message, LLVM::Linkage::Internal);
    Value stderrFd = LLVM::ConstantOp::create(b, loc, i32, 2);
    LLVM::CallOp::create(b, loc, *dprintf, ValueRange{stderrFd, format, bytes});
    Value one = LLVM::ConstantOp::create(b, loc, i32, 1);
    LLVM::CallOp::create(b, loc, *exitFn, ValueRange{one});
    LLVM::UnreachableOp::create(b, loc);
    return handler;
  }
};
} // namespace
