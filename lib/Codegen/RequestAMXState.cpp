//===- RequestAMXState.cpp - Ask Linux for the AMX tile state -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-request-amx-state`: a function of the LLVM
// dialect that runs AMX instructions first asks Linux for the permission to
// use the AMX tile data state, once per process.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMREQUESTAMXSTATEPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// The function that requests the state and the flag that says it did.
static constexpr llvm::StringLiteral kRequestName = "__llmc_request_amx_state";
static constexpr llvm::StringLiteral kGrantedName =
    "__llmc_amx_state_requested";
static constexpr llvm::StringLiteral kMessageName = "__llmc_amx_state_message";

/// Linux x86-64: the arch_prctl system call, its request for permission to
/// use an extended state component, and the AMX tile data component
/// (arch/x86/include/uapi/asm/prctl.h, Documentation/arch/x86/xstate.rst).
static constexpr int64_t kSysArchPrctl = 158;
static constexpr int64_t kArchReqXcompPerm = 0x1023;
static constexpr int64_t kXFeatureXTileData = 18;

/// Whether `op` is a call of an AMX intrinsic (llvm.x86.tile*, llvm.x86.tdp*).
static bool isAMXIntrinsic(Operation *op) {
  auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
  if (!call)
    return false;
  StringRef name = call.getIntrin();
  return name.starts_with("llvm.x86.tile") || name.starts_with("llvm.x86.tdp");
}

namespace {
struct LLMRequestAMXStatePass
    : llm::impl::LLMRequestAMXStatePassBase<LLMRequestAMXStatePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> users;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (!func.isExternal() && func.getSymName() != kRequestName &&
          func.walk([](Operation *op) {
                return isAMXIntrinsic(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
              })
              .wasInterrupted())
        users.push_back(func);
    if (users.empty())
      return;
    FailureOr<LLVM::LLVMFuncOp> request = getRequestFunction();
    if (failed(request))
      return signalPassFailure();
    for (LLVM::LLVMFuncOp func : users) {
      // A function that asks already (the pass ran before) is left alone.
      auto first = dyn_cast<LLVM::CallOp>(&func.getBody().front().front());
      if (first && first.getCallee() == kRequestName)
        continue;
      OpBuilder b(func.getBody());
      LLVM::CallOp::create(b, func.getLoc(), *request, ValueRange{});
    }
  }

  /// The module's `__llmc_request_amx_state()` (defined here unless it is
  /// already), which makes the system call the first time only:
  ///
  ///   if (!requested) {
  ///     if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM,
  ///                 XFEATURE_XTILEDATA) != 0) {
  ///       dprintf(2, "llmc: ..."); exit(1);
  ///     }
  ///     requested = 1;
  ///   }
  FailureOr<LLVM::LLVMFuncOp> getRequestFunction() {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Location loc = module.getLoc();
    if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(kRequestName)) {
      if (f.getFunctionType().getNumParams() != 0 ||
          !isa<LLVM::LLVMVoidType>(f.getFunctionType().getReturnType()))
        return f.emitError("llm-request-amx-state: '")
               << kRequestName << "' is declared with another signature";
      if (!f.isExternal())
        return f;
    }
    // The request's own globals: names that something else already has
    // are an error, not a redefinition.
    for (StringRef name : {kGrantedName, kMessageName})
      if (Operation *other = module.lookupSymbol(name))
        return other->emitError("llm-request-amx-state: '")
               << name << "' is already defined";
    auto i8 = IntegerType::get(ctx, 8);
    auto i32 = IntegerType::get(ctx, 32);
    auto i64 = IntegerType::get(ctx, 64);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto voidTy = LLVM::LLVMVoidType::get(ctx);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    FailureOr<LLVM::LLVMFuncOp> syscall =
        LLVM::lookupOrCreateFn(b, module, "syscall", {i64}, i64,
                               /*isVarArg=*/true);
    FailureOr<LLVM::LLVMFuncOp> dprintf =
        LLVM::lookupOrCreateFn(b, module, "dprintf", {i32, ptr}, i32,
                               /*isVarArg=*/true);
    FailureOr<LLVM::LLVMFuncOp> exitFn =
        LLVM::lookupOrCreateFn(b, module, "exit", {i32}, voidTy);
    if (failed(syscall) || failed(dprintf) || failed(exitFn)) {
      emitError(module.getLoc(),
                "llm-request-amx-state: 'syscall', 'dprintf' or "
                "'exit' is declared with another signature");
      return failure();
    }
    auto flag = LLVM::GlobalOp::create(b, loc, i8, /*isConstant=*/false,
                                       LLVM::Linkage::Internal, kGrantedName,
                                       b.getIntegerAttr(i8, 0));
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(kRequestName);
    if (!func)
      func = LLVM::LLVMFuncOp::create(b, loc, kRequestName,
                                      LLVM::LLVMFunctionType::get(voidTy, {}));
    func.setLinkage(LLVM::Linkage::Internal);

    Block *entry = func.addEntryBlock(b);
    Block *ask = b.createBlock(&func.getBody());
    Block *refused = b.createBlock(&func.getBody());
    Block *granted = b.createBlock(&func.getBody());
    Block *done = b.createBlock(&func.getBody());

    b.setInsertionPointToStart(entry);
    Value flagAddr = LLVM::AddressOfOp::create(b, loc, flag);
    Value requested = LLVM::LoadOp::create(b, loc, i8, flagAddr);
    Value zero8 = LLVM::ConstantOp::create(b, loc, i8, 0);
    Value notYet =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, requested, zero8);
    LLVM::CondBrOp::create(b, loc, notYet, ask, done);

    b.setInsertionPointToStart(ask);
    Value args[] = {LLVM::ConstantOp::create(b, loc, i64, kSysArchPrctl),
                    LLVM::ConstantOp::create(b, loc, i64, kArchReqXcompPerm),
                    LLVM::ConstantOp::create(b, loc, i64, kXFeatureXTileData)};
    Value result = LLVM::CallOp::create(b, loc, *syscall, args).getResult();
    Value ok = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, result,
                                    LLVM::ConstantOp::create(b, loc, i64, 0));
    LLVM::CondBrOp::create(b, loc, ok, granted, refused);

    b.setInsertionPointToStart(refused);
    std::string message =
        "llmc: Linux refused this process the AMX tile state "
        "(arch_prctl ARCH_REQ_XCOMP_PERM); the model was compiled for AMX: "
        "compile it for a target without AMX (--target avx512-bf16)\n";
    message.push_back('\0');
    Value text = LLVM::createGlobalString(loc, b, kMessageName, message,
                                          LLVM::Linkage::Internal);
    LLVM::CallOp::create(
        b, loc, *dprintf,
        ValueRange{LLVM::ConstantOp::create(b, loc, i32, 2), text});
    LLVM::CallOp::create(b, loc, *exitFn,
                         ValueRange{LLVM::ConstantOp::create(b, loc, i32, 1)});
    LLVM::UnreachableOp::create(b, loc);

    b.setInsertionPointToStart(granted);
    LLVM::StoreOp::create(b, loc, LLVM::ConstantOp::create(b, loc, i8, 1),
                          flagAddr);
    LLVM::BrOp::create(b, loc, done);

    b.setInsertionPointToStart(done);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return func;
  }
};
} // namespace
