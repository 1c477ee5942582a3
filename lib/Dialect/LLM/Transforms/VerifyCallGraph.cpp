//===- VerifyCallGraph.cpp - refuse recursive calls -----------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `llm-verify-call-graph`: a depth-first search over the
// module's functions reports every call that closes a cycle.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::llm {
#define GEN_PASS_DEF_LLMVERIFYCALLGRAPHPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMVerifyCallGraphPass
    : llm::impl::LLMVerifyCallGraphPassBase<LLMVerifyCallGraphPass> {
  /// Each function's calls of defined module functions, in program order.
  DenseMap<Operation *, SmallVector<std::pair<CallOpInterface, Operation *>>>
      callees;
  enum class State { Unvisited, OnStack, Done };
  DenseMap<Operation *, State> state;
  SmallVector<Operation *> stack;
  bool foundCycle = false;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SmallVector<Operation *> functions;
    for (auto fn : module.getOps<FunctionOpInterface>()) {
      functions.push_back(fn);
      fn->walk([&](CallOpInterface call) {
        auto ref = dyn_cast_if_present<SymbolRefAttr>(
            call.getCallableForCallee().dyn_cast<SymbolRefAttr>());
        if (!ref)
          return;
        Operation *callee = symbols.lookupNearestSymbolFrom(call, ref);
        auto calleeFn = dyn_cast_if_present<FunctionOpInterface>(callee);
        if (calleeFn && !calleeFn.isExternal())
          callees[fn].push_back({call, callee});
      });
    }
    for (Operation *fn : functions)
      if (state.lookup(fn) == State::Unvisited)
        visit(fn);
    if (foundCycle)
      signalPassFailure();
  }

  /// Depth-first from `root` with an explicit stack (a chain of many
  /// functions must not overflow the compiler's own stack).
  void visit(Operation *root) {
    SmallVector<std::pair<Operation *, unsigned>> work;
    auto push = [&](Operation *fn) {
      state[fn] = State::OnStack;
      stack.push_back(fn);
      work.push_back({fn, 0});
    };
    push(root);
    while (!work.empty()) {
      auto &[fn, next] = work.back();
      auto it = callees.find(fn);
      if (it == callees.end() || next == it->second.size()) {
        state[fn] = State::Done;
        stack.pop_back();
        work.pop_back();
        continue;
      }
      auto [call, callee] = it->second[next++];
      State s = state.lookup(callee);
      if (s == State::OnStack)
        report(call, callee);
      else if (s == State::Unvisited)
        push(callee);
    }
  }

  /// `call` (in the function on top of the stack) calls `callee`, which is
  /// on the stack: the cycle is the stack from `callee` on.
  void report(CallOpInterface call, Operation *callee) {
    foundCycle = true;
    std::string cycle;
    llvm::raw_string_ostream os(cycle);
    auto *it = llvm::find(stack, callee);
    for (; it != stack.end(); ++it)
      os << "@" << SymbolTable::getSymbolName(*it).getValue() << " -> ";
    os << "@" << SymbolTable::getSymbolName(callee).getValue();
    call->emitError() << "call cycle " << cycle
                      << ": recursive calls cannot be compiled (llmc inlines "
                         "every call and plans each function's memory "
                         "statically)";
  }
};

} // namespace
