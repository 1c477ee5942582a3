//===- InstrumentActivations.cpp - Return activations to calibrate --------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llm-instrument-activations`: the calibration points of the entry become
// extra results, so that a run of the model shows them
// (llm/Dialect/LLM/Transforms/Calibration.h).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Calibration.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMINSTRUMENTACTIVATIONSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

/// The function attribute that lists the appended calibration results.
static constexpr StringLiteral kCalibrationPointsAttr =
    "llm.calibration_points";

FailureOr<SmallVector<CalibrationPoint>>
mlir::llm::instrumentActivations(ModuleOp module, StringRef entry) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return mlir::emitError(module.getLoc(),
                           "llm-instrument-activations: no function @")
           << entry << " with a body";
  if (!func.getBody().hasOneBlock())
    return mlir::emitError(func.getLoc(), "llm-instrument-activations: @")
           << entry << " has more than one block";
  if (func->hasAttr(kCalibrationPointsAttr))
    return mlir::emitError(func.getLoc(), "llm-instrument-activations: @")
           << entry << " is instrumented already";
  SmallVector<CalibrationPoint> points = getCalibrationPoints(func);
  // Only values of the body's block reach its return.
  Block &body = func.getBody().front();
  llvm::erase_if(points, [&](const CalibrationPoint &p) {
    return const_cast<Value &>(p.value).getParentBlock() != &body;
  });
  auto returnOp = cast<func::ReturnOp>(body.getTerminator());
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  SmallVector<Attribute> infos;
  SmallVector<Type> results(func.getResultTypes());
  unsigned firstNew = results.size();
  for (const CalibrationPoint &p : points) {
    returnOp.getOperandsMutable().append(p.value);
    results.push_back(p.value.getType());
    std::string type;
    llvm::raw_string_ostream(type) << p.value.getType();
    infos.push_back(
        b.getDictionaryAttr({b.getNamedAttr("key", b.getStringAttr(p.key)),
                             b.getNamedAttr("name", b.getStringAttr(p.name)),
                             b.getNamedAttr("op", b.getStringAttr(p.op)),
                             b.getNamedAttr("type", b.getStringAttr(type))}));
  }
  // The result attributes of the original results, then the new names.
  SmallVector<DictionaryAttr> resultAttrs;
  func.getAllResultAttrs(resultAttrs);
  resultAttrs.resize(firstNew, b.getDictionaryAttr({}));
  for (const CalibrationPoint &p : points)
    resultAttrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr("llm.name", b.getStringAttr("calibration:" + p.key))));
  func.setType(FunctionType::get(ctx, func.getArgumentTypes(), results));
  func.setAllResultAttrs(resultAttrs);
  func->setAttr(kCalibrationPointsAttr, b.getArrayAttr(infos));
  return points;
}

namespace {
struct LLMInstrumentActivationsPass final
    : mlir::llm::impl::LLMInstrumentActivationsPassBase<
          LLMInstrumentActivationsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(instrumentActivations(getOperation(), entry)))
      signalPassFailure();
  }
};
} // namespace
