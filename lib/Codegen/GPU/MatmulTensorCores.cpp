//===- MatmulTensorCores.cpp - Matmul tiles on tensor cores ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The tiles strategy of llm-map-gpu-kernels on tensor cores, for f16 and
// bf16 matmuls accumulating in f32 (`c + ext(a) * ext(b)`):
//
//   block: a 64 x 64 tile of C, 4 warps in 2 x 2, warp (wm, wn) a 32 x 32
//          sub-tile = 2 x 4 MMAs of m16n8k16, 32 f32 accumulators per lane
//   for each K tile k0 (32):
//     barrier; the block copies A[m0:+64, k0:+32] to As[64][40] (m-major)
//     and B's [k0:+32, n0:+64] to Bs[64][40] (n-major: B transposed), the
//     global loads coalesced along each operand's innermost dim; barrier
//     for ks in {0, 16}: each lane loads its fragments as pairs of
//     consecutive k (one 32-bit load each) and the warp issues 8 MMAs
//
// The fragment layout is PTX's for mma.m16n8k16 (PTX ISA, "Matrix Fragments
// for mma.m16n8k16 with floating point type"): with g = lane / 4 and
// t = lane % 4, A's registers hold (g, 2t..2t+1), (g+8, 2t..), (g, 8+2t..),
// (g+8, 8+2t..); B's hold k = 2t..2t+1 and 8+2t.. of column g; C's hold
// (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
//
// C is read from and written back to its buffer at those positions, so the
// stages before the matmul (its fill or bias) and after it (the epilogue)
// run at 32 points per thread with a barrier between them and the MMAs.
// A constant B that is exact 2:4 along K (matchMatmulSparseTensorCores) runs
// on the sparse tensor cores instead, as C^T = B^T A^T with B^T the sparse
// operand of mma.sp.sync.m16n8k32 (PTX ISA, "Matrix multiply-accumulate
// operation using mma.sp instruction with sparse matrix A"):
//
//   B packed at compile time: per output channel n, the 2 kept elements of
//     each group of 4 along K (explicit zeros where a group has fewer), in
//     order, as `values[N][K / 2]`, and their 2-bit positions in the group
//     as metadata words `meta[N / 16][K / 32][g = 0..7][half = 0..1]`: the
//     16 bits of row g, K half `half` (4 groups, each idx0 | idx1 << 2,
//     group q at bit 4q), and above them those of row g + 8;
//   block and warps as above (the warp's 32 x 32 of C as 2 x 4 MMAs: 16
//     channels by 8 rows of A each); per K tile of 32: A's tile staged as
//     above, B's stored values [64 n][16 + 8]; per MMA, the A operand is
//     the channels' stored values (the dense m16n8k16 A layout over
//     [16][16]), the B operand A's rows (k = 2t + 8j, j = 0..3, of row g),
//     the metadata the word (g, t % 2) of the channels' block (selector 0:
//     threads 0 and 1 of each group of 4 supply it); accumulator r of the
//     lane is C(row 2t + (r & 1), channel g + 8 (r >> 1)).
//
// The CPU emulator (llm-emulate-gpu-kernels) runs the MMAs from the same
// fragment layouts; ptxas and a GPU (scripts/gpu-check.sh) check them too.
//
//===----------------------------------------------------------------------===//

#include "MatmulEmitter.h"

#include "llm/Dialect/LLM/IR/SparseWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::llm;

/// Shape of one tensor-core tile: C 64 x 64 per block, K 32 per step.
static constexpr int64_t kTile = 64, kTileK = 32;
/// Row pad of the shared-memory tiles (elements): rows of 80 bytes spread
/// a warp's fragment loads over the banks.
static constexpr int64_t kPad = 8;

/// Whether `v` is an f16 / bf16 value of block argument `arg` extended to
/// f32: `arith.extf(arg)` of an f16 / bf16 argument, or
/// `arith.extf(arith.truncf(arg))` of an f32 one; `type` is the f16 / bf16
/// type, `ops` counts the payload ops involved.
static bool isExtOf(Value v, BlockArgument &arg, Type &type, int64_t &ops) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  if (!ext)
    return false;
  type = ext.getIn().getType();
  if (!type.isF16() && !type.isBF16())
    return false;
  ++ops;
  Value in = ext.getIn();
  if (auto trunc = in.getDefiningOp<arith::TruncFOp>()) {
    in = trunc.getIn();
    ++ops;
    // The staging rounds to nearest even, as truncf does by default.
    if (!in.getType().isF32() || trunc.getRoundingmode())
      return false;
  }
  arg = dyn_cast<BlockArgument>(in);
  return static_cast<bool>(arg);
}

bool mlir::llm::matchMatmulTensorCores(ArrayRef<linalg::GenericOp> stages,
                                       MatmulTiles &tiles) {
  linalg::GenericOp mm = stages[tiles.stage];
  int64_t numLoops = tiles.ranges.size();
  if (tiles.ranges[numLoops - 3] % kTile != 0 ||
      tiles.ranges[numLoops - 2] % kTile != 0 ||
      tiles.ranges[numLoops - 1] % kTileK != 0)
    return false;
  Block &body = mm.getRegion().front();
  BlockArgument out = body.getArguments().back();
  if (!out.getType().isF32() || mm.getNumDpsInputs() != 2)
    return false;
  // yield out + ext(a) * ext(b)
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value product = add.getLhs() == out ? add.getRhs() : add.getLhs();
  if (add.getLhs() != out && add.getRhs() != out)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  BlockArgument x, y;
  Type xType, yType;
  // add, mul, yield and each operand's conversions.
  int64_t ops = 3;
  if (!mul || !isExtOf(mul.getLhs(), x, xType, ops) ||
      !isExtOf(mul.getRhs(), y, yType, ops) || xType != yType || x == y ||
      static_cast<int64_t>(body.getOperations().size()) != ops)
    return false;
  // The operands are A and B (in either order).
  auto numberOf = [&](BlockArgument arg) {
    return mm.getDpsInputOperand(arg.getArgNumber())->getOperandNumber();
  };
  unsigned first = numberOf(x), second = numberOf(y);
  if (!((first == tiles.lhs && second == tiles.rhs) ||
        (first == tiles.rhs && second == tiles.lhs)))
    return false;
  tiles.tensorCores = true;
  tiles.mmaType = xType;
  tiles.tileM = tiles.tileN = kTile;
  tiles.tileK = kTileK;
  return true;
}

/// The metadata words of a 2:4 weight packed by packSparseWeight (N a
/// multiple of 16, K of 32), in the order of the file comment.
static std::vector<int32_t> packMmaMetadata(const PackedSparseWeight &p) {
  int64_t chunks = p.paddedK / 32;
  // The 16 bits of row n, K tile kt, half h: 4 groups of 2 indices.
  auto bits = [&](int64_t n, int64_t kt, int64_t h) {
    uint32_t word = 0;
    for (int64_t q = 0; q < 4; ++q)
      for (int64_t e = 0; e < 2; ++e) {
        size_t slot = size_t((n * chunks + kt) * 16 + (4 * h + q) * 2 + e);
        word |= uint32_t(p.laneIdx[slot] % 4) << (4 * q + 2 * e);
      }
    return word;
  };
  std::vector<int32_t> words;
  words.reserve(size_t(p.N / 16 * chunks * 16));
  for (int64_t nb = 0; nb < p.N / 16; ++nb)
    for (int64_t kt = 0; kt < chunks; ++kt)
      for (int64_t g = 0; g < 8; ++g)
        for (int64_t h = 0; h < 2; ++h)
          words.push_back(int32_t(bits(nb * 16 + g, kt, h) |
                                  bits(nb * 16 + g + 8, kt, h) << 16));
  return words;
}

/// The attribute naming what a packed global holds: `<weight>:<nk|kn>:
/// <MMA type>:<values|metadata>` (a string, not a symbol reference, so that
/// the packed global does not keep the dense weight alive).
static constexpr llvm::StringLiteral kPackedFromAttr = "llm.packed_from";

/// The global of `module` marked `key` and of `type`, if any.
static FlatSymbolRefAttr lookupPackedGlobal(ModuleOp module, StringRef key,
                                            MemRefType type) {
  for (auto global : module.getOps<memref::GlobalOp>())
    if (auto marker = global->getAttrOfType<StringAttr>(kPackedFromAttr);
        marker && marker.getValue() == key && global.getType() == type)
      return FlatSymbolRefAttr::get(global.getSymNameAttr());
  return nullptr;
}

/// A new private constant global holding `value`, marked `key`, named
/// `<weight>_2of4_<kind>` (uniqued), inserted before `weight`.
static FlatSymbolRefAttr createPackedGlobal(ModuleOp module,
                                            memref::GlobalOp weight,
                                            StringRef kind, StringRef key,
                                            DenseElementsAttr value) {
  OpBuilder b(module.getContext());
  auto tensorType = cast<RankedTensorType>(value.getType());
  auto global = memref::GlobalOp::create(
      b, weight.getLoc(), (weight.getSymName() + "_2of4_" + kind).str(),
      b.getStringAttr("private"),
      MemRefType::get(tensorType.getShape(), tensorType.getElementType()),
      value, /*constant=*/true, /*alignment=*/b.getI64IntegerAttr(16));
  global->setAttr(kPackedFromAttr, b.getStringAttr(key));
  SymbolTable(module).insert(global, Block::iterator(weight));
  return FlatSymbolRefAttr::get(global.getSymNameAttr());
}

bool mlir::llm::matchMatmulSparseTensorCores(ArrayRef<linalg::GenericOp> stages,
                                             MatmulTiles &tiles,
                                             ModuleOp module) {
  if (!tiles.tensorCores)
    return false;
  linalg::GenericOp mm = stages[tiles.stage];
  OpOperand &rhs = mm->getOpOperand(tiles.rhs);
  auto get = rhs.get().getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return false;
  auto weight = module.lookupSymbol<memref::GlobalOp>(get.getNameAttr());
  // A constant with a value (not external, not `uninitialized`).
  if (!weight || !weight.getConstant() || weight.isExternal() ||
      weight.isUninitialized())
    return false;
  auto init = dyn_cast_or_null<ElementsAttr>(*weight.getInitialValue());
  if (!init)
    return false;
  // B indexed by (n, k) or (k, n) only.
  int64_t numLoops = tiles.ranges.size();
  AffineMap map = mm.getMatchingIndexingMap(&rhs);
  if (map.getNumResults() != 2)
    return false;
  auto r0 = dyn_cast<AffineDimExpr>(map.getResult(0));
  auto r1 = dyn_cast<AffineDimExpr>(map.getResult(1));
  if (!r0 || !r1)
    return false;
  unsigned nDim = numLoops - 2, kDim = numLoops - 1;
  bool nk = r0.getPosition() == nDim && r1.getPosition() == kDim;
  if (!nk && !(r0.getPosition() == kDim && r1.getPosition() == nDim))
    return false;
  int64_t N = tiles.ranges[nDim], K = tiles.ranges[kDim];
  // Packed before (another matmul reading the weight the same way).
  std::string typeName;
  llvm::raw_string_ostream(typeName) << tiles.mmaType;
  std::string key =
      (weight.getSymName() + ":" + (nk ? "nk" : "kn") + ":" + typeName).str();
  auto valuesType = RankedTensorType::get({N, K / 2}, tiles.mmaType);
  auto metaType = RankedTensorType::get(
      {N / 16 * (K / 32) * 16}, IntegerType::get(module.getContext(), 32));
  auto asMemRef = [](RankedTensorType t) {
    return MemRefType::get(t.getShape(), t.getElementType());
  };
  FlatSymbolRefAttr valuesGlobal =
      lookupPackedGlobal(module, key + ":values", asMemRef(valuesType));
  FlatSymbolRefAttr metaGlobal =
      lookupPackedGlobal(module, key + ":metadata", asMemRef(metaType));
  if (valuesGlobal && metaGlobal) {
    tiles.sparseValues = valuesGlobal;
    tiles.sparseMetadata = metaGlobal;
    return true;
  }
  std::optional<std::vector<float>> values = readFloatValues(init);
  if (!values || int64_t(values->size()) != N * K)
    return false;
  std::string why;
  FailureOr<PackedSparseWeight> packed = packSparseWeight(
      *values, nk, N, K, SparseFormat{SparseFormat::Kind::TwoFour},
      /*lanes=*/16, why);
  if (failed(packed))
    return false;
  std::vector<int32_t> words = packMmaMetadata(*packed);
  tiles.sparseValues =
      createPackedGlobal(module, weight, "values", key + ":values",
                         getFloatElementsAttr(valuesType, packed->values));
  tiles.sparseMetadata = createPackedGlobal(
      module, weight, "metadata", key + ":metadata",
      DenseElementsAttr::get(metaType, ArrayRef<int32_t>(words)));
  return true;
}

namespace {

/// The emission of one tensor-core matmul kernel (see the file comment).
class TensorCoreEmitter : MatmulEmitterBase {
public:
  using MatmulEmitterBase::MatmulEmitterBase;

  LogicalResult emit(ArrayRef<Operation *> ops,
                     ArrayRef<linalg::GenericOp> kernelStages);

private:
  /// Copies the K tile at `k0` of input `operand` (A: `isA`) into `buffer`
  /// ([64 rows of m or n][k]).
  void copyTile(unsigned operand, bool isA, Value buffer, Value k0);
  /// Copies the stored values of a 2:4 B's K tile at `k0` (`values`:
  /// [N][K / 2]) into `buffer` ([64 rows of n][16]).
  void copySparseTile(Value values, Value buffer, Value k0);
  /// For each of the warp's 2 x 4 MMAs (mt, nt): `mma(resultType, ptxType,
  /// mt, nt, accumulators)` builds it from its 4 accumulators in `current`,
  /// which its results then replace.
  void forEachMma(SmallVectorImpl<Value> &current,
                  llvm::function_ref<Value(Type, NVVM::MMATypes, int64_t,
                                           int64_t, ValueRange)>
                      mma);
  /// The K loop's body on mma.sync: updates `current` (the accumulators).
  void emitMmas(Value tileA, Value tileB, SmallVectorImpl<Value> &current);
  /// The same on mma.sp (`meta`: the metadata words, `k0` the K tile).
  void emitSparseMmas(Value tileA, Value tileB, Value meta, Value k0,
                      SmallVectorImpl<Value> &current);
  /// The 32-bit register holding elements (row, col) and (row, col + 1) of
  /// `buffer`: vector<2xf16> for f16, an i32 for bf16 (the NVVM operand
  /// types of mma.sync).
  Value loadPair(Value buffer, Value row, Value col);
  /// `body(ivs)` at each of the thread's 32 points of the tile.
  void forEachPoint(llvm::function_ref<void(ArrayRef<Value>)> body);
  /// The thread's 32 accumulator positions (row, col) in C, fragment by
  /// fragment (mt, nt, register).
  SmallVector<std::pair<Value, Value>> accumulatorPositions();

  Value lane, g, t, warpRow, warpCol;
  Type elementType;
  /// 2:4 B on mma.sp (tiles.sparseValues).
  bool sparse = false;
};

} // namespace

void TensorCoreEmitter::copyTile(unsigned operand, bool isA, Value buffer,
                                 Value k0) {
  OpOperand &input = mm->getOpOperand(operand);
  AffineMap map = mm.getMatchingIndexingMap(&input);
  int64_t numLoops = tiles.ranges.size();
  int64_t dim = isA ? numLoops - 3 : numLoops - 2;
  auto last = cast<AffineDimExpr>(map.getResults().back());
  bool kInnermost = last.getPosition() == numLoops - 1;
  Value base = isA ? row0 : col0;
  int64_t threads = tiles.getBlockSize();
  for (int64_t q = 0; q < kTile * kTileK / threads; ++q) {
    Value idx = add(tid, q * threads);
    Value inDim = kInnermost ? div(idx, kTileK) : rem(idx, kTile);
    Value inK = kInnermost ? rem(idx, kTileK) : div(idx, kTile);
    SmallVector<Value> ivs(numLoops);
    for (auto [d, v] : llvm::enumerate(batch))
      ivs[d] = v;
    ivs[dim] = add(base, inDim);
    ivs[numLoops - 1] = add(k0, inK);
    Value value = memref::LoadOp::create(b, loc, stages.operand(input.get()),
                                         stages.indices(map, ivs));
    // An f32 input (a demoted activation) is rounded as it is staged.
    if (value.getType() != elementType)
      value = arith::TruncFOp::create(b, loc, elementType, value);
    memref::StoreOp::create(b, loc, value, buffer, ValueRange{inDim, inK});
  }
}

void TensorCoreEmitter::copySparseTile(Value values, Value buffer, Value k0) {
  constexpr int64_t stored = kTileK / 2;
  int64_t threads = tiles.getBlockSize();
  Value c0 = div(k0, 2);
  for (int64_t q = 0; q < kTile * stored / threads; ++q) {
    Value idx = add(tid, q * threads);
    Value n = div(idx, stored), c = rem(idx, stored);
    Value value = memref::LoadOp::create(b, loc, values,
                                         ValueRange{add(col0, n), add(c0, c)});
    memref::StoreOp::create(b, loc, value, buffer, ValueRange{n, c});
  }
}

Value TensorCoreEmitter::loadPair(Value buffer, Value row, Value col) {
  auto pairType = VectorType::get({2}, elementType);
  Value pair =
      vector::LoadOp::create(b, loc, pairType, buffer, ValueRange{row, col},
                             /*nontemporal=*/false, llvm::Align(4));
  if (elementType.isF16())
    return pair;
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, word, 0);
}

void TensorCoreEmitter::forEachPoint(
    llvm::function_ref<void(ArrayRef<Value>)> body) {
  int64_t threads = tiles.getBlockSize();
  auto loop =
      scf::ForOp::create(b, loc, cst(0), cst(kTile * kTile / threads), cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value p = add(tid, mul(loop.getInductionVar(), threads));
  SmallVector<Value> ivs(batch);
  ivs.push_back(add(row0, div(p, kTile)));
  ivs.push_back(add(col0, rem(p, kTile)));
  body(ivs);
}

SmallVector<std::pair<Value, Value>> TensorCoreEmitter::accumulatorPositions() {
  SmallVector<std::pair<Value, Value>> positions;
  // Dense: MMA (mt, nt) covers 16 rows of C by 8 columns; sparse (C^T): 16
  // columns of C (channels) by 8 rows.
  for (int64_t mt = 0; mt < 2; ++mt)
    for (int64_t nt = 0; nt < 4; ++nt)
      for (int64_t r = 0; r < 4; ++r) {
        Value across = add(g, mt * 16 + (r >= 2 ? 8 : 0));
        Value along = add(mul(t, 2), nt * 8 + (r & 1));
        if (sparse)
          positions.push_back({add(add(row0, warpRow), along),
                               add(add(col0, warpCol), across)});
        else
          positions.push_back({add(add(row0, warpRow), across),
                               add(add(col0, warpCol), along)});
      }
  return positions;
}

void TensorCoreEmitter::forEachMma(
    SmallVectorImpl<Value> &current,
    llvm::function_ref<Value(Type, NVVM::MMATypes, int64_t, int64_t,
                             ValueRange)>
        mma) {
  Type f32 = b.getF32Type();
  Type resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  NVVM::MMATypes ptxType =
      elementType.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  for (int64_t mt = 0; mt < 2; ++mt)
    for (int64_t nt = 0; nt < 4; ++nt) {
      int64_t base = (mt * 4 + nt) * 4;
      SmallVector<Value> c(current.begin() + base, current.begin() + base + 4);
      Value d = mma(resultType, ptxType, mt, nt, c);
      for (int64_t r = 0; r < 4; ++r)
        current[base + r] = LLVM::ExtractValueOp::create(b, loc, d, r);
    }
}

void TensorCoreEmitter::emitMmas(Value tileA, Value tileB,
                                 SmallVectorImpl<Value> &current) {
  for (int64_t ks = 0; ks < kTileK; ks += 16) {
    Value kLo = add(mul(t, 2), ks), kHi = add(mul(t, 2), ks + 8);
    SmallVector<SmallVector<Value>> fragA, fragB;
    for (int64_t mt = 0; mt < 2; ++mt) {
      Value r = add(add(warpRow, g), mt * 16);
      Value r8 = add(r, 8);
      fragA.push_back({loadPair(tileA, r, kLo), loadPair(tileA, r8, kLo),
                       loadPair(tileA, r, kHi), loadPair(tileA, r8, kHi)});
    }
    for (int64_t nt = 0; nt < 4; ++nt) {
      Value c = add(add(warpCol, g), nt * 8);
      fragB.push_back({loadPair(tileB, c, kLo), loadPair(tileB, c, kHi)});
    }
    forEachMma(current,
               [&](Type resultType, NVVM::MMATypes ptxType, int64_t mt,
                   int64_t nt, ValueRange c) -> Value {
                 return NVVM::MmaOp::create(
                     b, loc, resultType, fragA[mt], fragB[nt], c,
                     ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
                     std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                     std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                    NVVM::MMALayout::col});
               });
  }
}

void TensorCoreEmitter::emitSparseMmas(Value tileA, Value tileB, Value meta,
                                       Value k0,
                                       SmallVectorImpl<Value> &current) {
  int64_t numLoops = tiles.ranges.size();
  int64_t kTiles = tiles.ranges[numLoops - 1] / kTileK;
  Value kt = div(k0, kTileK);
  Value selector = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  // The channels' stored values (16 channels each) and metadata words.
  SmallVector<SmallVector<Value>> fragA;
  SmallVector<Value> words;
  for (int64_t mt = 0; mt < 2; ++mt) {
    Value n = add(add(warpCol, g), mt * 16), n8 = add(n, 8);
    Value cLo = mul(t, 2), cHi = add(mul(t, 2), 8);
    fragA.push_back({loadPair(tileB, n, cLo), loadPair(tileB, n8, cLo),
                     loadPair(tileB, n, cHi), loadPair(tileB, n8, cHi)});
    Value block = div(add(add(col0, warpCol), mt * 16), 16);
    Value word = add(mul(add(mul(add(mul(block, kTiles), kt), 8), g), 2),
                     Value(rem(t, 2)));
    words.push_back(memref::LoadOp::create(b, loc, meta, word));
  }
  // A's rows, 32 k each.
  SmallVector<SmallVector<Value>> fragB;
  for (int64_t nt = 0; nt < 4; ++nt) {
    Value m = add(add(warpRow, g), nt * 8);
    SmallVector<Value> regs;
    for (int64_t j = 0; j < 4; ++j)
      regs.push_back(loadPair(tileA, m, add(mul(t, 2), 8 * j)));
    fragB.push_back(regs);
  }
  forEachMma(current,
             [&](Type resultType, NVVM::MMATypes ptxType, int64_t mt,
                 int64_t nt, ValueRange c) -> Value {
               return NVVM::MmaSpOp::create(
                   b, loc, resultType, fragA[mt], fragB[nt], c, words[mt],
                   selector, ArrayRef<int64_t>{16, 8, 32}, std::nullopt,
                   std::array<NVVM::MMATypes, 2>{ptxType, ptxType});
             });
}

LogicalResult
TensorCoreEmitter::emit(ArrayRef<Operation *> ops,
                        ArrayRef<linalg::GenericOp> kernelStages) {
  MLIRContext *ctx = b.getContext();
  int64_t numLoops = tiles.ranges.size();
  elementType = tiles.mmaType;
  sparse = static_cast<bool>(tiles.sparseValues);
  locateBlock();
  lane = rem(tid, 32);
  Value warp = div(tid, 32);
  g = div(lane, 4);
  t = rem(lane, 4);
  warpRow = mul(div(warp, 2), 32);
  warpCol = mul(rem(warp, 2), 32);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto tileType = MemRefType::get({kTile, kTileK + kPad}, elementType,
                                  MemRefLayoutAttrInterface(), workgroup);
  Value tileA = launch.addWorkgroupAttribution(tileType, loc);
  // A 2:4 B: its stored values, [64 n][16 + pad].
  Value tileB = launch.addWorkgroupAttribution(
      sparse ? MemRefType::get({kTile, kTileK / 2 + kPad}, elementType,
                               MemRefLayoutAttrInterface(), workgroup)
             : tileType,
      loc);
  // Its packed arrays, read by the kernel.
  Value values, meta;
  if (sparse) {
    auto module = launch->getParentOfType<ModuleOp>();
    auto getGlobal = [&](FlatSymbolRefAttr name) -> Value {
      auto global = module.lookupSymbol<memref::GlobalOp>(name);
      return memref::GetGlobalOp::create(b, loc, global.getType(),
                                         global.getSymName());
    };
    values = getGlobal(tiles.sparseValues);
    meta = getGlobal(tiles.sparseMetadata);
  }

  bool seenMatmul = false;
  for (Operation *op : ops) {
    auto stage = dyn_cast<linalg::GenericOp>(op);
    if (!stage || !llvm::is_contained(kernelStages, stage)) {
      b.clone(*op, mapping);
      continue;
    }
    if (stage != mm) {
      if (seenMatmul)
        gpu::BarrierOp::create(b, loc);
      forEachPoint([&](ArrayRef<Value> ivs) { stages.emitPoint(stage, ivs); });
      continue;
    }
    seenMatmul = true;
    // The prologue's writes of C are other threads' accumulators.
    gpu::BarrierOp::create(b, loc);
    Value out = stages.operand(mm.getDpsInitOperand(0)->get());
    SmallVector<std::pair<Value, Value>> positions = accumulatorPositions();
    auto outIndices = [&](std::pair<Value, Value> pos) {
      SmallVector<Value> ivs(batch);
      ivs.append({pos.first, pos.second});
      return ivs;
    };
    SmallVector<Value> accs;
    for (auto pos : positions)
      accs.push_back(memref::LoadOp::create(b, loc, out, outIndices(pos)));
    int64_t extentK = tiles.ranges[numLoops - 1];
    auto loop =
        scf::ForOp::create(b, loc, cst(0), cst(extentK), cst(kTileK), accs);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value k0 = loop.getInductionVar();
      gpu::BarrierOp::create(b, loc);
      copyTile(tiles.lhs, /*isA=*/true, tileA, k0);
      if (sparse)
        copySparseTile(values, tileB, k0);
      else
        copyTile(tiles.rhs, /*isA=*/false, tileB, k0);
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> current(loop.getRegionIterArgs());
      if (sparse)
        emitSparseMmas(tileA, tileB, meta, k0, current);
      else
        emitMmas(tileA, tileB, current);
      scf::YieldOp::create(b, loc, current);
    }
    for (auto [pos, value] : llvm::zip(positions, loop.getResults()))
      memref::StoreOp::create(b, loc, value, out, outIndices(pos));
  }
  return success(seenMatmul);
}

LogicalResult mlir::llm::emitMatmulTensorCores(
    OpBuilder &b, Location loc, gpu::LaunchOp launch, IRMapping &mapping,
    ArrayRef<Operation *> ops, ArrayRef<linalg::GenericOp> stages,
    const MatmulTiles &tiles) {
  TensorCoreEmitter emitter(b, loc, launch, mapping, stages[tiles.stage],
                            tiles);
  return emitter.emit(ops, stages);
}
