//===- TuningCache.cpp - Persistent matmul tuning cache -------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the tuning cache file, the tuning keys of linalg
// matmuls and the candidate tiles of a tuning search
// (llm/Codegen/TuningCache.h).
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/TuningCache.h"
#include "llm/Support/JSON.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::llm;

static constexpr llvm::StringLiteral kFormatName = "llmc-tuning-cache";
static constexpr int64_t kFormatVersion = 1;
/// The deepest nesting of arrays and objects a cache file may have.
static constexpr int64_t kMaxDepth = 64;

//===----------------------------------------------------------------------===//
// Keys
//===----------------------------------------------------------------------===//

std::string mlir::llm::getTuningTargetId(const CPUTargetDescription &target) {
  return target.cpu + "/" + target.name;
}

std::string MatmulTuningKey::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op << " b=" << batch << " m=" << m << " n=" << n << " k=" << k << " "
     << types << " rhs=" << (constRhs ? "const" : "value") << "-" << rhsLayout
     << " threads=" << threads;
  return text;
}

MatmulProblem MatmulTuningKey::getProblem(MLIRContext *ctx) const {
  MatmulProblem problem;
  problem.batch = batch;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.threads = threads;
  StringRef acc = StringRef(types).rsplit("->").second;
  problem.accType =
      parseType(acc, ctx, /*numRead=*/nullptr, /*isKnownNullTerminated=*/false);
  if (!problem.accType)
    problem.accType = Float32Type::get(ctx);
  return problem;
}

static std::string printType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

FailureOr<MatmulTuningKey> mlir::llm::getMatmulTuningKey(Operation *op,
                                                         int64_t threads) {
  bool isBatch = isa<linalg::BatchMatmulOp>(op);
  if (!isa<linalg::MatmulOp>(op) && !isBatch)
    return failure();
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (!linalgOp.hasPureTensorSemantics() || linalgOp.getNumDpsInputs() != 2 ||
      linalgOp.getNumDpsInits() != 1)
    return failure();
  for (Value v : op->getOperands())
    if (!cast<ShapedType>(v.getType()).hasStaticShape())
      return failure();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  unsigned b = isBatch ? 1 : 0;
  if (ranges.size() != b + 3)
    return failure();
  MatmulTuningKey key;
  key.op = isBatch ? "batch_matmul" : "matmul";
  key.batch = isBatch ? ranges[0] : 1;
  key.m = ranges[b];
  key.n = ranges[b + 1];
  key.k = ranges[b + 2];
  key.types =
      printType(getElementTypeOrSelf(linalgOp.getDpsInputs()[0].getType())) +
      "*" +
      printType(getElementTypeOrSelf(linalgOp.getDpsInputs()[1].getType())) +
      "->" +
      printType(getElementTypeOrSelf(linalgOp.getDpsInits()[0].getType()));
  key.constRhs =
      linalgOp.getDpsInputs()[1].getDefiningOp<arith::ConstantOp>() != nullptr;
  // B's layout from its indexing map: (.., n) -> kn, (.., k) last -> nk.
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineExpr> dims;
  for (unsigned i = 0; i < ranges.size(); ++i)
    dims.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineExpr> kn, nk;
  if (isBatch) {
    kn.push_back(dims[0]);
    nk.push_back(dims[0]);
  }
  kn.append({dims[b + 2], dims[b + 1]});
  nk.append({dims[b + 1], dims[b + 2]});
  AffineMap rhsMap = linalgOp.getIndexingMapsArray()[1];
  if (rhsMap == AffineMap::get(ranges.size(), 0, kn, ctx))
    key.rhsLayout = "kn";
  else if (rhsMap == AffineMap::get(ranges.size(), 0, nk, ctx))
    key.rhsLayout = "nk";
  else
    key.rhsLayout = "other";
  key.threads = threads;
  return key;
}

FailureOr<std::string> mlir::llm::getAttentionTuningKey(Operation *op,
                                                        int64_t threads) {
  auto attention = dyn_cast<AttentionOp>(op);
  if (!attention || attention.getKvLength())
    return failure();
  auto qt = cast<RankedTensorType>(attention.getQuery().getType());
  auto kt = cast<RankedTensorType>(attention.getKey().getType());
  auto vt = cast<RankedTensorType>(attention.getValue().getType());
  if (!qt.hasStaticShape() || !kt.hasStaticShape() || !vt.hasStaticShape() ||
      (attention.getMask() &&
       !cast<ShapedType>(attention.getMask().getType()).hasStaticShape()))
    return failure();
  bool bshd = attention.getLayout() == AttentionLayout::BSHD;
  unsigned headDim = bshd ? 2 : 1, seqDim = bshd ? 1 : 2;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "attention b=" << qt.getDimSize(0) << " hq=" << qt.getDimSize(headDim)
     << " hkv=" << kt.getDimSize(headDim) << " sq=" << qt.getDimSize(seqDim)
     << " skv=" << kt.getDimSize(seqDim) << " d=" << qt.getDimSize(3)
     << " dv=" << vt.getDimSize(3) << " " << printType(qt.getElementType())
     << " layout=" << (bshd ? "bshd" : "bhsd")
     << " causal=" << (attention.getCausal() ? 1 : 0)
     << " mask=" << (attention.getMask() ? 1 : 0) << " threads=" << threads;
  return text;
}

bool mlir::llm::isAttentionKernel(StringRef kernel) {
  return kernel.starts_with("attention ");
}

//===----------------------------------------------------------------------===//
// The file
//===----------------------------------------------------------------------===//

/// Reads `field` of `entry` as three integers >= `min`.
static llvm::Error readTile(const llvm::json::Object &entry, StringRef field,
                            int64_t min, std::array<int64_t, 3> &tile,
                            const llvm::Twine &where) {
  const llvm::json::Array *array = entry.getArray(field);
  if (!array || array->size() != 3)
    return llvm::createStringError(where + ": '" + field +
                                   "' must be an array of three integers");
  for (auto [i, value] : llvm::enumerate(*array)) {
    std::optional<int64_t> v = value.getAsInteger();
    if (!v || *v < min)
      return llvm::createStringError(
          where + ": '" + field +
          "' must hold integers >= " + llvm::Twine(min));
    tile[i] = *v;
  }
  return llvm::Error::success();
}

llvm::Expected<TuningCache> TuningCache::parse(StringRef text, StringRef path) {
  auto fail = [&](const llvm::Twine &msg) -> llvm::Error {
    return llvm::createStringError("tuning cache '" + path + "': " + msg);
  };
  // llvm::json recurses per level: bound the nesting first (a cache has 4).
  if (exceedsJSONDepth(text, kMaxDepth))
    return fail("not a tuning cache: nested more than " +
                llvm::Twine(kMaxDepth) + " levels deep");
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return fail("not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root ||
      root->getString("format") != std::optional<StringRef>(kFormatName))
    return fail("not an llmc tuning cache (its \"format\" is not \"" +
                kFormatName + "\")");
  if (root->getInteger("version") != std::optional<int64_t>(kFormatVersion))
    return fail("unsupported version (this llmc reads version " +
                llvm::Twine(kFormatVersion) + ")");
  const llvm::json::Array *array = root->getArray("entries");
  if (!array)
    return fail("no \"entries\" array");
  TuningCache cache;
  for (auto [i, value] : llvm::enumerate(*array)) {
    std::string where = "entry " + std::to_string(i);
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return fail(where + " is not an object");
    TuningEntry entry;
    std::optional<StringRef> target = object->getString("target");
    std::optional<StringRef> kernel = object->getString("kernel");
    if (!target || target->empty() || !kernel || kernel->empty())
      return fail(where + ": 'target' and 'kernel' must be non-empty strings");
    entry.target = target->str();
    entry.kernel = kernel->str();
    if (isAttentionKernel(entry.kernel)) {
      const llvm::json::Array *tile = object->getArray("attention_tile");
      std::optional<int64_t> q, kv;
      if (tile && tile->size() == 2) {
        q = (*tile)[0].getAsInteger();
        kv = (*tile)[1].getAsInteger();
      }
      if (!q || !kv || *q < 1 || *kv < 1)
        return fail(where + ": 'attention_tile' must be an array of two "
                            "integers >= 1");
      entry.attentionTile = {*q, *kv};
    } else {
      if (llvm::Error e =
              readTile(*object, "register_tile", 1, entry.registerTile, where))
        return fail(llvm::toString(std::move(e)));
      if (llvm::Error e =
              readTile(*object, "cache_tile", 0, entry.cacheTile, where))
        return fail(llvm::toString(std::move(e)));
    }
    entry.timeMs = object->getNumber("time_ms").value_or(0);
    entry.defaultMs = object->getNumber("default_ms").value_or(0);
    if (!std::isfinite(entry.timeMs) || !std::isfinite(entry.defaultMs) ||
        entry.timeMs < 0 || entry.defaultMs < 0)
      return fail(where + ": 'time_ms' and 'default_ms' must be finite "
                          "non-negative numbers");
    cache.insert(entry);
  }
  return cache;
}

llvm::Expected<TuningCache> TuningCache::load(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError("cannot read tuning cache '" + path +
                                   "': " + buffer.getError().message());
  return parse((*buffer)->getBuffer(), path);
}

std::string TuningCache::serialize() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  // One entry per line: readable, and diffs stay small.
  os << "{\"format\": \"" << kFormatName
     << "\", \"version\": " << kFormatVersion << ", \"entries\": [";
  auto tile = [](const std::array<int64_t, 3> &t) {
    return llvm::formatv("[{0}, {1}, {2}]", t[0], t[1], t[2]).str();
  };
  for (auto [i, entry] : llvm::enumerate(entries)) {
    // The strings through the JSON writer (quoted and escaped).
    os << (i ? ",\n  " : "\n  ")
       << "{\"target\": " << llvm::json::Value(entry.target)
       << ", \"kernel\": " << llvm::json::Value(entry.kernel);
    if (isAttentionKernel(entry.kernel))
      os << ", \"attention_tile\": [" << entry.attentionTile[0] << ", "
         << entry.attentionTile[1] << "]";
    else
      os << ", \"register_tile\": " << tile(entry.registerTile)
         << ", \"cache_tile\": " << tile(entry.cacheTile);
    // (JSON has no inf or NaN.)
    auto finite = [](double v) { return std::isfinite(v) ? v : 0.0; };
    os << llvm::format(", \"time_ms\": %.4f, \"default_ms\": %.4f}",
                       finite(entry.timeMs), finite(entry.defaultMs));
  }
  os << "\n]}\n";
  return text;
}

llvm::Error TuningCache::save(StringRef givenPath) const {
  // A link is written through: its target is replaced, the link kept.
  llvm::SmallString<256> resolved(givenPath);
  if (llvm::sys::fs::is_symlink_file(givenPath))
    if (std::error_code ec = llvm::sys::fs::real_path(givenPath, resolved))
      return llvm::createStringError("cannot write tuning cache '" + givenPath +
                                     "': " + ec.message());
  StringRef path = resolved;
  llvm::SmallString<256> dir = llvm::sys::path::parent_path(path);
  if (dir.empty())
    dir = ".";
  llvm::SmallString<256> model(dir);
  llvm::sys::path::append(model,
                          llvm::sys::path::filename(path) + ".tmp-%%%%%%");
  int fd;
  llvm::SmallString<256> temp;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return llvm::createStringError("cannot write tuning cache '" + path +
                                   "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << serialize();
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return llvm::createStringError("cannot write tuning cache '" + path +
                                     "': " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError("cannot write tuning cache '" + path +
                                   "': " + ec.message());
  }
  return llvm::Error::success();
}

/// The index key of an entry.
static std::string indexKey(StringRef target, StringRef kernel) {
  return (target + "\n" + kernel).str();
}

const TuningEntry *TuningCache::lookup(StringRef target,
                                       StringRef kernel) const {
  auto it = index.find(indexKey(target, kernel));
  return it == index.end() ? nullptr : &entries[it->second];
}

void TuningCache::insert(const TuningEntry &entry) {
  auto [it, inserted] =
      index.try_emplace(indexKey(entry.target, entry.kernel), entries.size());
  if (!inserted) {
    entries[it->second] = entry;
    return;
  }
  entries.push_back(entry);
}

SmallVector<std::string> TuningCache::getTargets() const {
  SmallVector<std::string> targets;
  for (const TuningEntry &entry : entries)
    if (!llvm::is_contained(targets, entry.target))
      targets.push_back(entry.target);
  return targets;
}

bool TuningCache::hasTarget(StringRef target) const {
  return llvm::any_of(entries, [&](const TuningEntry &entry) {
    return entry.target == target;
  });
}

//===----------------------------------------------------------------------===//
// Candidates
//===----------------------------------------------------------------------===//

/// Adds the normalized `reg` x `cache` to `out` unless it is `best` or
/// already there.
static void addCandidate(SmallVectorImpl<MatmulTiles> &out,
                         ArrayRef<int64_t> reg, ArrayRef<int64_t> cache,
                         const MatmulProblem &problem,
                         const MatmulTiles &best) {
  MatmulTiles t = normalizeMatmulTiles(reg, cache, problem);
  if (t == best ||
      llvm::any_of(out, [&](const MatmulTiles &o) { return o == t; }))
    return;
  out.push_back(t);
}

/// Vector registers of the target: 32 with AVX-512, else 16.
static int64_t getNumVectorRegisters(const CPUTargetDescription &target) {
  return target.vectorBits >= 512 ? 32 : 16;
}

SmallVector<MatmulTiles>
mlir::llm::getRegisterTileCandidates(const CPUTargetDescription &target,
                                     const MatmulProblem &problem,
                                     const MatmulTiles &best) {
  int64_t lanes =
      problem.accType ? target.getVectorLanes(problem.accType) : int64_t(1);
  int64_t regs = getNumVectorRegisters(target);
  int64_t cache[3] = {best.cacheM, best.cacheN, best.cacheK};
  SmallVector<MatmulTiles> out;
  bool smallM = problem.m < target.matmulRegisterTile[0];
  if (smallM) {
    // All rows in one tile; wider or narrower along N (m * v accumulators
    // and the broadcasts of the rows).
    for (int64_t v : {1, 2, 4, 8, 16}) {
      if (problem.m * v + problem.m + 1 > regs)
        continue;
      int64_t reg[3] = {problem.m, v * lanes, 1};
      addCandidate(out, reg, cache, problem, best);
    }
    return out;
  }
  // rm rows x v vectors: rm * v accumulators + v B vectors + 1 broadcast
  // in the registers, at least 8 accumulators (two FMA pipes of latency 4).
  static constexpr int64_t kRows[] = {4, 6, 8, 12, 14, 16, 24};
  for (int64_t v : {1, 2, 3, 4}) {
    for (int64_t rm : kRows) {
      if (rm * v + v + 1 > regs || rm * v < 8)
        continue;
      // Keep the list short: the widest few row counts of each width.
      if (v == 1 && rm < 12)
        continue;
      int64_t reg[3] = {rm, v * lanes, 1};
      addCandidate(out, reg, cache, problem, best);
    }
  }
  return out;
}

SmallVector<MatmulTiles>
mlir::llm::getCacheTileCandidates(const CPUTargetDescription &target,
                                  const MatmulProblem &problem,
                                  const MatmulTiles &best, unsigned dim) {
  int64_t reg[3] = {best.regM, best.regN, best.regK};
  SmallVector<MatmulTiles> out;
  // Along N (0: all of N), with the best K tile.
  static constexpr int64_t kNs[] = {0, 128, 256, 512, 1024};
  // Along K (0: all of K), with the best N tile: short panels for a matvec
  // (B read along whole rows), L2-sized ones otherwise.
  static constexpr int64_t kSmallMKs[] = {8, 16, 32, 64, 128};
  static constexpr int64_t kKs[] = {0, 64, 128, 256, 512};
  bool smallM = problem.m < target.matmulRegisterTile[0];
  ArrayRef<int64_t> sizes = dim == 1 ? ArrayRef<int64_t>(kNs)
                            : smallM ? ArrayRef<int64_t>(kSmallMKs)
                                     : ArrayRef<int64_t>(kKs);
  for (int64_t size : sizes) {
    int64_t cache[3] = {best.cacheM, best.cacheN, best.cacheK};
    cache[dim] = size;
    addCandidate(out, reg, cache, problem, best);
  }
  return out;
}

SmallVector<std::array<int64_t, 2>>
mlir::llm::getAttentionTileCandidates(std::array<int64_t, 2> best, int64_t sq,
                                      int64_t skv, unsigned dim) {
  static constexpr int64_t kQuery[] = {8, 16, 32, 64, 128};
  static constexpr int64_t kKeyValue[] = {16, 32, 64, 128, 256};
  static constexpr int64_t kJointQuery[] = {32, 64, 128};
  static constexpr int64_t kJointKeyValue[] = {64, 128, 256};
  // A tile beyond the sequence is the whole sequence (clamped by the
  // lowering).
  auto clamp = [&](std::array<int64_t, 2> t) {
    return std::array<int64_t, 2>{std::min(t[0], sq), std::min(t[1], skv)};
  };
  std::array<int64_t, 2> base = clamp(best);
  SmallVector<std::array<int64_t, 2>> out;
  auto add = [&](std::array<int64_t, 2> t) {
    t = clamp(t);
    if (t != base && !llvm::is_contained(out, t))
      out.push_back(t);
  };
  if (dim == 2) {
    // Both at once: larger tiles trade fewer online-softmax rescales for
    // more cache, which one dimension at a time does not find.
    for (int64_t q : kJointQuery)
      for (int64_t kv : kJointKeyValue)
        add({q, kv});
    return out;
  }
  for (int64_t size :
       dim == 0 ? ArrayRef<int64_t>(kQuery) : ArrayRef<int64_t>(kKeyValue)) {
    std::array<int64_t, 2> t = best;
    t[dim] = size;
    add(t);
  }
  return out;
}
