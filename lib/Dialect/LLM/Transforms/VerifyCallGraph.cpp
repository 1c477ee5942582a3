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
#include "llm/Support/PassOptions.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <limits>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMVERIFYCALLGRAPHPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;

namespace {

struct LLMVerifyCallGraphPass
    : llm::impl::LLMVerifyCallGraphPassBase<LLMVerifyCallGraphPass> {
  using Base::Base;

  /// A reference from an op of one function to a defined module function:
  /// a call, or any other use of its symbol (`func.constant` feeding a
  /// `func.call_indirect`), in program order. `isCall`: a CallOpInterface
  /// op, which the inliner replaces by the callee's body.
  struct Edge {
    Operation *user;
    Operation *callee;
    bool isCall;
  };
  DenseMap<Operation *, SmallVector<Edge>> callees;
  enum class State { Unvisited, OnStack, Done };
  DenseMap<Operation *, State> state;
  SmallVector<Operation *> stack;
  /// Functions in the order their search finished (callees first).
  SmallVector<Operation *> postorder;
  bool foundCycle = false;

  void runOnOperation() override {
    if (failed(llm::checkNonNegativeOption(getOperation(), getArgument(),
                                           "max-inlined-ops", maxInlinedOps)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SmallVector<Operation *> functions;
    DenseMap<Operation *, uint64_t> ownOps;
    for (auto fn : module.getOps<FunctionOpInterface>()) {
      functions.push_back(fn);
      uint64_t numOps = 0;
      fn->walk([&](Operation *op) {
        ++numOps;
        if (op == fn.getOperation())
          return;
        op->getAttrDictionary().walk([&](SymbolRefAttr ref) {
          Operation *callee = symbols.lookupNearestSymbolFrom(op, ref);
          auto calleeFn = dyn_cast_if_present<FunctionOpInterface>(callee);
          if (calleeFn && !calleeFn.isExternal())
            callees[fn].push_back({op, callee, isa<CallOpInterface>(op)});
        });
      });
      ownOps[fn] = numOps;
    }
    for (Operation *fn : functions)
      if (state.lookup(fn) == State::Unvisited)
        visit(fn);
    if (foundCycle)
      return signalPassFailure();

    // Acyclic: the size of each function once every call is inlined,
    // callees first (saturating: a tree of calls doubles per level).
    DenseMap<Operation *, uint64_t> inlined;
    for (Operation *fn : postorder) {
      uint64_t size = ownOps.lookup(fn);
      for (const Edge &edge : callees.lookup(fn))
        if (edge.isCall)
          size = std::min<uint64_t>(size + inlined.lookup(edge.callee),
                                    std::numeric_limits<uint64_t>::max() / 2);
      inlined[fn] = size;
    }
    bool tooLarge = false;
    for (Operation *fn : functions) {
      if (SymbolTable::getSymbolVisibility(fn) != SymbolTable::Visibility::Public)
        continue;
      uint64_t size = inlined.lookup(fn);
      if (maxInlinedOps <= 0 || size <= static_cast<uint64_t>(maxInlinedOps))
        continue;
      fn->emitError() << "inlining every call would make @"
                      << SymbolTable::getSymbolName(fn).getValue() << " "
                      << size << " operations, more than max-inlined-ops ("
                      << static_cast<int64_t>(maxInlinedOps)
                      << "): llmc inlines every call (a function called "
                         "twice per level doubles per level)";
      tooLarge = true;
    }
    if (tooLarge)
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
        postorder.push_back(fn);
        stack.pop_back();
        work.pop_back();
        continue;
      }
      Edge edge = it->second[next++];
      State s = state.lookup(edge.callee);
      if (s == State::OnStack)
        report(edge.user, edge.callee);
      else if (s == State::Unvisited)
        push(edge.callee);
    }
  }

  /// `call` (in the function on top of the stack) calls or references
  /// `callee`, which is on the stack: the cycle is the stack from `callee`
  /// on.
  void report(Operation *call, Operation *callee) {
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
