//===- GeneralizeSequence.cpp - One program for every sequence length -----===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `generalizeSequenceLength`, the inverse of
// `llm-specialize-sequence`: the same program built for several sequence
// lengths (e.g. an ONNX model imported with its symbolic sequence dimension
// set to three values) becomes one program whose sequence dimension is
// dynamic and bounded.
//
// The programs are compared op by op in lockstep. Every difference must be
// explained by the length alone:
//   * a dimension that equals the length in every program becomes `?`;
//   * an `llm.slice` limit that equals the length becomes the bound (a
//     dynamic dimension is sliced whole);
//   * a constant whose value in every program is the leading block of the
//     first (longest) program's value, along the dimensions that are the
//     length, becomes `llm.sequence_prefix` of that value (position
//     tables, causal masks);
// anything else (a dimension that is twice the length, an attribute or an op
// that differs) is reported at the op, naming what differs. The invariant of
// DimBounds.h (every `?` is the one sequence length) holds by construction.
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::llm;

namespace {

/// The elements of a `dense` or `dense_resource` constant as bit patterns
/// (one per element; a splat stores one). Returns std::nullopt for element
/// types other than integers and floats.
struct Bits {
  bool splat = false;
  std::vector<uint64_t> values;
  uint64_t at(int64_t k) const { return splat ? values[0] : values[k]; }
};

std::optional<Bits> readBits(ElementsAttr attr) {
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  Type et = type.getElementType();
  Bits bits;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    auto push = [&](const APInt &v) {
      bits.values.push_back(v.getBitWidth() <= 64 ? v.getZExtValue() : 0);
    };
    if (dense.isSplat()) {
      bits.splat = true;
      push(isa<FloatType>(et) ? dense.getSplatValue<APFloat>().bitcastToAPInt()
                              : dense.getSplatValue<APInt>());
      return bits;
    }
    if (isa<FloatType>(et))
      for (APFloat v : dense.getValues<APFloat>())
        push(v.bitcastToAPInt());
    else
      for (APInt v : dense.getValues<APInt>())
        push(v);
    return bits;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource || !resource.getRawHandle().getBlob())
    return std::nullopt;
  ArrayRef<char> data = resource.getData();
  unsigned width = et.getIntOrFloatBitWidth();
  unsigned bytes = et.isInteger(1) ? 1 : width / 8;
  int64_t n = type.getNumElements();
  if (width > 64 || static_cast<int64_t>(data.size()) != n * bytes)
    return std::nullopt;
  bits.values.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    uint64_t v = 0;
    std::memcpy(&v, data.data() + k * bytes, bytes);
    bits.values[k] = v;
  }
  return bits;
}

/// Whether two constants hold the same elements (fast for equal resources).
bool sameValue(ElementsAttr a, ElementsAttr b) {
  if (a == b)
    return true;
  if (a.getType() != b.getType())
    return false;
  auto ra = dyn_cast<DenseResourceElementsAttr>(a);
  auto rb = dyn_cast<DenseResourceElementsAttr>(b);
  if (ra && rb && ra.getRawHandle().getBlob() && rb.getRawHandle().getBlob()) {
    ArrayRef<char> da = ra.getData(), db = rb.getData();
    return da.size() == db.size() &&
           std::memcmp(da.data(), db.data(), da.size()) == 0;
  }
  std::optional<Bits> ba = readBits(a), bb = readBits(b);
  if (!ba || !bb)
    return false;
  int64_t n = cast<ShapedType>(a.getType()).getNumElements();
  for (int64_t k = 0; k < n; ++k)
    if (ba->at(k) != bb->at(k))
      return false;
  return true;
}

/// Whether `small` equals the leading block of `big` (same rank, each
/// dimension of `small` at most `big`'s).
bool isLeadingBlock(ElementsAttr big, ElementsAttr small) {
  auto bt = cast<RankedTensorType>(big.getType());
  auto st = cast<RankedTensorType>(small.getType());
  if (bt.getRank() != st.getRank() ||
      bt.getElementType() != st.getElementType())
    return false;
  std::optional<Bits> bb = readBits(big), sb = readBits(small);
  if (!bb || !sb)
    return false;
  int64_t rank = st.getRank(), n = st.getNumElements();
  SmallVector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat = flat * bt.getDimSize(d) + index[d];
    if (sb->at(k) != bb->at(flat))
      return false;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < st.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return true;
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

class Generalizer {
public:
  Generalizer(ArrayRef<ModuleOp> modules, ArrayRef<int64_t> lengths)
      : modules(modules), lengths(lengths), maps(modules.size()) {}

  LogicalResult run();

private:
  /// Reports a difference at `op` (of the first program).
  InFlightDiagnostic error(Operation *op, size_t other) {
    InFlightDiagnostic diag = op->emitError();
    diag << "cannot keep the sequence length dynamic: its import (the "
            "llmc op '"
         << op->getName() << "') differs between lengths " << lengths[0]
         << " and " << lengths[other] << ": ";
    return diag;
  }

  /// The type of a value in every program with `?` where the size is the
  /// program's length; failure (and `why`) when another size differs.
  FailureOr<Type> mergeType(ArrayRef<Type> types, std::string &why);
  LogicalResult mergeOp(ArrayRef<Operation *> ops);
  LogicalResult mergeAttribute(ArrayRef<Operation *> ops, StringAttr name);

  ArrayRef<ModuleOp> modules;
  ArrayRef<int64_t> lengths;
  /// The program that the last failed mergeType found different (for
  /// naming its length in the error).
  size_t culprit = 1;
  /// maps[i]: values of program i -> values of program 0.
  SmallVector<IRMapping> maps;
  /// Constants of program 0 read through their prefix, with the axes.
  SmallVector<std::pair<Operation *, SmallVector<int64_t>>> prefixes;
};

FailureOr<Type> Generalizer::mergeType(ArrayRef<Type> types, std::string &why) {
  culprit = 1;
  if (llvm::all_equal(types))
    return types[0];
  if (auto fn = dyn_cast<FunctionType>(types[0])) {
    SmallVector<Type> inputs, results;
    for (unsigned k = 0; k < fn.getNumInputs() + fn.getNumResults(); ++k) {
      SmallVector<Type> column;
      for (Type t : types) {
        auto f = dyn_cast<FunctionType>(t);
        if (!f || f.getNumInputs() != fn.getNumInputs() ||
            f.getNumResults() != fn.getNumResults()) {
          why = "the function types differ in arity";
          return failure();
        }
        column.push_back(k < f.getNumInputs()
                             ? f.getInput(k)
                             : f.getResult(k - f.getNumInputs()));
      }
      FailureOr<Type> merged = mergeType(column, why);
      if (failed(merged))
        return failure();
      (k < fn.getNumInputs() ? inputs : results).push_back(*merged);
    }
    return Type(FunctionType::get(fn.getContext(), inputs, results));
  }
  auto first = dyn_cast<RankedTensorType>(types[0]);
  if (!first) {
    why = "type " + str(types[0]) + " differs";
    return failure();
  }
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, t] : llvm::enumerate(types)) {
    auto tt = dyn_cast<RankedTensorType>(t);
    if (!tt || tt.getRank() != first.getRank() ||
        tt.getElementType() != first.getElementType() ||
        tt.getEncoding() != first.getEncoding()) {
      why = "types " + str(types[0]) + " and " + str(t) + " differ";
      culprit = i;
      return failure();
    }
  }
  for (int64_t d = 0; d < first.getRank(); ++d) {
    bool equal = true, isLength = true;
    for (auto [i, t] : llvm::enumerate(types)) {
      int64_t size = cast<RankedTensorType>(t).getDimSize(d);
      equal &= size == first.getDimSize(d);
      isLength &= size == lengths[i];
    }
    if (equal)
      continue;
    if (!isLength) {
      culprit = 1;
      for (auto [i, t] : llvm::enumerate(types))
        if (i && cast<RankedTensorType>(t).getDimSize(d) != lengths[i] &&
            cast<RankedTensorType>(t).getDimSize(d) != first.getDimSize(d)) {
          culprit = i;
          break;
        }
      why = "dimension " + std::to_string(d) + " of " + str(types[0]);
      for (auto [i, t] : llvm::enumerate(types))
        if (i)
          why += (i + 1 == types.size() ? " and " : ", ") + str(t);
      why += " is not the sequence length itself (only a dimension equal to "
             "the length may vary with it)";
      return failure();
    }
    shape[d] = ShapedType::kDynamic;
  }
  return Type(first.clone(shape));
}

LogicalResult Generalizer::mergeAttribute(ArrayRef<Operation *> ops,
                                          StringAttr name) {
  SmallVector<Attribute> attrs;
  for (Operation *op : ops)
    attrs.push_back(op->getAttr(name));
  if (llvm::all_equal(attrs))
    return success();
  Operation *op = ops[0];
  // func.func's function_type (and any other type attribute).
  if (auto ta = dyn_cast_or_null<TypeAttr>(attrs[0])) {
    SmallVector<Type> types;
    for (auto [i, a] : llvm::enumerate(attrs)) {
      auto t = dyn_cast_or_null<TypeAttr>(a);
      if (!t)
        return error(op, i) << "attribute '" << name.getValue() << "'";
      types.push_back(t.getValue());
    }
    std::string why;
    FailureOr<Type> merged = mergeType(types, why);
    if (failed(merged))
      return error(op, culprit) << why;
    op->setAttr(name, TypeAttr::get(*merged));
    return success();
  }
  // A slice that takes the sequence dimension whole: its limit is the length
  // (convert-llm-to-linalg takes a dynamic dimension whole).
  if (isa<SliceOp>(op) && name.getValue() == "limits") {
    SmallVector<int64_t> limits(cast<DenseI64ArrayAttr>(attrs[0]).asArrayRef());
    for (size_t d = 0; d < limits.size(); ++d) {
      bool equal = true, isLength = true;
      for (auto [i, a] : llvm::enumerate(attrs)) {
        ArrayRef<int64_t> l = cast<DenseI64ArrayAttr>(a).asArrayRef();
        if (l.size() != limits.size())
          return error(op, i) << "the slice ranks differ";
        equal &= l[d] == limits[d];
        isLength &= l[d] == lengths[i];
      }
      if (!equal && !isLength)
        return error(op, 1) << "the slice limit of dimension " << d
                            << " is not the sequence length (only a slice "
                               "that keeps the sequence whole can be kept)";
    }
    return success();
  }
  for (size_t i = 1; i < attrs.size(); ++i)
    if (attrs[i] != attrs[0])
      return error(op, i) << "attribute '" << name.getValue() << "' is "
                          << attrs[0] << " and " << attrs[i];
  return success();
}

LogicalResult Generalizer::mergeOp(ArrayRef<Operation *> ops) {
  Operation *op = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    Operation *other = ops[i];
    if (other->getName() != op->getName())
      return error(op, i) << "it is '" << other->getName() << "' there";
    if (other->getNumOperands() != op->getNumOperands() ||
        other->getNumResults() != op->getNumResults() ||
        other->getNumRegions() != op->getNumRegions())
      return error(op, i) << "operand, result or region counts";
    for (auto [a, b] : llvm::zip(op->getOperands(), other->getOperands()))
      if (maps[i].lookupOrNull(b) != a)
        return error(op, i) << "its operands come from different values";
    for (auto [ra, rb] : llvm::zip(op->getRegions(), other->getRegions())) {
      if (ra.getBlocks().size() != rb.getBlocks().size())
        return error(op, i) << "block counts";
      for (auto [ba, bb] : llvm::zip(ra, rb)) {
        if (ba.getNumArguments() != bb.getNumArguments())
          return error(op, i) << "block argument counts";
        for (auto [x, y] : llvm::zip(ba.getArguments(), bb.getArguments()))
          maps[i].map(y, x);
      }
    }
    for (auto [x, y] : llvm::zip(op->getResults(), other->getResults()))
      maps[i].map(y, x);
    if (other->getAttrDictionary().size() != op->getAttrDictionary().size())
      return error(op, i) << "attribute sets";
    for (NamedAttribute attr : op->getAttrs())
      if (!other->getAttr(attr.getName()))
        return error(op, i) << "attribute '" << attr.getName().getValue()
                            << "' is missing there";
  }

  // A constant that depends on the length: the leading block of the longest
  // program's value, read through llm.sequence_prefix.
  if (auto cst = dyn_cast<ConstantOp>(op)) {
    SmallVector<ElementsAttr> values;
    for (Operation *o : ops)
      values.push_back(cast<ConstantOp>(o).getValue());
    bool equal = llvm::all_of(
        values, [&](ElementsAttr v) { return sameValue(values[0], v); });
    if (equal)
      return success();
    SmallVector<Type> types;
    for (Operation *o : ops)
      types.push_back(o->getResult(0).getType());
    std::string why;
    FailureOr<Type> merged = mergeType(types, why);
    if (failed(merged))
      return error(op, culprit) << "its value depends on the length: " << why;
    SmallVector<int64_t> axes;
    for (auto [d, size] :
         llvm::enumerate(cast<RankedTensorType>(*merged).getShape()))
      if (ShapedType::isDynamic(size))
        axes.push_back(d);
    if (axes.empty())
      return error(op, 1) << "its value (of a static shape) depends on the "
                             "length";
    for (size_t i = 1; i < values.size(); ++i)
      if (!isLeadingBlock(values[0], values[i]))
        return error(op, i)
               << "its value depends on the length, and not as the leading "
                  "rows of one table (a constant of type "
               << values[0].getType() << ")";
    prefixes.push_back({op, axes});
    return success();
  }

  for (NamedAttribute attr : op->getAttrs()) {
    // A function's type is merged after its body (run), so that a
    // difference is reported at the op that makes it.
    if (auto func = dyn_cast<func::FuncOp>(op);
        func && attr.getName() == func.getFunctionTypeAttrName())
      continue;
    if (failed(mergeAttribute(ops, attr.getName())))
      return failure();
  }
  for (unsigned r = 0; r < op->getNumRegions(); ++r)
    for (auto [k, arg] : llvm::enumerate(op->getRegion(r).getArguments())) {
      SmallVector<Type> types;
      for (Operation *o : ops)
        types.push_back(o->getRegion(r).getArgument(k).getType());
      std::string why;
      FailureOr<Type> merged = mergeType(types, why);
      if (failed(merged))
        return error(op, culprit) << "block argument " << k << ": " << why;
      arg.setType(*merged);
    }
  for (auto [k, result] : llvm::enumerate(op->getResults())) {
    SmallVector<Type> types;
    for (Operation *o : ops)
      types.push_back(o->getResult(k).getType());
    std::string why;
    FailureOr<Type> merged = mergeType(types, why);
    if (failed(merged))
      return error(op, culprit) << "result " << k << ": " << why;
    result.setType(*merged);
  }
  // A slice keeps a dynamic dimension whole: a fixed part of the sequence
  // (x[:, 0], x[:, :4]) has a static size that llm.slice cannot take.
  if (auto slice = dyn_cast<SliceOp>(op)) {
    auto in = cast<RankedTensorType>(slice.getInput().getType());
    auto out = cast<RankedTensorType>(slice.getType());
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (in.isDynamicDim(d) && !out.isDynamicDim(d))
        return op->emitError()
               << "cannot keep the sequence length dynamic: the slice takes "
                  "positions ["
               << slice.getStarts()[d] << ", " << slice.getLimits()[d]
               << ") of the sequence (dimension " << d
               << "); a fixed part of a dynamic sequence is not supported yet "
                  "(llm.slice keeps a dynamic dimension whole)";
  }
  // A reshape moves one dynamic dimension (ReshapeOp's verifier); one with
  // the length in two dimensions is a tensor such as attention weights
  // [S, S] kept whole (e.g. returned as an output).
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    auto in = cast<RankedTensorType>(reshape.getInput().getType());
    auto out = cast<RankedTensorType>(reshape.getType());
    if (in.getNumDynamicDims() > 1 || out.getNumDynamicDims() > 1)
      return op->emitError()
             << "cannot keep the sequence length dynamic: this reshape ("
             << str(in) << " -> " << str(out)
             << ") holds the sequence length in more than one dimension, as "
                "attention weights [S, S] returned as an output do; llmc "
                "reshapes tensors with one dynamic dimension";
  }
  return success();
}

LogicalResult Generalizer::run() {
  SmallVector<SmallVector<Operation *>> orders(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    Operation *top = ModuleOp(modules[i]).getOperation();
    top->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != top)
        orders[i].push_back(op);
    });
  }
  // In lockstep up to the shortest program: where they part, the first op
  // that differs is reported (naming it) rather than only the counts.
  size_t common = orders[0].size();
  for (auto &order : orders)
    common = std::min(common, order.size());
  for (size_t k = 0; k < common; ++k) {
    SmallVector<Operation *> ops;
    for (auto &order : orders)
      ops.push_back(order[k]);
    if (failed(mergeOp(ops)))
      return failure();
  }
  for (size_t i = 1; i < modules.size(); ++i)
    if (orders[i].size() != orders[0].size())
      return modules[0]->emitError()
             << "cannot keep the sequence length dynamic: the program has "
             << orders[0].size() << " ops at length " << lengths[0] << " but "
             << orders[i].size() << " at length " << lengths[i];
  for (size_t k = 0; k < orders[0].size(); ++k) {
    auto func = dyn_cast<func::FuncOp>(orders[0][k]);
    if (!func)
      continue;
    SmallVector<Operation *> ops;
    for (auto &order : orders)
      ops.push_back(order[k]);
    if (failed(mergeAttribute(ops, func.getFunctionTypeAttrName())))
      return failure();
  }

  // The dynamic arguments declare the longest length as their bound.
  int64_t bound = lengths[0];
  modules[0]->walk([&](func::FuncOp func) {
    for (unsigned a = 0; a < func.getNumArguments(); ++a) {
      auto t = dyn_cast<RankedTensorType>(func.getArgument(a).getType());
      if (!t || t.hasStaticShape())
        continue;
      SmallVector<int64_t> bounds(t.getShape());
      for (int64_t &d : bounds)
        if (ShapedType::isDynamic(d))
          d = bound;
      func.setArgAttr(a, kDimBoundsAttrName,
                      DenseI64ArrayAttr::get(func.getContext(), bounds));
    }
  });
  for (auto &[op, axes] : prefixes) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Value table = op->getResult(0);
    auto type = cast<RankedTensorType>(table.getType());
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t a : axes)
      shape[a] = ShapedType::kDynamic;
    auto prefix = SequencePrefixOp::create(b, op->getLoc(), type.clone(shape),
                                           table, axes);
    table.replaceAllUsesExcept(prefix.getResult(), prefix);
  }
  return verify(modules[0]);
}

} // namespace

LogicalResult mlir::llm::generalizeSequenceLength(ArrayRef<ModuleOp> modules,
                                                  ArrayRef<int64_t> lengths) {
  assert(modules.size() == lengths.size() && modules.size() >= 2 &&
         "one length per program, at least two programs");
  assert(llvm::all_of(lengths.drop_front(),
                      [&](int64_t l) { return l < lengths[0]; }) &&
         "the first program is built for the longest length");
  return Generalizer(modules, lengths).run();
}
