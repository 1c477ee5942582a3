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

void mlir::llm::recordReportAttr(ModuleOp module, llvm::StringRef key,
                                 Attribute value) {
  NamedAttrList entries;
  if (auto dict = module->getAttrOfType<DictionaryAttr>(kReportAttrName))
    entries.assign(dict.getValue());
  entries.set(key, value);
  module->setAttr(kReportAttrName, entries.getDictionary(module.getContext()));
}

Attribute mlir::llm::getReportAttr(ModuleOp module, llvm::StringRef key) {
  auto dict = module->getAttrOfType<DictionaryAttr>(kReportAttrName);
  return dict ? dict.get(key) : Attribute();
}

llvm::json::Value mlir::llm::reportAttrToJSON(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getValue().getSExtValue();
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.getValue().str();
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::json::Array(array.asArrayRef());
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array values;
    for (Attribute element : array)
      values.push_back(reportAttrToJSON(element));
    return values;
  }
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : dict)
      object[entry.getName().strref()] = reportAttrToJSON(entry.getValue());
    return object;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
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
