//===- DemoteContractionInputs.cpp - bf16/f16 inputs, f32 accumulation ----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-demote-contraction-inputs`: the f32 inputs of a
// matmul are rounded to bf16 or f16 (weights at compile time, activations in
// the payload) and the accumulation stays f32, so that f32 models run their
// matmuls on tensor cores and read half the weight bytes.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/Passes.h"
#include "llm/Codegen/Transforms.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMDEMOTECONTRACTIONINPUTSPASS
#include "llm/Codegen/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

/// Whether `op` is a contraction on f32 tensors whose payload is exactly
/// `out + a * b` of its two inputs (linalg.matmul, batch_matmul, matvec,
/// or such a generic; not `out + f(a) * b`, whose f would see the rounded
/// input).
static bool isF32Contraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return false;
  if (!llvm::all_of(op->getOperands(), [](Value v) {
        auto type = dyn_cast<RankedTensorType>(v.getType());
        return type && type.getElementType().isF32();
      }))
    return false;
  Block &body = op->getRegion(0).front();
  if (body.getOperations().size() != 3)
    return false;
  auto add = dyn_cast<arith::AddFOp>(
      body.getTerminator()->getOperand(0).getDefiningOp());
  if (!add)
    return false;
  BlockArgument out = body.getArgument(2);
  Value product = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != out && add.getRhs() != out))
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

namespace {

struct LLMDemoteContractionInputsPass
    : llm::impl::LLMDemoteContractionInputsPassBase<
          LLMDemoteContractionInputsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    FloatType type;
    if (this->type == "bf16")
      type = BFloat16Type::get(ctx);
    else if (this->type == "f16")
      type = Float16Type::get(ctx);
    if (!type) {
      emitError(getOperation().getLoc())
          << "llm-demote-contraction-inputs: type must be bf16 or f16, got '"
          << this->type << "'";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isF32Contraction(op))
        contractions.push_back(op);
    });
    IRRewriter rewriter(ctx);
    // A weight read by several matmuls is converted once.
    DenseMap<Operation *, Value> demoted;
    for (linalg::LinalgOp op : contractions) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> result =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(result))
          continue;
        generic = *result;
      }
      Block &body = generic.getRegion().front();
      Type f32 = rewriter.getF32Type();
      for (OpOperand *input : generic.getDpsInputOperands()) {
        BlockArgument arg = generic.getMatchingBlockArgument(input);
        OpBuilder bb = OpBuilder::atBlockBegin(&body);
        Location loc = generic.getLoc();
        auto constant = input->get().getDefiningOp<arith::ConstantOp>();
        Value weight = constant ? demoted.lookup(constant) : Value();
        if (constant && !weight) {
          auto elements = dyn_cast<ElementsAttr>(constant.getValue());
          if (ElementsAttr attr =
                  elements ? llm::convertFloatElements(elements, type)
                           : ElementsAttr()) {
            OpBuilder::InsertionGuard guard(rewriter);
            rewriter.setInsertionPointAfter(constant);
            weight = arith::ConstantOp::create(rewriter, constant.getLoc(),
                                               cast<TypedAttr>(attr));
            demoted[constant] = weight;
          }
        }
        if (weight) {
          // The weight in `type`: out + ext(w) * ...
          llm::readInputWidened(rewriter, generic, input, weight);
          continue;
        }
        // An activation: out + ext(trunc(a)) * ...
        auto trunc = arith::TruncFOp::create(bb, loc, type, arg);
        Value rounded = arith::ExtFOp::create(bb, loc, f32, trunc.getResult());
        arg.replaceAllUsesExcept(rounded, trunc);
      }
    }
  }
};

} // namespace

Value mlir::llm::readInputWidened(RewriterBase &rewriter,
                                  linalg::GenericOp generic, OpOperand *input,
                                  Value narrow) {
  BlockArgument arg = generic.getMatchingBlockArgument(input);
  Type wide = arg.getType();
  Type narrowElem = getElementTypeOrSelf(narrow.getType());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&generic.getRegion().front());
  Value widened =
      arith::ExtFOp::create(rewriter, generic.getLoc(), wide, arg).getResult();
  rewriter.modifyOpInPlace(generic, [&] {
    input->set(narrow);
    arg.setType(narrowElem);
    arg.replaceAllUsesExcept(widened, widened.getDefiningOp());
  });
  return widened;
}
