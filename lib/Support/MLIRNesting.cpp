//===- MLIRNesting.cpp - Nesting guard for MLIR text and IR ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/MLIRNesting.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

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

/// The depth of attributes and types (locations are attributes), each
/// measured once: an iterative depth-first search over their immediate
/// sub-elements, so that a chain 10^5 deep costs no stack. A sub-element
/// still being measured (a recursive type refers to itself) counts 0.
class ElementDepth {
public:
  explicit ElementDepth(int64_t maxDepth) : maxDepth(maxDepth) {}

  /// The depth of the attribute or type `root`, or none when it exceeds
  /// maxDepth (the search stops there).
  std::optional<int64_t> of(const void *root, bool isType) {
    // A search that stopped left its frames unmeasured: no answer after it.
    if (exceeded)
      return std::nullopt;
    if (std::optional<int64_t> known = lookup(root))
      return *known;
    SmallVector<Frame> stack;
    push(stack, {root, isType});
    while (!stack.empty()) {
      Frame &top = stack.back();
      if (top.next < top.children.size()) {
        Element child = top.children[top.next++];
        if (std::optional<int64_t> known = lookup(child.ptr)) {
          top.deepest = std::max(top.deepest, *known);
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
      int64_t depth = top.deepest + 1;
      depths[top.self.ptr] = depth;
      stack.pop_back();
      if (!stack.empty())
        stack.back().deepest = std::max(stack.back().deepest, depth);
      else if (depth > maxDepth)
        return std::nullopt;
      else
        return depth;
    }
    llvm_unreachable("the search returns when its root is measured");
  }

private:
  struct Element {
    const void *ptr;
    bool isType;
  };
  struct Frame {
    Element self;
    SmallVector<Element, 4> children;
    size_t next = 0;
    int64_t deepest = 0;
  };

  /// The measured depth of `ptr`; 0 while it is being measured.
  std::optional<int64_t> lookup(const void *ptr) const {
    auto it = depths.find(ptr);
    if (it == depths.end())
      return std::nullopt;
    return it->second;
  }

  void push(SmallVectorImpl<Frame> &stack, Element e) {
    depths[e.ptr] = 0;
    Frame frame{e, {}, 0, 0};
    auto onAttr = [&](Attribute a) {
      frame.children.push_back({a.getAsOpaquePointer(), false});
    };
    auto onType = [&](Type t) {
      frame.children.push_back({t.getAsOpaquePointer(), true});
    };
    if (e.isType)
      Type::getFromOpaquePointer(e.ptr).walkImmediateSubElements(onAttr,
                                                                 onType);
    else
      Attribute::getFromOpaquePointer(e.ptr).walkImmediateSubElements(onAttr,
                                                                      onType);
    stack.push_back(std::move(frame));
  }

  int64_t maxDepth;
  bool exceeded = false;
  llvm::DenseMap<const void *, int64_t> depths;
};

} // namespace

std::optional<std::string>
mlir::llm::checkIRNesting(Operation *root, int64_t maxDepth, Location *at) {
  ElementDepth elements(maxDepth);
  // Ops in pre-order, each with the number of regions between it and root.
  SmallVector<std::pair<Operation *, int64_t>> worklist{{root, 0}};
  SmallVector<Operation *> children;
  while (!worklist.empty()) {
    auto [op, regions] = worklist.pop_back_val();
    int64_t budget = maxDepth - regions;
    bool tooDeep = budget < 0;
    auto within = [&](const void *ptr, bool isType, int64_t extra) {
      std::optional<int64_t> d = elements.of(ptr, isType);
      return d && *d + extra <= budget;
    };
    bool locationTooDeep =
        !tooDeep && !within(op->getLoc().getAsOpaquePointer(), false, 0);
    tooDeep |= locationTooDeep;
    if (!tooDeep) {
      NamedAttrList attrs(op->getRawDictionaryAttrs());
      op->getName().populateInherentAttrs(op, attrs);
      for (const NamedAttribute &attr : attrs)
        tooDeep |= !within(attr.getValue().getAsOpaquePointer(), false, 0);
      for (Type t : op->getResultTypes())
        tooDeep |= !within(t.getAsOpaquePointer(), true, 0);
      // Block arguments sit one region deeper than the op.
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            tooDeep |= !within(arg.getType().getAsOpaquePointer(), true, 1) ||
                       !within(arg.getLoc().getAsOpaquePointer(), false, 1);
    }
    if (tooDeep) {
      if (at)
        *at = locationTooDeep ? Location(UnknownLoc::get(op->getContext()))
                              : op->getLoc();
      std::string where = "op '" + op->getName().getStringRef().str() + "'";
      if (!locationTooDeep)
        if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
          where += " at line " + std::to_string(file.getLine()) + ", column " +
                   std::to_string(file.getColumn());
      return "it nests more than " + std::to_string(maxDepth) +
             " levels deep (" + where + ")";
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
