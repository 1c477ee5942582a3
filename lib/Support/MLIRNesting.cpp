//===- MLIRNesting.cpp - Nesting guard for MLIR text and IR ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/MLIRNesting.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/thread.h"

using namespace mlir;

std::optional<size_t> mlir::llm::findMLIRNestingBeyond(llvm::StringRef text,
                                                       int64_t maxDepth) {
  llvm::SmallVector<char> open;
  // Unary minus signs in a row (`- - d0` in an affine expression): the
  // parser recurses once per sign.
  int64_t minuses = 0;
  bool inString = false, escaped = false, inComment = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (inComment) {
      inComment = c != '\n';
      continue;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"' || c == '\n')
        inString = false;
      continue;
    }
    if (c == '-' && !(i + 1 < e && text[i + 1] == '>')) {
      if (int64_t(open.size()) + ++minuses > maxDepth)
        return i;
      continue;
    }
    if (!llvm::isSpace(c))
      minuses = 0;
    char closer = 0;
    switch (c) {
    case '"':
      inString = true;
      continue;
    case '/':
      inComment = i + 1 < e && text[i + 1] == '/';
      continue;
    case '(':
      closer = ')';
      break;
    case '[':
      closer = ']';
      break;
    case '{':
      closer = '}';
      break;
    case '<':
      // A type's or attribute's parameters (also after a space: `tuple
      // <i32>`); `<=` is no opener.
      if (!(i + 1 < e && text[i + 1] == '='))
        closer = '>';
      break;
    case '-':
      // `->` (function types, affine maps) closes nothing.
      ++i;
      continue;
    case '>':
      // Nor does `>=` (integer sets).
      if (i + 1 < e && text[i + 1] == '=')
        continue;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (!open.empty() && open.back() == c)
        open.pop_back();
      continue;
    default:
      continue;
    }
    if (!closer)
      continue;
    open.push_back(closer);
    if (int64_t(open.size()) > maxDepth)
      return i;
  }
  return std::nullopt;
}

std::optional<std::string>
mlir::llm::checkMLIRNesting(llvm::MemoryBufferRef buffer) {
  if (isBytecode(buffer))
    return std::nullopt;
  llvm::StringRef text = buffer.getBuffer();
  std::optional<size_t> at = findMLIRNestingBeyond(text, kMaxMLIRNesting);
  if (!at)
    return std::nullopt;
  llvm::StringRef before = text.take_front(*at);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      *at - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  return "it nests more than " + std::to_string(kMaxMLIRNesting) +
         " levels deep (line " + std::to_string(line) + ", column " +
         std::to_string(column) + ")";
}

namespace {

/// The depth and expanded size of attributes and types (locations are
/// attributes; the affine expressions of affine maps and integer sets
/// count as their sub-elements), each measured once: an iterative
/// depth-first search over their immediate sub-elements, so that a chain
/// 10^5 deep costs no stack. A sub-element still being measured (a
/// recursive type refers to itself) counts depth 0 and size 1. The
/// expanded size counts a shared sub-element once per use, as a printer
/// writes it out; it saturates at kMaxExpandedElements + 1.
class ElementDepth {
public:
  enum class Kind { Attribute, Type, AffineExpr };
  struct Element {
    const void *ptr;
    Kind kind;
  };

  explicit ElementDepth(int64_t maxDepth) : maxDepth(maxDepth) {}

  /// The depth of `root`, or none when it exceeds maxDepth (the search
  /// stops there).
  std::optional<int64_t> of(Element root) {
    // A search that stopped left its frames unmeasured: no answer after it.
    if (exceeded)
      return std::nullopt;
    if (const Measure *known = lookup(root.ptr))
      return known->depth;
    SmallVector<Frame> stack;
    push(stack, root);
    while (!stack.empty()) {
      Frame &top = stack.back();
      if (top.next < top.children.size()) {
        Element child = top.children[top.next++];
        if (const Measure *known = lookup(child.ptr)) {
          top.deepest = std::max(top.deepest, known->depth);
          top.size = addSizes(top.size, known->size);
          continue;
        }
        // Every frame on the stack is one level below the one under it.
        if (static_cast<int64_t>(stack.size()) >= maxDepth) {
          exceeded = true;
          return std::nullopt;
        }
        push(stack, child);
        continue;
      }
      Measure measure{top.deepest + 1, top.size};
      measures[top.self.ptr] = measure;
      stack.pop_back();
      if (!stack.empty()) {
        stack.back().deepest = std::max(stack.back().deepest, measure.depth);
        stack.back().size = addSizes(stack.back().size, measure.size);
      } else if (measure.depth > maxDepth) {
        return std::nullopt;
      } else {
        return measure.depth;
      }
    }
    llvm_unreachable("the search returns when its root is measured");
  }

  /// The expanded size of `ptr`, measured by `of`.
  uint64_t expandedSize(const void *ptr) const {
    const Measure *known = lookup(ptr);
    return known ? known->size : 1;
  }

private:
  struct Measure {
    int64_t depth;
    uint64_t size;
  };
  struct Frame {
    Element self;
    SmallVector<Element, 4> children;
    size_t next = 0;
    int64_t deepest = 0;
    uint64_t size = 1;
  };

  static uint64_t addSizes(uint64_t a, uint64_t b) {
    return std::min<uint64_t>(a + b, llm::kMaxExpandedElements + 1);
  }

  /// The measure of `ptr`; depth 0 and size 1 while it is being measured.
  const Measure *lookup(const void *ptr) const {
    auto it = measures.find(ptr);
    return it == measures.end() ? nullptr : &it->second;
  }

  void push(SmallVectorImpl<Frame> &stack, Element e) {
    measures[e.ptr] = Measure{0, 1};
    Frame frame{e, {}, 0, 0, 1};
    auto onAttr = [&](Attribute a) {
      frame.children.push_back({a.getAsOpaquePointer(), Kind::Attribute});
    };
    auto onType = [&](Type t) {
      frame.children.push_back({t.getAsOpaquePointer(), Kind::Type});
    };
    auto onExpr = [&](AffineExpr x) {
      frame.children.push_back({x.getAsOpaquePointer(), Kind::AffineExpr});
    };
    switch (e.kind) {
    case Kind::Type:
      Type::getFromOpaquePointer(e.ptr).walkImmediateSubElements(onAttr,
                                                                 onType);
      break;
    case Kind::Attribute: {
      Attribute attr = Attribute::getFromOpaquePointer(e.ptr);
      attr.walkImmediateSubElements(onAttr, onType);
      // Affine maps and sets hold expressions, not attributes: MLIR's
      // printer and walkers recurse through them too.
      if (auto map = dyn_cast<AffineMapAttr>(attr))
        llvm::for_each(map.getValue().getResults(), onExpr);
      else if (auto set = dyn_cast<IntegerSetAttr>(attr))
        llvm::for_each(set.getValue().getConstraints(), onExpr);
      break;
    }
    case Kind::AffineExpr:
      if (auto binary = dyn_cast<AffineBinaryOpExpr>(
              AffineExpr::getFromOpaquePointer(e.ptr))) {
        onExpr(binary.getLHS());
        onExpr(binary.getRHS());
      }
      break;
    }
    stack.push_back(std::move(frame));
  }

  int64_t maxDepth;
  bool exceeded = false;
  llvm::DenseMap<const void *, Measure> measures;
};

} // namespace

std::optional<std::string>
mlir::llm::checkIRNesting(Operation *root, int64_t maxDepth, Location *at) {
  using Kind = ElementDepth::Kind;
  ElementDepth elements(maxDepth);
  // Ops in pre-order, each with the number of regions between it and root.
  SmallVector<std::pair<Operation *, int64_t>> worklist{{root, 0}};
  SmallVector<Operation *> children;
  while (!worklist.empty()) {
    auto [op, regions] = worklist.pop_back_val();
    int64_t budget = maxDepth - regions;
    bool tooDeep = budget < 0, tooLarge = false;
    auto within = [&](const void *ptr, Kind kind, int64_t extra) {
      std::optional<int64_t> d = elements.of({ptr, kind});
      if (d && elements.expandedSize(ptr) > kMaxExpandedElements)
        tooLarge = true;
      return d && *d + extra <= budget;
    };
    const void *loc = op->getLoc().getAsOpaquePointer();
    bool locationTooDeep = !tooDeep && !within(loc, Kind::Attribute, 0);
    tooDeep |= locationTooDeep;
    if (!tooDeep) {
      NamedAttrList attrs(op->getRawDictionaryAttrs());
      op->getName().populateInherentAttrs(op, attrs);
      for (const NamedAttribute &attr : attrs)
        tooDeep |=
            !within(attr.getValue().getAsOpaquePointer(), Kind::Attribute, 0);
      for (Type t : op->getResultTypes())
        tooDeep |= !within(t.getAsOpaquePointer(), Kind::Type, 0);
      // Block arguments sit one region deeper than the op.
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            tooDeep |=
                !within(arg.getType().getAsOpaquePointer(), Kind::Type, 1) ||
                !within(arg.getLoc().getAsOpaquePointer(), Kind::Attribute, 1);
    }
    if (tooDeep || tooLarge) {
      // The op's location, unless that is itself what cannot be printed.
      bool locationUnusable =
          locationTooDeep || elements.expandedSize(loc) > kMaxExpandedElements;
      if (at)
        *at = locationUnusable ? Location(UnknownLoc::get(op->getContext()))
                               : op->getLoc();
      std::string where = "op '" + op->getName().getStringRef().str() + "'";
      if (!locationUnusable)
        if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
          where += " at line " + std::to_string(file.getLine()) + ", column " +
                   std::to_string(file.getColumn());
      if (tooDeep)
        return "it nests more than " + std::to_string(maxDepth) +
               " levels deep (" + where + ")";
      return "it holds an attribute, type or location of more than " +
             std::to_string(kMaxExpandedElements) +
             " elements once its shared parts are written out (" + where + ")";
    }
    children.clear();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &child : block)
          children.push_back(&child);
    for (Operation *child : llvm::reverse(children))
      worklist.push_back({child, regions + 1});
  }
  return std::nullopt;
}

void mlir::llm::runWithParserStack(llvm::function_ref<void()> fn) {
  // llvm::thread runs `fn` on the calling thread when LLVM has no threads.
  llvm::thread worker(std::optional<unsigned>(kParserStackBytes),
                      [&] { fn(); });
  worker.join();
}
