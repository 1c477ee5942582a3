//===- FormKVCache.cpp - a decoder with past into the cached form ---------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A "decoder with past" (Hugging Face / optimum exports: `past_key_values.*`
// inputs, `present.*` outputs) computes
//
//   K = concat(past_K, K_new), attention(Q, K, V), present_K = K
//
// and leaves the cache to the caller, who copies the whole cache in and out
// of every step. llmc's generation form (docs/Generation.md) keeps the cache
// as state instead:
//
//   K' = llm.kv_cache_update %cache_K, K_new, %past_length
//   attention(Q, K', V') kv_length %total_length
//
// The rewrite works on the decoder built for an empty past (the ONNX importer
// imports such an export with the past length set to 0): there the
// concatenation has folded away, the attention reads the new keys and values
// themselves, and the present outputs return them. Which attention operand
// belongs to which past input is read from the results: the present output
// that returns an attention's keys (or their head transpose) pairs with the
// past input of the same rank among the past inputs (the exporters keep one
// order for both lists).
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

#include <numeric>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMFORMKVCACHEPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

constexpr StringLiteral kName = "llm.name";

/// Whether `v` is `x` or `x` with dimensions 1 and 2 swapped (the head
/// transpose between the bshd and bhsd layouts), either way round.
bool sameRows(Value v, Value x) {
  if (v == x)
    return true;
  auto isHeadSwap = [](TransposeOp t) {
    ArrayRef<int64_t> p = t.getPermutation();
    return p.size() == 4 && p[0] == 0 && p[1] == 2 && p[2] == 1 && p[3] == 3;
  };
  if (auto t = v.getDefiningOp<TransposeOp>(); t && isHeadSwap(t))
    if (t.getInput() == x)
      return true;
  if (auto t = x.getDefiningOp<TransposeOp>(); t && isHeadSwap(t))
    if (t.getInput() == v)
      return true;
  return false;
}

std::string argName(FunctionOpInterface func, unsigned i) {
  if (auto name = func.getArgAttrOfType<StringAttr>(i, kName))
    return "'" + name.getValue().str() + "'";
  return "#" + std::to_string(i);
}

/// Whether `v` is a 1-D integer constant 0, 1, ..., n - 1.
bool isIota(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return false;
  auto attr = dyn_cast<DenseIntElementsAttr>(c.getValue());
  if (!attr || attr.getType().getRank() != 1)
    return false;
  int64_t i = 0;
  for (const APInt &x : attr.getValues<APInt>())
    if (x.getSExtValue() != i++)
      return false;
  return true;
}

} // namespace

LogicalResult mlir::llm::formKVCache(FunctionOpInterface func) {
  MLIRContext *ctx = func.getContext();
  auto fail = [&](Operation *at) {
    return at->emitError() << "llm-form-kv-cache: ";
  };
  FailureOr<std::optional<SequenceDim>> seq = getSequenceDim(func);
  if (failed(seq))
    return failure();
  if (!*seq)
    return fail(func) << "@" << func.getName()
                      << " has no dynamic sequence dimension (llm.dim_bounds): "
                         "the cached form serves every prompt length up to a "
                         "bound";
  int64_t bound = (*seq)->bound;
  Block &body = func.getFunctionBody().front();

  // The past inputs: float arguments with an empty dimension.
  SmallVector<unsigned> past;
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !isa<FloatType>(type.getElementType()) ||
        !type.hasStaticShape() || type.getNumElements() != 0)
      continue;
    if (!arg.use_empty()) {
      Operation *user = *arg.getUsers().begin();
      return fail(user) << "the past input "
                        << argName(func, arg.getArgNumber())
                        << " is still read here with an empty past: only a "
                           "past that is concatenated before the new keys or "
                           "values of an attention can become a cache";
    }
    past.push_back(arg.getArgNumber());
  }
  if (past.empty())
    return fail(func) << "@" << func.getName()
                      << " has no past input (an argument with an empty "
                         "dimension: the past keys/values of a decoder built "
                         "for an empty past)";

  // Each attention's keys and values, and the results that return them.
  Operation *ret = body.getTerminator();
  SmallVector<AttentionOp> attentions;
  func.walk([&](AttentionOp a) { attentions.push_back(a); });
  if (attentions.empty())
    return fail(func) << "@" << func.getName()
                      << " has past inputs but no llm.attention: no "
                         "attention was recognized (llm-recompose finds "
                         "softmax(scale * Q K^T + causal or no mask) V; other "
                         "biases, e.g. ALiBi, are not taken)";
  // result index -> (attention, operand: 1 keys, 2 values)
  DenseMap<unsigned, std::pair<AttentionOp, unsigned>> present;
  for (AttentionOp a : attentions) {
    if (a.getMask())
      return fail(a) << "this attention has an explicit mask: the cached form "
                        "takes causal or unmasked attention only (a padding "
                        "mask has no meaning when one sequence is generated)";
    if (a.getKvLength())
      return fail(a) << "this attention already reads a cache (kv_length)";
    for (unsigned operand : {1u, 2u}) {
      Value kv = a->getOperand(operand);
      std::optional<unsigned> found;
      for (OpOperand &r : ret->getOpOperands())
        if (!present.count(r.getOperandNumber()) && sameRows(r.get(), kv)) {
          found = r.getOperandNumber();
          break;
        }
      if (!found)
        return fail(a) << "the " << (operand == 1 ? "keys" : "values")
                       << " of this attention are not returned as a present "
                          "output: only self-attention over the past and the "
                          "new tokens can read a cache";
      present[*found] = {a, operand};
    }
  }
  if (present.size() != past.size())
    return fail(func) << "@" << func.getName() << " has " << past.size()
                      << " past inputs but " << present.size()
                      << " present outputs that return the keys or values of "
                         "an attention; they must pair up one to one";

  // Present outputs in result order pair with past inputs in argument order.
  SmallVector<unsigned> presentOrder;
  for (auto &entry : present)
    presentOrder.push_back(entry.first);
  llvm::sort(presentOrder);

  // New arguments: the caches in place of the past inputs, then
  // past_length and total_length.
  auto index = RankedTensorType::get({}, IntegerType::get(ctx, 64));
  unsigned numArgs = func.getNumArguments();
  auto lengthAttrs = [&](StringRef name) {
    return DictionaryAttr::get(ctx,
                               {NamedAttribute(StringAttr::get(ctx, kName),
                                               StringAttr::get(ctx, name))});
  };
  if (failed(func.insertArguments(
          {numArgs, numArgs}, {index, index},
          {lengthAttrs("past_length"), lengthAttrs("total_length")},
          {func.getLoc(), func.getLoc()})))
    return fail(func) << "cannot add the length arguments";
  Value pastLength = body.getArgument(numArgs);
  Value totalLength = body.getArgument(numArgs + 1);

  DenseMap<std::pair<Operation *, unsigned>, Value> caches;
  for (auto [n, resultIndex] : llvm::enumerate(presentOrder)) {
    auto [attention, operand] = present[resultIndex];
    unsigned pastIndex = past[n];
    Value kv = attention->getOperand(operand);
    auto type = cast<RankedTensorType>(kv.getType());
    unsigned axis = attention.getLayout() == AttentionLayout::BSHD ? 1 : 2;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d) != (d == axis))
        return fail(attention)
               << "the " << (operand == 1 ? "keys" : "values") << " " << type
               << " of this attention must be dynamic exactly along the "
                  "sequence axis "
               << axis;
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = bound;
    auto cacheType = RankedTensorType::get(shape, type.getElementType());
    NamedAttrList attrs(func.getArgAttrDict(pastIndex));
    attrs.set(kKVCacheAttrName, UnitAttr::get(ctx));
    if (failed(func.insertArgument(pastIndex, cacheType,
                                   attrs.getDictionary(ctx),
                                   body.getArgument(pastIndex).getLoc())))
      return fail(func) << "cannot add a cache argument";
    // The insertion shifted the past inputs after it.
    for (unsigned &p : past)
      if (p >= pastIndex)
        ++p;
    caches[{attention.getOperation(), operand}] = body.getArgument(pastIndex);
  }

  // The attentions write their new rows into the caches and read them.
  for (AttentionOp a : attentions) {
    OpBuilder b(a);
    unsigned axis = a.getLayout() == AttentionLayout::BSHD ? 1 : 2;
    for (unsigned operand : {1u, 2u}) {
      Value cache = caches.lookup({a.getOperation(), operand});
      Value updated = KVCacheUpdateOp::create(
          b, a.getLoc(), cache.getType(), cache, a->getOperand(operand),
          pastLength, b.getI64IntegerAttr(axis));
      a->setOperand(operand, updated);
    }
    a.getKvLengthMutable().assign(totalLength);
  }

  // Tables read by the new positions: rows [past, past + S).
  SmallVector<SequencePrefixOp> prefixes;
  func.walk([&](SequencePrefixOp p) { prefixes.push_back(p); });
  for (SequencePrefixOp p : prefixes) {
    if (p.getAxes().size() != 1)
      return fail(p) << "a table read along " << p.getAxes().size()
                     << " sequence axes (a mask that was not recognized as "
                        "causal) cannot be read at the cache's positions";
    int64_t axis = p.getAxes()[0];
    auto in = cast<RankedTensorType>(p.getInput().getType());
    OpBuilder b(p);
    Location loc = p.getLoc();
    // positions = iota[:S] + past
    bool tableIsIota = isIota(p.getInput());
    Type elem = tableIsIota ? in.getElementType() : IntegerType::get(ctx, 64);
    Value positions = p.getResult();
    if (!tableIsIota) {
      int64_t rows = in.getDimSize(axis);
      SmallVector<int64_t> iota(rows);
      std::iota(iota.begin(), iota.end(), int64_t{0});
      auto iotaType = RankedTensorType::get({rows}, elem);
      Value table = ConstantOp::create(
          b, loc, iotaType, DenseIntElementsAttr::get(iotaType, iota));
      positions = SequencePrefixOp::create(
          b, loc, RankedTensorType::get({ShapedType::kDynamic}, elem), table,
          b.getDenseI64ArrayAttr({0}));
    }
    Value offset = pastLength;
    if (elem != index.getElementType())
      offset = CastOp::create(b, loc, RankedTensorType::get({}, elem), offset);
    b.setInsertionPointAfter(positions.getDefiningOp());
    auto shifted =
        AddOp::create(b, loc, positions.getType(), positions, offset);
    if (positions == p.getResult()) {
      p.getResult().replaceAllUsesExcept(shifted, shifted);
      continue;
    }
    Value rows = GatherOp::create(b, loc, p.getType(), p.getInput(), shifted,
                                  b.getI64IntegerAttr(axis));
    p.getResult().replaceAllUsesWith(rows);
    p.erase();
  }

  // Drop the present outputs and the past inputs.
  llvm::BitVector results(ret->getNumOperands());
  llvm::SetVector<Value> dropped;
  for (unsigned r : presentOrder) {
    results.set(r);
    dropped.insert(ret->getOperand(r));
  }
  ret->eraseOperands(results);
  // The head transposes that only fed the present outputs.
  for (Value v : dropped)
    if (Operation *def = v.getDefiningOp(); def && isOpTriviallyDead(def))
      def->erase();
  if (failed(func.eraseResults(results)))
    return fail(func) << "cannot drop the present outputs";
  llvm::BitVector args(func.getNumArguments());
  for (unsigned p : past)
    args.set(p);
  if (failed(func.eraseArguments(args)))
    return fail(func) << "cannot drop the past inputs";
  return success();
}

LogicalResult mlir::llm::checkDecoderWithPast(FunctionOpInterface func) {
  Block &body = func.getFunctionBody().front();
  Operation *ret = body.getTerminator();
  unsigned numPast = 0;
  for (BlockArgument arg : body.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kName);
    if (!name || !name.getValue().contains_insensitive("past"))
      continue;
    ++numPast;
    auto fail = [&](Operation *at) {
      return at->emitError()
             << "llm-form-kv-cache: with a past of one token, the past input '"
             << name.getValue() << "' ";
    };
    // past -> concat(past, new) along the sequence.
    auto concat =
        arg.hasOneUse() ? dyn_cast<ConcatOp>(*arg.user_begin()) : ConcatOp();
    if (!concat || concat->getNumOperands() != 2 ||
        concat->getOperand(0) != arg)
      return fail(arg.use_empty() ? func.getOperation() : *arg.user_begin())
             << "is not concatenated before the new keys or values "
                "(concat(past, new)); the cached form needs that";
    Value all = concat.getResult();
    // ... read by an attention without a mask (causal aligned at the end:
    // a mask sliced bias[k - q:k, :k] is recognized; one that is not, or an
    // attention that ignores the past, would be computed differently).
    bool read = false;
    func.walk([&](AttentionOp a) {
      for (unsigned operand : {1u, 2u})
        if (sameRows(a->getOperand(operand), all) && !a.getMask())
          read = true;
    });
    if (!read)
      return fail(concat)
             << "is concatenated here but no attention reads concat(past, "
                "new) with causal (end-aligned) or no masking: the model "
                "attends differently once a past exists (it ignores the past, "
                "or its causal mask is not aligned at the last key), which "
                "the cached form would not reproduce";
    bool returned = llvm::any_of(ret->getOperands(),
                                 [&](Value v) { return sameRows(v, all); });
    if (!returned)
      return fail(concat) << "is concatenated here but concat(past, new) is "
                             "not returned as a present output";
  }
  if (numPast == 0)
    return func.emitError() << "llm-form-kv-cache: @" << func.getName()
                            << " has no past input (an argument named past*)";
  return success();
}

namespace {

struct LLMFormKVCachePass
    : mlir::llm::impl::LLMFormKVCachePassBase<LLMFormKVCachePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<FunctionOpInterface>(entry);
    if (!func) {
      emitError(module.getLoc()) << "llm-form-kv-cache: no function @" << entry;
      return signalPassFailure();
    }
    if (failed(formKVCache(func)))
      signalPassFailure();
  }
};

} // namespace
