//===- LLMDialect.cpp - llm dialect registration --------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the llm dialect's registration and constant
// materialization.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/LLMDialect.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::llm;

#include "llm/Dialect/LLM/IR/LLMOpsDialect.cpp.inc"
#include "llm/Dialect/LLM/IR/LLMOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "llm/Dialect/LLM/IR/LLMOpsAttributes.cpp.inc"

void LLMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "llm/Dialect/LLM/IR/LLMOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "llm/Dialect/LLM/IR/LLMOpsAttributes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// BlockLoopMappingAttr
//===----------------------------------------------------------------------===//

// One kind of loop, no id space: the mapping only keeps a one-iteration
// block loop a loop (see its description).
int64_t BlockLoopMappingAttr::getMappingId() const { return 0; }

bool BlockLoopMappingAttr::isLinearMapping() const { return false; }

int64_t BlockLoopMappingAttr::getRelativeIndex() const { return 0; }

Operation *LLMDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
