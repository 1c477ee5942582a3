//===- LLMToLinalg.cpp - lower llm to linalg on tensors -------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the conversion of the llm dialect to linalg, tensor,
// arith and math on tensors: the pass, the elementwise, cast, matmul and
// data-movement patterns, and the population of every pattern. The other op
// families live beside it: NormalizationToLinalg.cpp (reductions, softmax,
// norms), AttentionToLinalg.cpp and FlashAttention.cpp (rope, attention),
// QuantToLinalg.cpp with QuantMatvec.cpp and QuantPanels.cpp (quantized ops),
// IndexingToLinalg.cpp, CacheToLinalg.cpp, LLMToLinalgData.cpp and the
// kernels of SparseMatmul.cpp, BF16DotMatmul.cpp and Int8DotMatmul.cpp; the
// builders they share are in LinalgBuilders.h.
//
// Conventions shared by all patterns:
// * shapes are static, except the sequence dimension of a function whose
//   arguments declare `llm.dim_bounds` (DimBounds.h): a `?` dimension is the
//   sequence length, `tensor.empty` gets it from `tensor.dim` of the bounded
//   argument, and the ops that cannot take it (checkDynamicShapes) are
//   reported before converting. A matmul's rows collapsed with a batch
//   ([B, ?, K] -> [B * ?, K]) are the one other dynamic size: read from the
//   collapsed value, expanded back before anything else reads them;
// * elementwise work is an all-parallel `linalg.generic` whose output map is
//   the identity and whose input maps broadcast with numpy rules (missing
//   leading dimensions are dropped, a size-1 dimension that broadcasts maps to
//   the constant 0), so `linalg-fuse-elementwise-ops` can fuse chains of them;
// * f16/bf16 values are extended to f32 inside the bodies and rounded back
//   when stored; reductions accumulate into f32 tensors.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "QuantKernels.h"
#include "SparseMatmul.h"

#include "llm/Conversion/LLMToLinalg/LLMToLinalg.h"
#include "llm/Conversion/Passes.h"
#include "llm/Dialect/LLM/IR/DimBounds.h"
#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace mlir {
#define GEN_PASS_DEF_CONVERTLLMTOLINALGPASS
#include "llm/Conversion/Passes.h.inc"
} // namespace mlir

using namespace mlir;
using namespace mlir::llm;

using namespace mlir::llm::detail;

/// Checks that `op`, which has a dynamic (sequence) dimension, is one the
/// lowering handles with a `?` on that dimension; otherwise emits an error
/// (with `emit`) saying why and returns failure. Every `?` stands for the
/// function's sequence length (DimBounds.h), so reductions, norms and
/// reshapes must not fold the sequence into a count or another dimension.
LogicalResult mlir::llm::checkDynamicShapes(Operation *op, bool emit) {
  if (hasStaticShapes(op))
    return success();
  auto fail = [&](const Twine &why) {
    if (emit)
      op->emitError() << "llm-to-linalg: dynamic shapes: " << why;
    return failure();
  };
  if (!hasSequenceDim(op))
    return fail("the enclosing function declares no bounded sequence "
                "dimension (argument attribute llm.dim_bounds); only the "
                "sequence dimension may be dynamic");
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  // The rows of a matmul's lhs are collapsed into one dimension (a batch
  // and the sequence: B * length rows) and the result expanded back, which
  // infers at most one `?` per group: [?, ?, K] (two sequence lengths)
  // would become an expand_shape without its sizes.
  auto oneDynamicRow = [&](StringRef name, ArrayRef<int64_t> lhs) {
    if (llvm::count_if(lhs.drop_back(), ShapedType::isDynamic) <= 1)
      return success();
    return fail(name +
                " takes at most one dynamic dimension in the lhs rows "
                "(they are collapsed into one), got " +
                shapeStr(lhs));
  };
  if (isa<AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaxOp, MinOp, NegOp, ExpOp,
          LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp, ReciprocalOp, SigmoidOp, AbsOp,
          FloorOp, CeilOp, RoundOp, SinOp, CosOp, ReluOp, SiluOp, GeluOp,
          CastOp, SoftmaxOp, EmbeddingOp, TransposeOp, BroadcastToOp,
          SequencePrefixOp, SequenceLastOp, CompareOp, SelectOp, LogicalAndOp,
          LogicalOrOp, LogicalXorOp, LogicalNotOp>(op))
    return success();
  // Fusion groups carry their ops' types; the ops are checked themselves.
  if (isa<FusionGroupOp, YieldOp>(op))
    return success();
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    auto lt = shapeOf(mm.getLhs()), rt = shapeOf(mm.getRhs());
    if (rt.size() != 2 || !allStatic(rt) || mm.getTransposeA() ||
        !allStatic(lt.take_back(1)))
      return fail("llm.matmul takes a dynamic dimension only in the rows of "
                  "an untransposed lhs against a static 2-D rhs");
    return oneDynamicRow("llm.matmul", lt);
  }
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    auto shape = shapeOf(ln.getInput());
    int64_t axis = ln.getAxis() < 0 ? ln.getAxis() + shape.size() : ln.getAxis();
    if (!allStatic(shape.drop_front(axis)))
      return fail("llm.layer_norm normalizes over a dynamic dimension");
    return success();
  }
  if (auto rms = dyn_cast<RmsNormOp>(op)) {
    if (!isStaticDim(shapeOf(rms.getInput()).back()))
      return fail("llm.rms_norm normalizes over a dynamic dimension");
    return success();
  }
  if (auto rope = dyn_cast<RopeOp>(op)) {
    if (!isStaticDim(shapeOf(rope.getInput()).back()))
      return fail("llm.rope: the rotated (last) dimension is dynamic");
    return success();
  }
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
          op)) {
    // Over the sequence too (sentence-transformers' mean or max pooling):
    // the float lowerings' loops run to the run-time length and a mean
    // divides by it. The exact (f64 and integer) lowerings take static
    // reduced dimensions only.
    Type et = getElementTypeOrSelf(op->getOperand(0).getType());
    if (et.isF32() || et.isF16() || et.isBF16())
      return success();
    auto shape = shapeOf(op->getOperand(0));
    auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    std::string ets;
    llvm::raw_string_ostream(ets) << et;
    for (int64_t a : axes.asArrayRef())
      if (!isStaticDim(shape[a < 0 ? a + shape.size() : a]))
        return fail("reduction of " + ets +
                    " elements over the dynamic (sequence) dimension (only "
                    "f32, f16 and bf16 reductions take one)");
    return success();
  }
  if (auto att = dyn_cast<AttentionOp>(op)) {
    auto q = shapeOf(att.getQuery()), k = shapeOf(att.getKey()),
         v = shapeOf(att.getValue());
    bool bshd = att.getLayout() == AttentionLayout::BSHD;
    unsigned h = bshd ? 2 : 1;
    if (!isStaticDim(q[0]) || !isStaticDim(q[h]) || !isStaticDim(q[3]) ||
        !isStaticDim(k[h]) || !isStaticDim(v[3]) || k[0] != q[0])
      return fail("llm.attention takes a dynamic dimension only as the "
                  "query/key sequence length");
    return success();
  }
  if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
    // A prefill's rows against a static weight (the dequantized panels).
    auto lt = shapeOf(dq.getLhs()), rt = shapeOf(dq.getRhs());
    if (rt.size() != 2 || !allStatic(rt) || !allStatic(lt.take_back(1)))
      return fail("llm.dequant_matmul takes a dynamic dimension only in the "
                  "rows of the lhs against a static 2-D weight");
    if (failed(oneDynamicRow("llm.dequant_matmul", lt)))
      return failure();
    return success();
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // Rows of a static table at run-time positions (llm-form-kv-cache's
    // position tables): the indices carry the sequence.
    if (!allStatic(shapeOf(gather.getInput())))
      return fail("llm.gather takes a dynamic dimension only in its indices "
                  "(the table must be static)");
    return success();
  }
  if (auto update = dyn_cast<KVCacheUpdateOp>(op)) {
    // The verifier keeps the cache static; the update's rows may be the
    // sequence.
    auto u = shapeOf(update.getUpdate());
    for (auto [d, size] : llvm::enumerate(u))
      if (!isStaticDim(size) && static_cast<int64_t>(d) != static_cast<int64_t>(update.getAxis()))
        return fail("llm.kv_cache_update takes a dynamic dimension only as "
                    "the number of new rows (along its axis)");
    return success();
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    auto src = cast<RankedTensorType>(reshape.getInput().getType());
    auto dst = cast<RankedTensorType>(reshape.getType());
    auto count = [](ArrayRef<int64_t> s) {
      return llvm::count_if(s, [](int64_t d) { return !isStaticDim(d); });
    };
    // The static sizes before the `?` must keep their product, and those
    // after it theirs: the sequence stays one whole dimension.
    auto aroundSeq = [](ArrayRef<int64_t> s) {
      auto *it = llvm::find_if(s, [](int64_t d) { return !isStaticDim(d); });
      return std::make_pair(getStaticProduct(ArrayRef<int64_t>(s.begin(), it)),
                            getStaticProduct(ArrayRef<int64_t>(it, s.end())));
    };
    if (count(src.getShape()) != 1 || count(dst.getShape()) != 1 ||
        aroundSeq(src.getShape()) != aroundSeq(dst.getShape()))
      return fail("llm.reshape " + shapeStr(src.getShape()) + " -> " +
                  shapeStr(dst.getShape()) +
                  " must keep the sequence dimension as it is and only "
                  "regroup the static dimensions on each side of it");
    return success();
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    auto type = cast<RankedTensorType>(concat.getType());
    int64_t axis = concat.getAxis() < 0 ? concat.getAxis() + type.getRank()
                                        : concat.getAxis();
    if (!isStaticDim(type.getDimSize(axis)))
      return fail("llm.concat along the dynamic (sequence) dimension");
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    auto in = shapeOf(slice.getInput());
    for (auto [d, size] : llvm::enumerate(in))
      if (!isStaticDim(size) &&
          (slice.getStarts()[d] != 0 || slice.getStrides()[d] != 1))
        return fail("llm.slice of the dynamic (sequence) dimension must keep "
                    "all of it (start 0, stride 1)");
    return success();
  }
  return fail("'" + op->getName().getStringRef() +
              "' does not support a dynamic dimension yet");
}

namespace {

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

// llm.constant V -> arith.constant V (inline dense or dense_resource).
struct ConstantLowering : LLMLowering<ConstantOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(ConstantOp op, OpAdaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(Attribute(op.getValue()));
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(), value);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Integer operands (signless, signed arithmetic) take the arith integer ops;
// f16/bf16 arrive promoted to f32, f32 and f64 as they are.
bool isInt(Value v) { return isa<IntegerType>(v.getType()); }

Value intConst(OpBuilder &b, Location l, Type t, int64_t v) {
  return arith::ConstantOp::create(b, l, b.getIntegerAttr(t, v));
}

/// `y` where a division by it is defined and cannot trap, else 1: for
/// y == 0 (numpy gives 0) and y == -1 (INT_MIN / -1 overflows; x / -1 is
/// computed as -x by the callers).
Value safeDivisor(OpBuilder &b, Location l, Value y) {
  Type t = y.getType();
  Value isZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                       intConst(b, l, t, 0));
  Value isMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                           intConst(b, l, t, -1));
  Value special = arith::OrIOp::create(b, l, isZero, isMinusOne);
  return arith::SelectOp::create(b, l, special, intConst(b, l, t, 1), y);
}

Value binaryScalar(AddOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::AddIOp::create(b, l, x, y);
  return arith::AddFOp::create(b, l, x, y);
}
Value binaryScalar(SubOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::SubIOp::create(b, l, x, y);
  return arith::SubFOp::create(b, l, x, y);
}
Value binaryScalar(MulOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::MulIOp::create(b, l, x, y);
  return arith::MulFOp::create(b, l, x, y);
}
// Integers: y == 0 -> 0, y == -1 -> 0 - x (wraps for INT_MIN), else divsi.
Value binaryScalar(DivOp, OpBuilder &b, Location l, Value x, Value y) {
  if (!isInt(x))
    return arith::DivFOp::create(b, l, x, y);
  Type t = x.getType();
  Value zero = intConst(b, l, t, 0);
  Value q = arith::DivSIOp::create(b, l, x, safeDivisor(b, l, y));
  Value neg = arith::SubIOp::create(b, l, zero, x);
  Value isZero =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y, zero);
  Value isMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                           intConst(b, l, t, -1));
  return arith::SelectOp::create(
      b, l, isZero, zero, arith::SelectOp::create(b, l, isMinusOne, neg, q));
}
// Floats: fmod. Integers: y == 0 or y == -1 -> 0, else remsi.
Value binaryScalar(RemOp, OpBuilder &b, Location l, Value x, Value y) {
  if (!isInt(x))
    return arith::RemFOp::create(b, l, x, y);
  Type t = x.getType();
  Value one = intConst(b, l, t, 1);
  Value safe = safeDivisor(b, l, y);
  Value r = arith::RemSIOp::create(b, l, x, safe);
  Value special = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, safe,
                                        one);
  // safe == 1 also for y == 1, whose remainder is 0 as well.
  return arith::SelectOp::create(b, l, special, intConst(b, l, t, 0), r);
}
Value binaryScalar(PowOp, OpBuilder &b, Location l, Value x, Value y) {
  return math::PowFOp::create(b, l, x, y);
}
Value binaryScalar(MaxOp, OpBuilder &b, Location l, Value x, Value y) {
  return arith::MaximumFOp::create(b, l, x, y);
}
Value binaryScalar(MinOp, OpBuilder &b, Location l, Value x, Value y) {
  if (isInt(x))
    return arith::MinSIOp::create(b, l, x, y);
  return arith::MinimumFOp::create(b, l, x, y);
}

// llm.<binary> %a, %b -> linalg.generic (parallel; broadcasting input maps)
//   { arith/math op on f32 }
template <typename OpTy>
struct BinaryLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Value r = buildElementwise(rewriter, op.getLoc(), type.getShape(),
                               type.getElementType(),
                               ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                               [&](OpBuilder &b, Location loc, ValueRange a) {
                                 return binaryScalar(op, b, loc, a[0], a[1]);
                               });
    rewriter.replaceOp(op, r);
    return success();
  }
};

Value sigmoidScalar(OpBuilder &b, Location l, Value x) {
  Value one = f32Const(b, l, 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}

Value unaryScalar(NegOp, OpBuilder &b, Location l, Value x) {
  if (isInt(x)) // 0 - x, wrapping
    return arith::SubIOp::create(b, l, intConst(b, l, x.getType(), 0), x);
  return arith::NegFOp::create(b, l, x);
}
Value unaryScalar(ExpOp, OpBuilder &b, Location l, Value x) {
  return math::ExpOp::create(b, l, x);
}
Value unaryScalar(LogOp, OpBuilder &b, Location l, Value x) {
  return math::LogOp::create(b, l, x);
}
Value unaryScalar(TanhOp, OpBuilder &b, Location l, Value x) {
  return math::TanhOp::create(b, l, x);
}
Value unaryScalar(ErfOp, OpBuilder &b, Location l, Value x) {
  return math::ErfOp::create(b, l, x);
}
Value unaryScalar(SqrtOp, OpBuilder &b, Location l, Value x) {
  return math::SqrtOp::create(b, l, x);
}
Value unaryScalar(AbsOp, OpBuilder &b, Location l, Value x) {
  if (isInt(x)) // |INT_MIN| = INT_MIN (llvm.abs without poison)
    return math::AbsIOp::create(b, l, x);
  return math::AbsFOp::create(b, l, x);
}
Value unaryScalar(FloorOp, OpBuilder &b, Location l, Value x) {
  return math::FloorOp::create(b, l, x);
}
Value unaryScalar(CeilOp, OpBuilder &b, Location l, Value x) {
  return math::CeilOp::create(b, l, x);
}
Value unaryScalar(RoundOp, OpBuilder &b, Location l, Value x) {
  return math::RoundEvenOp::create(b, l, x);
}
Value unaryScalar(SinOp, OpBuilder &b, Location l, Value x) {
  return math::SinOp::create(b, l, x);
}
Value unaryScalar(CosOp, OpBuilder &b, Location l, Value x) {
  return math::CosOp::create(b, l, x);
}
Value unaryScalar(RsqrtOp, OpBuilder &b, Location l, Value x) {
  return math::RsqrtOp::create(b, l, x);
}
Value unaryScalar(ReciprocalOp, OpBuilder &b, Location l, Value x) {
  return arith::DivFOp::create(b, l, f32Const(b, l, 1.0), x);
}
Value unaryScalar(SigmoidOp, OpBuilder &b, Location l, Value x) {
  return sigmoidScalar(b, l, x);
}
Value unaryScalar(ReluOp, OpBuilder &b, Location l, Value x) {
  return arith::MaximumFOp::create(b, l, x, f32Const(b, l, 0.0));
}
Value unaryScalar(SiluOp, OpBuilder &b, Location l, Value x) {
  return arith::MulFOp::create(b, l, x, sigmoidScalar(b, l, x));
}
// gelu(x)      = 0.5 x (1 + erf(x / sqrt(2)))
// gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
Value unaryScalar(GeluOp op, OpBuilder &b, Location l, Value x) {
  Value half = f32Const(b, l, 0.5), one = f32Const(b, l, 1.0);
  Value inner;
  if (op.getApproximate() == GeluApproximation::Tanh) {
    Value x3 =
        arith::MulFOp::create(b, l, x, arith::MulFOp::create(b, l, x, x));
    Value poly = arith::AddFOp::create(
        b, l, x, arith::MulFOp::create(b, l, f32Const(b, l, 0.044715), x3));
    inner = math::TanhOp::create(
        b, l,
        arith::MulFOp::create(b, l, f32Const(b, l, std::sqrt(2.0 / M_PI)),
                              poly));
  } else {
    inner = math::ErfOp::create(
        b, l, arith::MulFOp::create(b, l, x, f32Const(b, l, M_SQRT1_2)));
  }
  Value hx = arith::MulFOp::create(b, l, half, x);
  return arith::MulFOp::create(b, l, hx,
                               arith::AddFOp::create(b, l, one, inner));
}

// llm.<unary> %x -> linalg.generic (parallel, identity maps) { f(x) in f32 }
template <typename OpTy>
struct UnaryLowering : LLMLowering<OpTy> {
  using LLMLowering<OpTy>::LLMLowering;
  using OpAdaptor = typename LLMLowering<OpTy>::OpAdaptor;
  LogicalResult lower(OpTy op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Value r =
        buildElementwise(rewriter, op.getLoc(), type.getShape(),
                         type.getElementType(), ValueRange{adaptor.getInput()},
                         [&](OpBuilder &b, Location loc, ValueRange a) {
                           return unaryScalar(op, b, loc, a[0]);
                         });
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.cast %x : A -> B -> linalg.generic (parallel) { convertScalar A -> B }
struct CastLowering : LLMLowering<CastOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(CastOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Type to = type.getElementType();
    if (adaptor.getInput().getType() == type) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value r = buildElementwise(
        rewriter, op.getLoc(), type.getShape(), to,
        ValueRange{adaptor.getInput()},
        [&](OpBuilder &b, Location loc, ValueRange a) {
          return convertScalar(b, loc, a[0], to);
        },
        /*promote=*/false);
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// llm.matmul A[..., M, K], W[K, N] -> collapse A to [(...)M, K];
//   linalg.matmul (f32 accumulator, transposes as indexing maps); expand back.
// llm.matmul A[b..., M, K], B[b..., K, N] -> broadcast batch dims (only when
//   they differ), collapse them to one; linalg.batch_matmul; expand back.
struct MatmulLowering : LLMLowering<MatmulOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(MatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    RankedTensorType type = resultType(op);
    Type et = type.getElementType();
    bool ta = op.getTransposeA(), tb = op.getTransposeB();
    int64_t lr = lt.getRank(), rr = rt.getRank(), outRank = type.getRank();
    int64_t m = type.getDimSize(outRank - 2), n = type.getDimSize(outRank - 1);

    // Rows that are the sequence times static rows beside them (a batch):
    // B * length rows once collapsed, which is not the sequence length
    // that createEmptyTensor gives a `?`.
    bool batchedRows = !type.hasStaticShape() &&
                       getStaticProduct(type.getShape().drop_back()) != 1;
    // The f32 result `acc` of collapsed rows as the result: expanded and
    // converted to the result's element type; batched rows are expanded
    // first, since the conversion's result is sized by the sequence length.
    auto finish = [&](Value acc) {
      if (batchedRows) {
        Value r =
            reshapeTo(rewriter, loc, acc, type.clone(rewriter.getF32Type()));
        rewriter.replaceOp(op, convertTensorFromF32(rewriter, loc, r, et));
        return success();
      }
      Value r = convertTensorFromF32(rewriter, loc, acc, et);
      rewriter.replaceOp(op, reshapeTo(rewriter, loc, r, type));
      return success();
    };

    // A constant weight in a sparse format (llm-sparsify-weights): llmc's
    // loops over its packed nonzeros.
    std::string whyDense;
    if (FailureOr<Value> sparse =
            llm::detail::lowerSparseMatmul(rewriter, op, lhs, whyDense);
        succeeded(sparse))
      return finish(*sparse);
    llm::detail::warnSparseFallback(op, whyDense);

    // A constant weight on bf16 dot products or AMX tiles (dot_product =
    // "bf16" | "amx_bf16").
    if (FailureOr<Value> dot =
            llm::detail::lowerBF16DotMatmul(rewriter, op, lhs);
        succeeded(dot)) {
      rewriter.replaceOp(op, convertTensorFromF32(rewriter, loc, *dot, et));
      return success();
    }

    AffineExpr d0, d1, d2, d3;
    Value acc;
    if (rr == 2 && (lr == 2 || !ta)) {
      Value lhs2 = lhs;
      int64_t rows = allStatic(type.getShape().drop_back())
                         ? product(type.getShape().drop_back())
                         : ShapedType::kDynamic;
      if (lr > 2) {
        SmallVector<ReassociationIndices> re{
            llvm::to_vector(llvm::seq<int64_t>(0, lr - 1)), {lr - 1}};
        lhs2 = tensor::CollapseShapeOp::create(rewriter, loc, lhs, re);
      }
      // Dynamic rows (the sequence): a matmul with a dynamic M, which
      // llm-tile-and-vectorize tiles like a static one sized at the bound
      // (full register tiles vectorized, the partial last one peeled).
      // Batched rows: M read from the collapsed (untransposed) lhs.
      Value init = createZerosF32(
          rewriter, loc, {rows, n},
          batchedRows
              ? tensor::DimOp::create(rewriter, loc, lhs2, 0).getResult()
              : Value());
      auto mm =
          linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                   ValueRange{lhs2, rhs}, ValueRange{init});
      if (ta || tb) {
        bindDims(ctx, d0, d1, d2); // (m, n, k)
        AffineMap lm = AffineMap::get(3, 0, {ta ? d2 : d0, ta ? d0 : d2}, ctx);
        AffineMap rm = AffineMap::get(3, 0, {tb ? d1 : d2, tb ? d2 : d1}, ctx);
        AffineMap om = AffineMap::get(3, 0, {d0, d1}, ctx);
        mm.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr({lm, rm, om}));
      }
      acc = mm.getResult(0);
    } else {
      ArrayRef<int64_t> batch = type.getShape().drop_back(2);
      int64_t nb = batch.size();
      // A 2-D operand that is not transposed is read through a map without
      // the batch dim (no copy; batch_matmul accepts no other broadcast
      // map); other operands are broadcast to the full batch shape when
      // theirs differs, then their batch dims are collapsed into one.
      bool lhsBcast = lr == 2 && !ta, rhsBcast = rr == 2 && !tb;
      auto prepare = [&](Value v, RankedTensorType t, bool bcast) -> Value {
        if (bcast)
          return v;
        SmallVector<int64_t> full(batch);
        llvm::append_range(full, t.getShape().take_back(2));
        v = broadcastTo(rewriter, loc, v, full);
        if (nb == 1)
          return v;
        SmallVector<ReassociationIndices> re{
            llvm::to_vector(llvm::seq<int64_t>(0, nb)), {nb}, {nb + 1}};
        return tensor::CollapseShapeOp::create(rewriter, loc, v, re);
      };
      Value l3 = prepare(lhs, lt, lhsBcast), r3 = prepare(rhs, rt, rhsBcast);
      Value init = createZerosF32(rewriter, loc, {product(batch), m, n});
      auto bmm = linalg::BatchMatmulOp::create(
          rewriter, loc, TypeRange{init.getType()}, ValueRange{l3, r3},
          ValueRange{init});
      if (ta || tb || lhsBcast || rhsBcast) {
        bindDims(ctx, d0, d1, d2, d3); // (b, m, n, k)
        SmallVector<AffineExpr> le{ta ? d3 : d1, ta ? d1 : d3};
        SmallVector<AffineExpr> re{tb ? d2 : d3, tb ? d3 : d2};
        if (!lhsBcast)
          le.insert(le.begin(), d0);
        if (!rhsBcast)
          re.insert(re.begin(), d0);
        AffineMap om = AffineMap::get(4, 0, {d0, d1, d2}, ctx);
        bmm.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
            {AffineMap::get(4, 0, le, ctx), AffineMap::get(4, 0, re, ctx),
             om}));
      }
      acc = bmm.getResult(0);
    }
    return finish(acc);
  }
};

//===----------------------------------------------------------------------===//
// Embedding and data movement
//===----------------------------------------------------------------------===//

// llm.embedding %table[V, D], %ids -> the run-time range check of %ids
// (emitIndexRangeCheck), then linalg.generic over ids.shape + [D]
//   { id < 0 ? id + V : id, clamped to [0, V-1];
//     tensor.extract %table[id, linalg.index(last)] }
struct EmbeddingLowering : LLMLowering<EmbeddingOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(EmbeddingOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value table = adaptor.getTable(), ids = adaptor.getIds();
    RankedTensorType type = resultType(op);
    int64_t rank = type.getRank();
    int64_t vocab = cast<RankedTensorType>(table.getType()).getDimSize(0);
    SmallVector<AffineExpr> idExprs;
    for (int64_t i = 0; i < rank - 1; ++i)
      idExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    emitIndexRangeCheck(rewriter, op, ids, vocab);
    Value init = createEmptyTensor(rewriter, loc, type.getShape(),
                                         type.getElementType());
    Value r = buildGeneric(
        rewriter, loc, type.getShape(), type.getElementType(), ValueRange{ids},
        {AffineMap::get(rank, 0, idExprs, ctx)}, iters,
        rewriter.getMultiDimIdentityMap(rank), init,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value id = a[0];
          Type it = id.getType();
          auto c = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getIntegerAttr(it, v));
          };
          Value isNeg =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, id, c(0));
          id = arith::SelectOp::create(
              b, l, isNeg, arith::AddIOp::create(b, l, id, c(vocab)), id);
          id = arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, id, c(vocab - 1)), c(0));
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
        },
        /*promote=*/false);
    rewriter.replaceOp(op, r);
    return success();
  }
};

// llm.transpose %x {permutation} -> linalg.transpose
struct TransposeLowering : LLMLowering<TransposeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(TransposeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    Value init = createEmptyTensor(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    auto t = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

// llm.reshape %x -> tensor.collapse_shape | tensor.expand_shape
//   | collapse to 1-D + expand
struct ReshapeLowering : LLMLowering<ReshapeOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(ReshapeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), adaptor.getInput(),
                                     resultType(op)));
    return success();
  }
};

// llm.concat %a, %b {axis} -> tensor.concat dim(axis) (inputs empty along
// the axis dropped; an empty result -> tensor.empty)
struct ConcatLowering : LLMLowering<ConcatOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(ConcatOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    int64_t axis =
        op.getAxis() < 0 ? op.getAxis() + type.getRank() : op.getAxis();
    // Inputs of size 0 along the axis contribute nothing (tensor.concat would
    // address them at an out-of-bounds offset).
    SmallVector<Value> inputs;
    for (Value v : adaptor.getInputs())
      if (cast<RankedTensorType>(v.getType()).getDimSize(axis) != 0)
        inputs.push_back(v);
    if (inputs.empty() || (type.hasStaticShape() && type.getNumElements() == 0)) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    if (inputs.size() == 1) {
      rewriter.replaceOp(op, inputs.front());
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, type, uint64_t(axis),
                                                  inputs);
    return success();
  }
};

// llm.slice %x {starts, limits, strides} -> tensor.extract_slice (an empty
// result -> tensor.empty)
struct SliceLowering : LLMLowering<SliceOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(SliceOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultType(op);
    // An empty slice may start at the end of a dimension, which
    // tensor.extract_slice rejects as out of bounds: it has no data anyway.
    if (type.hasStaticShape() && type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    // A dynamic (sequence) dimension is kept whole (checkDynamicShapes).
    SmallVector<OpFoldResult> sizes;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      sizes.push_back(isStaticDim(size)
                          ? OpFoldResult(rewriter.getIndexAttr(size))
                          : OpFoldResult(tensor::DimOp::create(
                                rewriter, op.getLoc(), adaptor.getInput(),
                                int64_t(d))
                                             .getResult()));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getInput(),
        getAsIndexOpFoldResult(rewriter.getContext(), op.getStarts()),
        sizes,
        getAsIndexOpFoldResult(rewriter.getContext(), op.getStrides()));
    return success();
  }
};

// llm.broadcast_to %x -> linalg.generic (parallel, broadcasting input map)
struct BroadcastToLowering : LLMLowering<BroadcastToOp> {
  using LLMLowering::LLMLowering;
  LogicalResult lower(BroadcastToOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       broadcastTo(rewriter, op.getLoc(), adaptor.getInput(),
                                   resultType(op).getShape()));
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Pattern population and pass
//===----------------------------------------------------------------------===//

SmallVector<ReassociationIndices>
mlir::llm::groupsForInsertedDims(ArrayRef<bool> isUnit) {
  // Each run of unit dims joins the next kept dim; trailing ones the last.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices current;
  for (auto [i, u] : llvm::enumerate(isUnit)) {
    current.push_back(i);
    if (!u) {
      groups.push_back(current);
      current.clear();
    }
  }
  if (!current.empty() && !groups.empty())
    llvm::append_range(groups.back(), current);
  return groups;
}

void mlir::llm::populateLLMToLinalgConversionPatterns(
    RewritePatternSet &patterns, const LLMToLinalgOptions &options) {
  MLIRContext *ctx = patterns.getContext();
  // A dynamic sequence length always takes the materialized lowering (the
  // flash lowering's tiles are static).
  if (options.flashAttention)
    populateFlashAttentionLoweringPatterns(patterns, options.attentionQueryTile,
                                           options.attentionKeyTile);
  populateAttentionToLinalgPatterns(patterns,
                                    /*dynamicOnly=*/options.flashAttention);
  populateNormalizationToLinalgPatterns(patterns);
  patterns.add<ConstantLowering, CastLowering, MatmulLowering,
               EmbeddingLowering, TransposeLowering, ReshapeLowering,
               ConcatLowering, SliceLowering, BroadcastToLowering>(ctx);
  patterns
      .add<BinaryLowering<AddOp>, BinaryLowering<SubOp>, BinaryLowering<MulOp>,
           BinaryLowering<DivOp>, BinaryLowering<RemOp>,
           BinaryLowering<PowOp>, BinaryLowering<MaxOp>,
           BinaryLowering<MinOp>>(ctx);
  patterns
      .add<UnaryLowering<NegOp>, UnaryLowering<ExpOp>, UnaryLowering<LogOp>,
           UnaryLowering<TanhOp>, UnaryLowering<ErfOp>, UnaryLowering<SqrtOp>,
           UnaryLowering<RsqrtOp>, UnaryLowering<ReciprocalOp>,
           UnaryLowering<SigmoidOp>, UnaryLowering<ReluOp>,
           UnaryLowering<SiluOp>, UnaryLowering<GeluOp>, UnaryLowering<AbsOp>,
           UnaryLowering<FloorOp>, UnaryLowering<CeilOp>,
           UnaryLowering<RoundOp>, UnaryLowering<SinOp>, UnaryLowering<CosOp>>(
          ctx);
  populateLLMToLinalgDataPatterns(patterns);
}

namespace {
/// Largest tensor llm-to-linalg lowers, in bytes: 2^47 (128 TiB), the user
/// address space of x86-64 and AArch64 with 48-bit virtual addresses. Larger
/// tensors can never be allocated, and a size that overflows int64 would wrap
/// to a small allocation (the lowered code then wrote out of bounds, and
/// huge constants crashed the translation to LLVM IR).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 47;
/// Largest `llm.constant`, in bytes: 2^31 (2 GiB). Constants become global
/// data of the compiled code, which the small code model addresses with
/// 32-bit offsets; LLVM materializes even a splat element by element (a
/// 24 TiB splat aborted with "LLVM ERROR: out of memory").
constexpr int64_t kMaxConstantBytes = int64_t(1) << 31;

/// Emits an error on `op` and returns failure when one of its (static)
/// operand or result tensor types is larger than kMaxTensorBytes (an
/// `llm.constant` result: kMaxConstantBytes).
LogicalResult checkTensorSizes(Operation *op) {
  auto check = [&](Type t, StringRef what, unsigned index) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !type.hasStaticShape())
      return success();
    Type et = type.getElementType();
    int64_t bytes =
        et.isIntOrFloat()
            ? std::max<int64_t>(1, llvm::divideCeil(et.getIntOrFloatBitWidth(),
                                                    8))
            : 8;
    bool overflow = false;
    for (int64_t d : type.getShape())
      overflow |= llvm::MulOverflow(bytes, d, bytes);
    bool isConstant = isa<ConstantOp>(op);
    int64_t limit = isConstant ? kMaxConstantBytes : kMaxTensorBytes;
    if (!overflow && bytes <= limit)
      return success();
    InFlightDiagnostic diag = op->emitOpError()
                              << what << " #" << index << " type " << type
                              << " is too large: ";
    if (overflow)
      diag << "its size in bytes overflows int64";
    else
      diag << bytes << " bytes";
    if (isConstant)
      diag << " (llm-to-linalg lowers constants of at most 2^31 bytes, 2 "
              "GiB)";
    else
      diag << " (llm-to-linalg lowers tensors of at most 2^47 bytes, 128 "
              "TiB)";
    return failure();
  };
  // Operands made by llm ops are checked (once) as those ops' results.
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (!isa_and_nonnull<LLMDialect>(
            v.getDefiningOp() ? v.getDefiningOp()->getDialect() : nullptr) &&
        failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  return success();
}

struct ConvertLLMToLinalgPass
    : impl::ConvertLLMToLinalgPassBase<ConvertLLMToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    // Report every dynamically shaped or oversized llm op up front, with
    // its location.
    bool dynamic = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa_and_nonnull<LLMDialect>(op->getDialect()))
        return;
      if (failed(checkDynamicShapes(op, /*emit=*/true))) {
        dynamic = true;
      } else if (failed(checkTensorSizes(op))) {
        dynamic = true;
      }
    });
    if (dynamic)
      return signalPassFailure();

    LLMToLinalgOptions options;
    if (attention != "flash" && attention != "materialized" &&
        attention != "keep") {
      emitError(getOperation()->getLoc())
          << "convert-llm-to-linalg: unknown attention lowering '" << attention
          << "' (expected flash, materialized or keep)";
      return signalPassFailure();
    }
    options.flashAttention = attention == "flash";
    options.vectorKernels = vectorKernels;
    // The target's choices come from each op's `llm.lowering_config`
    // (LoweringConfig.h, llm-select-lowering-config); these options are the
    // neutral defaults of the ops without one.
    SmallVector<int64_t> tile{options.attentionQueryTile,
                              options.attentionKeyTile};
    if (!attentionTile.empty())
      tile.assign(attentionTile.begin(), attentionTile.end());
    if (tile.size() != 2 || tile[0] <= 0 || tile[1] <= 0) {
      emitError(getOperation()->getLoc())
          << "convert-llm-to-linalg: attention-tile must be two positive "
             "sizes [query rows, key/value rows]";
      return signalPassFailure();
    }
    options.attentionQueryTile = tile[0];
    options.attentionKeyTile = tile[1];
    if (streamedWeightMinBytes < 0) {
      emitError(getOperation()->getLoc())
          << "convert-llm-to-linalg: streamed-weight-min-bytes must be a "
             "size in bytes, got "
          << static_cast<int64_t>(streamedWeightMinBytes);
      return signalPassFailure();
    }
    options.streamedWeightMinBytes = streamedWeightMinBytes;

    ConversionTarget target(getContext());
    target.addIllegalDialect<LLMDialect>();
    // Fusion groups stay; their ops are lowered in place (see llm-fuse).
    target.addLegalOp<FusionGroupOp, YieldOp>();
    if (attention == "keep")
      target.addLegalOp<AttentionOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateLLMToLinalgConversionPatterns(patterns, options);
    populateQuantToLinalgConversionPatterns(patterns, options);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    if (failed(finalizeIndexChecks(getOperation())))
      return signalPassFailure();
    eraseQuantizedTypes(getOperation());
  }
};
} // namespace
