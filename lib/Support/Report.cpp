//===- Report.cpp - Figures for llmc's compile report ---------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/Report.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

void mlir::llm::recordReportValue(ModuleOp module, llvm::StringRef key,
                                  int64_t value) {
  Builder b(module.getContext());
  NamedAttrList entries;
  if (auto dict = module->getAttrOfType<DictionaryAttr>(kReportAttrName))
    entries.assign(dict.getValue());
  entries.set(key, b.getI64IntegerAttr(value));
  module->setAttr(kReportAttrName, entries.getDictionary(module.getContext()));
}

void mlir::llm::accumulateReportValue(ModuleOp module, llvm::StringRef key,
                                      int64_t value) {
  int64_t old = 0;
  if (auto dict = module->getAttrOfType<DictionaryAttr>(kReportAttrName))
    if (auto attr = dict.getAs<IntegerAttr>(key))
      old = attr.getInt();
  recordReportValue(module, key, old + value);
}

std::optional<int64_t> mlir::llm::getReportValue(ModuleOp module,
                                                 llvm::StringRef key) {
  auto dict = module->getAttrOfType<DictionaryAttr>(kReportAttrName);
  if (!dict)
    return std::nullopt;
  if (auto attr = dict.getAs<IntegerAttr>(key))
    return attr.getInt();
  return std::nullopt;
}

llvm::SmallVector<std::pair<std::string, int64_t>>
mlir::llm::getReportValues(ModuleOp module) {
  llvm::SmallVector<std::pair<std::string, int64_t>> values;
  auto dict = module->getAttrOfType<DictionaryAttr>(kReportAttrName);
  if (!dict)
    return values;
  for (NamedAttribute entry : dict) // DictionaryAttr keeps keys sorted.
    if (auto attr = dyn_cast<IntegerAttr>(entry.getValue()))
      values.emplace_back(entry.getName().str(), attr.getInt());
  return values;
}
