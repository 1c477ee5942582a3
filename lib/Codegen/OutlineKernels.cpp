//===- OutlineKernels.cpp - one function per loop nest --------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-outline-kernels`: the top-level loop nests of a
// function with many of them become private functions, so that the CF and
// LLVM lowering of a large model costs time linear in its kernels.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Support/PassOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMOUTLINEKERNELSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

/// A loop nest to outline: an op with regions and no results at the top
/// level of a function body (a terminator never is one).
bool isKernel(Operation &op) {
  return op.getNumRegions() > 0 && op.getNumResults() == 0 &&
         !op.hasTrait<OpTrait::IsTerminator>();
}

/// A value the outlined function recomputes instead of taking: the result of
/// a constant-like op without operands.
bool isClonableConstant(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         matchPattern(def, m_Constant());
}

/// A memref the bare-pointer calling convention can pass (static shape,
/// strides and offset: the callee rebuilds its descriptor from constants),
/// or a non-memref value.
bool canPassBarePointer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return !isa<UnrankedMemRefType>(type);
  if (!memref.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

struct LLMOutlineKernelsPass
    : llm::impl::LLMOutlineKernelsPassBase<LLMOutlineKernelsPass> {
  using Base::Base;

  llvm::StringSet<> names;

  void runOnOperation() override {
    if (failed(llm::checkNonNegativeOption(getOperation(), getArgument(),
                                           "min-kernels", minKernels)))
      return signalPassFailure();
    // A pass instance may run on several modules.
    names.clear();
    outlined.clear();
    ModuleOp module = getOperation();
    for (Operation &op : module.getBody()->getOperations())
      if (auto name = op.getAttrOfType<StringAttr>(
              SymbolTable::getSymbolAttrName()))
        names.insert(name.getValue());
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock())
        continue;
      SmallVector<Operation *> kernels;
      for (Operation &op : fn.getBody().front())
        if (isKernel(op))
          kernels.push_back(&op);
      if (static_cast<int64_t>(kernels.size()) < minKernels ||
          kernels.empty())
        continue;
      OpBuilder moduleBuilder(fn->getContext());
      moduleBuilder.setInsertionPointAfter(fn);
      unsigned index = 0;
      for (Operation *kernel : kernels)
        outline(fn, kernel, moduleBuilder, index);
    }
  }

  std::string getUniqueName(func::FuncOp fn, unsigned &index) {
    while (true) {
      std::string name =
          (fn.getSymName() + "_kernel" + Twine(index++)).str();
      if (names.insert(name).second)
        return name;
    }
  }

  /// The outlined functions by a hash of their bodies' structure.
  DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> outlined;

  /// A hash of `fn`'s body that equivalent bodies share (op names,
  /// attributes, types; not the values or locations).
  static llvm::hash_code hashBody(func::FuncOp fn) {
    llvm::hash_code hash = mlir::hash_value(Type(fn.getFunctionType()));
    fn.getBody().walk([&](Operation *op) {
      hash = llvm::hash_combine(
          hash, OperationEquivalence::computeHash(
                    op, OperationEquivalence::ignoreHashValue,
                    OperationEquivalence::ignoreHashValue,
                    OperationEquivalence::IgnoreLocations));
    });
    return hash;
  }

  /// An outlined function whose body is `fn`'s up to locations, if any.
  func::FuncOp findEquivalent(func::FuncOp fn, llvm::hash_code hash) {
    for (func::FuncOp other : outlined.lookup(hash))
      if (other.getFunctionType() == fn.getFunctionType() &&
          OperationEquivalence::isRegionEquivalentTo(
              &other.getBody(), &fn.getBody(),
              OperationEquivalence::IgnoreLocations))
        return other;
    return nullptr;
  }

  // kernel(uses %a, %b, %c0 = arith.constant)
  //   -> func.call @fn_kernelI(%a, %b)
  //      func.func private @fn_kernelI(%a, %b) { %c0 = ...; kernel; return }
  // A kernel equal to one outlined before (the same layer's kernel in the
  // next layer, reading other weights) calls that function instead.
  void outline(func::FuncOp fn, Operation *kernel, OpBuilder &moduleBuilder,
               unsigned &index) {
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(kernel->getRegions(), captured);
    captured.insert(kernel->operand_begin(), kernel->operand_end());
    SmallVector<Value> arguments, constants;
    for (Value v : captured)
      (isClonableConstant(v) ? constants : arguments).push_back(v);

    MLIRContext *ctx = fn->getContext();
    Location loc = kernel->getLoc();
    auto type = FunctionType::get(ctx, ValueRange(arguments).getTypes(), {});
    // Built detached; inserted into the module unless an equal one exists.
    OpBuilder detached(ctx);
    auto callee = func::FuncOp::create(detached, loc, "", type);
    Block *body = callee.addEntryBlock();
    IRMapping mapping;
    mapping.map(arguments, body->getArguments());
    OpBuilder b = OpBuilder::atBlockBegin(body);
    for (Value c : constants)
      mapping.map(c, b.clone(*c.getDefiningOp())->getResult(0));
    b.clone(*kernel, mapping);
    func::ReturnOp::create(b, loc);

    llvm::hash_code hash = hashBody(callee);
    func::FuncOp target = findEquivalent(callee, hash);
    if (target) {
      callee->erase();
    } else {
      target = callee;
      target.setSymName(getUniqueName(fn, index));
      target.setPrivate();
      // LLVM would inline a function called once back into its caller
      // (convert-func-to-llvm carries `passthrough` over to llvm.func).
      target->setAttr("passthrough",
                      ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
      // Static memrefs go by their aligned pointer alone (convert-func-to-
      // llvm's bare-pointer convention for this function): the call site
      // needs one value per memref instead of a whole descriptor.
      if (llvm::all_of(type.getInputs(), canPassBarePointer))
        target->setAttr("llvm.bareptr", UnitAttr::get(ctx));
      moduleBuilder.insert(target);
      moduleBuilder.setInsertionPointAfter(target);
      outlined[hash].push_back(target);
    }
    OpBuilder callBuilder(kernel);
    func::CallOp::create(callBuilder, loc, target, arguments);
    kernel->erase();
  }
};

} // namespace
