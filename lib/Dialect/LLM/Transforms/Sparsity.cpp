//===- Sparsity.cpp - Pruning and sparse formats of constant weights ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llm-prune-weights` (magnitude pruning of constant matmul weights to n:m,
// blocks or an unstructured density) and `llm-sparsify-weights` (each
// weight's sparsity measured and its storage format chosen by a cost model
// of the decode matrix-vector product). Both view a weight as W[N, K]:
// output channels by the contraction.
//
//===----------------------------------------------------------------------===//

#include "WeightQuantization.h"

#include "llm/Dialect/LLM/IR/LLMOps.h"
#include "llm/Dialect/LLM/IR/SparseWeights.h"
#include "llm/Dialect/LLM/Transforms/Passes.h"
#include "llm/Dialect/LLM/Transforms/Transforms.h"
#include "llm/Support/Report.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mlir::llm {
#define GEN_PASS_DEF_LLMPRUNEWEIGHTSPASS
#define GEN_PASS_DEF_LLMSPARSIFYWEIGHTSPASS
#include "llm/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace mlir::llm

using namespace mlir;
using namespace mlir::llm;

namespace {

/// A constant matmul weight viewed as W[N, K].
struct WeightView {
  /// The llm.matmul, or the llm.dequant_matmul of a quantized weight.
  Operation *op = nullptr;
  /// The float weight's constant (llm.matmul only).
  ConstantOp cst;
  int64_t N = 0, K = 0;
  /// Stored [N, K] (`transpose_b`), else [K, N].
  bool nk = false;
  /// The values (a quantized weight: its levels q - zp).
  std::vector<float> values;
  /// Bytes of a dense element and of a value stored sparse (f32 4 and 4,
  /// f16/bf16 2 and 2, 8-bit 1 and 1, 4-bit 0.5 and 1: the sparse
  /// kernels store levels as i8).
  double denseElementBytes = 4, sparseValueBytes = 4;
  /// A quantized weight (its levels stored as i8 by the sparse formats).
  bool levels = false;
  /// The weight of an `llm.matmul_integer` (W8A8: its kernel takes BSR
  /// with 16 rows and columns a multiple of 4 only).
  bool integer = false;
  /// Why a quantized constant weight cannot be stored sparse (its levels
  /// do not fit i8, ...); empty for a weight that can.
  std::string unstorable;
  /// Sub-channel scales: elements of K per scale (0: none) and the bytes of
  /// the scales, stored by every format.
  int64_t groupSize = 0;
  double scaleBytes = 0;

  size_t index(int64_t n, int64_t k) const {
    return nk ? size_t(n * K + k) : size_t(k * N + n);
  }
  float at(int64_t n, int64_t k) const { return values[index(n, k)]; }
};

/// The constant rank-2 float weights of the matmuls under `root` and, with
/// `quantized`, the 8- and 4-bit weights of the dequant_matmuls (per tensor,
/// per output channel or in sub-channel groups along K) and of the
/// matmul_integers ([K, N]).
SmallVector<WeightView> collectWeights(Operation *root, bool quantized) {
  SmallVector<WeightView> weights;
  root->walk([&](Operation *op) {
    WeightView w;
    RankedTensorType type;
    if (auto mm = dyn_cast<MatmulOp>(op)) {
      ConstantOp cst =
          llm::detail::getConstantMatmulWeight(mm, /*halfToo=*/true);
      if (!cst)
        return;
      std::optional<std::vector<float>> values =
          readFloatValues(cst.getValue());
      if (!values)
        return;
      type = mm.getRhs().getType();
      w.cst = cst;
      w.nk = mm.getTransposeB();
      w.values = std::move(*values);
      w.denseElementBytes = w.sparseValueBytes =
          type.getElementType().getIntOrFloatBitWidth() / 8;
    } else if (isa<MatmulIntegerOp, DequantMatmulOp>(op) && quantized) {
      // The levels q - zp (an integer matmul's scales play no part in its
      // sums); a weight they do not fit is kept with the reason.
      auto dq = dyn_cast<DequantMatmulOp>(op);
      w.integer = !dq;
      w.nk = dq && dq.getTransposeB();
      Value rhs = op->getOperand(1);
      type = cast<RankedTensorType>(rhs.getType());
      FailureOr<QuantizedWeightLevels> q =
          readQuantizedWeightLevels(rhs, w.nk, &w.unstorable);
      if (failed(q) && w.unstorable.empty())
        return;
      w.levels = true;
      if (succeeded(q)) {
        w.values = std::move(q->levels);
        w.denseElementBytes = q->storageWidth / 8.0;
        w.sparseValueBytes = 1;
        if (dq && q->groupSize) {
          w.groupSize = q->groupSize;
          w.scaleBytes = 4.0 * double(q->scales.size());
        }
      }
    } else {
      return;
    }
    w.op = op;
    w.N = type.getDimSize(w.nk ? 0 : 1);
    w.K = type.getDimSize(w.nk ? 1 : 0);
    weights.push_back(std::move(w));
  });
  return weights;
}

/// `x` printed with printf format `spec`.
std::string formatDouble(const char *spec, double x) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format(spec, x);
  return text;
}

/// `pattern`: n:m, unstructured or RxC.
struct PrunePattern {
  enum Kind { NM, Unstructured, Block } kind = NM;
  int64_t n = 2, m = 4;       // NM
  int64_t rows = 1, cols = 1; // Block
};

FailureOr<PrunePattern> parsePattern(StringRef text) {
  PrunePattern p;
  if (text == "unstructured") {
    p.kind = PrunePattern::Unstructured;
    return p;
  }
  auto [a, b] = text.split(':');
  if (text.contains(':')) {
    if (a.getAsInteger(10, p.n) || b.getAsInteger(10, p.m) || p.m < 1 ||
        p.n < 0 || p.n > p.m)
      return failure();
    return p;
  }
  auto [r, c] = text.split('x');
  if (!text.contains('x') || r.getAsInteger(10, p.rows) ||
      c.getAsInteger(10, p.cols) || p.rows < 1 || p.cols < 1)
    return failure();
  p.kind = PrunePattern::Block;
  return p;
}

/// The elements of `w` to keep under `pattern` and `density`.
std::vector<bool> keepMask(const WeightView &w, PrunePattern pattern,
                           double density) {
  // A group or block longer than the weight is the whole weight along that
  // dimension (clamped: the block count rounding up overflowed for sizes
  // near 2^63).
  pattern.m = std::min(pattern.m, std::max<int64_t>(w.K, 1));
  pattern.rows = std::min(pattern.rows, std::max<int64_t>(w.N, 1));
  pattern.cols = std::min(pattern.cols, std::max<int64_t>(w.K, 1));
  size_t total = w.values.size();
  std::vector<bool> keep(total, false);
  switch (pattern.kind) {
  case PrunePattern::NM: {
    SmallVector<int64_t> idx;
    for (int64_t n = 0; n < w.N; ++n)
      for (int64_t k0 = 0; k0 < w.K; k0 += pattern.m) {
        int64_t k1 = std::min(w.K, k0 + pattern.m);
        idx.clear();
        for (int64_t k = k0; k < k1; ++k)
          idx.push_back(k);
        // Largest |w| first; ties: the lower k.
        std::sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) {
          float ax = std::fabs(w.at(n, x)), ay = std::fabs(w.at(n, y));
          return ax != ay ? ax > ay : x < y;
        });
        for (int64_t i = 0; i < std::min<int64_t>(pattern.n, idx.size()); ++i)
          keep[w.index(n, idx[i])] = true;
      }
    break;
  }
  case PrunePattern::Unstructured: {
    std::vector<size_t> order(total);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      float ax = std::fabs(w.values[x]), ay = std::fabs(w.values[y]);
      return ax != ay ? ax > ay : x < y;
    });
    size_t kept = size_t(std::llround(density * double(total)));
    for (size_t i = 0; i < kept; ++i)
      keep[order[i]] = true;
    break;
  }
  case PrunePattern::Block: {
    int64_t br = (w.N + pattern.rows - 1) / pattern.rows;
    int64_t bc = (w.K + pattern.cols - 1) / pattern.cols;
    std::vector<double> norm(br * bc, 0.0);
    for (int64_t n = 0; n < w.N; ++n)
      for (int64_t k = 0; k < w.K; ++k)
        norm[(n / pattern.rows) * bc + k / pattern.cols] +=
            std::fabs(double(w.at(n, k)));
    std::vector<size_t> order(norm.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return norm[x] != norm[y] ? norm[x] > norm[y] : x < y;
    });
    std::vector<bool> keepBlock(norm.size(), false);
    size_t kept = size_t(std::llround(density * double(norm.size())));
    for (size_t i = 0; i < kept; ++i)
      keepBlock[order[i]] = true;
    for (int64_t n = 0; n < w.N; ++n)
      for (int64_t k = 0; k < w.K; ++k)
        keep[w.index(n, k)] =
            keepBlock[(n / pattern.rows) * bc + k / pattern.cols];
    break;
  }
  }
  return keep;
}

struct LLMPruneWeightsPass final
    : mlir::llm::impl::LLMPruneWeightsPassBase<LLMPruneWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<PrunePattern> p = parsePattern(pattern);
    if (failed(p)) {
      emitError(module.getLoc(), "llm-prune-weights: unknown pattern '")
          << pattern
          << "' (n:m with 0 <= n <= m, unstructured, or RxC such as 16x16)";
      return signalPassFailure();
    }
    if (p->kind != PrunePattern::NM && !(density > 0 && density <= 1)) {
      emitError(module.getLoc(), "llm-prune-weights: density must be in "
                                 "(0, 1], got ")
          << density.getValue();
      return signalPassFailure();
    }
    llm::detail::WeightError error;
    int64_t zeros = 0, pruned = 0;
    for (WeightView &w : collectWeights(module, /*quantized=*/false)) {
      std::vector<bool> keep = keepMask(w, *p, density);
      std::vector<float> out(w.values.size());
      for (size_t i = 0; i < out.size(); ++i) {
        out[i] = keep[i] ? w.values[i] : 0.0f;
        error.add(std::fabs(double(w.values[i]) - double(out[i])));
        zeros += out[i] == 0.0f;
      }
      auto type = cast<RankedTensorType>(w.cst.getType());
      OpBuilder b(w.op);
      Value c = ConstantOp::create(b, w.cst.getLoc(), type,
                                   getFloatElementsAttr(type, out));
      cast<MatmulOp>(w.op).getRhsMutable().assign(c);
      if (w.cst->use_empty())
        w.cst->erase();
      ++pruned;
    }
    double maxErr = error.maxAbs, rms = error.rms();
    accumulateReportValue(module, "pruned_weights", pruned);
    accumulateReportValue(module, "pruned_zeros", zeros);
    llm::detail::recordWeightError(module, "pruned", error);
    if (pruned)
      emitRemark(module.getLoc(), "llm-prune-weights: ")
          << pruned << " weights pruned to " << pattern.getValue() << " ("
          << zeros << " of " << error.count << " elements zero), max abs error "
          << maxErr << ", RMS error " << rms;
  }
};

//===----------------------------------------------------------------------===//
// Formats
//===----------------------------------------------------------------------===//

/// A storage format and its cost model (sparsity-probe.md, cold matvec).
struct Format {
  StringRef name;
  /// Block shape (BSR), 0 for the others.
  int64_t rows = 0, cols = 0;
  /// Float weights (f32, f16, bf16 values) against the dense kernel.
  double efficiency;
  /// The i8 levels of a quantized weight against the dense 8- or 4-bit
  /// kernel: the kernels do the same work per stored value in a quarter of
  /// the bytes, so the formats that spend more instructions per value
  /// (small blocks, indices, gathers) stream fewer bytes per second.
  double levelEfficiency;
};

/// The measured streaming efficiencies (Passes.td, llm-sparsify-weights;
/// docs/Sparsity.md): llmc's kernels, cold 4096 x 4096 matvec, one thread
/// (bench/sparse/sparse_matmul.py, Zen 5 VMs; 1x4 and 1x16 measured on
/// 2026-12-05 at 50% and 75% of the blocks, the lower end taken; the
/// levels on 2026-12-06 with `--quant int8`, `int4`, `int8g128` and
/// `int4g128`, the lowest of per-channel and grouped scales taken).
const Format kFormats[] = {
    {"dense", 0, 0, 1.00, 1.00},  {"2:4", 0, 0, 0.95, 0.73},
    {"bsr4x4", 4, 4, 0.89, 0.50}, {"bsr16x16", 16, 16, 1.00, 0.76},
    {"bsr1x4", 1, 4, 0.40, 0.20}, {"bsr1x16", 1, 16, 0.70, 0.44},
    {"csr", 0, 0, 0.70, 0.35},
};
// One entry per name of kSparsifyFormatNames, in its order.
static_assert(std::size(kFormats) == std::size(kSparsifyFormatNames));

/// What a weight looks like, for the cost model.
struct SparsityStats {
  int64_t elements = 0, nonzeros = 0;
  bool exact24 = true;
  /// Nonzero blocks per format index (BSR only).
  int64_t nonzeroBlocks[std::size(kFormats)] = {};
};

SparsityStats measure(const WeightView &w) {
  SparsityStats s;
  s.elements = w.values.size();
  for (float v : w.values)
    s.nonzeros += v != 0.0f;
  for (int64_t n = 0; n < w.N && s.exact24; ++n)
    for (int64_t k0 = 0; k0 < w.K; k0 += 4) {
      int64_t nz = 0;
      for (int64_t k = k0; k < std::min(w.K, k0 + 4); ++k)
        nz += w.at(n, k) != 0.0f;
      if (nz > 2) {
        s.exact24 = false;
        break;
      }
    }
  for (size_t f = 0; f < std::size(kFormats); ++f) {
    const Format &fmt = kFormats[f];
    if (!fmt.rows)
      continue;
    int64_t bc = (w.K + fmt.cols - 1) / fmt.cols;
    int64_t br = (w.N + fmt.rows - 1) / fmt.rows;
    std::vector<bool> nz(br * bc, false);
    for (int64_t n = 0; n < w.N; ++n)
      for (int64_t k = 0; k < w.K; ++k)
        if (w.at(n, k) != 0.0f)
          nz[(n / fmt.rows) * bc + k / fmt.cols] = true;
    s.nonzeroBlocks[f] = std::count(nz.begin(), nz.end(), true);
  }
  return s;
}

/// Bytes of a weight stored in format `f` (values and indices; row pointers
/// are O(N) and left out).
double formatBytes(size_t f, const SparsityStats &s, const WeightView &w) {
  const Format &fmt = kFormats[f];
  const double vb = w.sparseValueBytes;
  if (fmt.name == "dense")
    return w.denseElementBytes * s.elements + w.scaleBytes;
  if (fmt.name == "2:4")
    return (vb + 1) / 2 * s.elements + w.scaleBytes;
  if (fmt.name == "csr")
    return (vb + 2) * s.nonzeros + w.scaleBytes;
  double blockElems = double(fmt.rows * fmt.cols);
  return s.nonzeroBlocks[f] * (vb * blockElems + 2.0) + w.scaleBytes;
}

/// Whether llmc has a kernel of format `f` for `w`: with sub-channel
/// scales, the formats that take them; for an integer matmul, BSR of 16
/// rows (the 8-bit dot products' lanes) and columns a multiple of 4.
bool hasKernel(size_t f, const WeightView &w) {
  if (f == 0)
    return true;
  if (w.integer)
    return kFormats[f].rows && kFormats[f].rows % 16 == 0 &&
           kFormats[f].cols % 4 == 0;
  return !w.groupSize ||
         supportsGroupScales(*SparseFormat::parse(kFormats[f].name),
                             w.groupSize);
}

struct LLMSparsifyWeightsPass final
    : mlir::llm::impl::LLMSparsifyWeightsPassBase<LLMSparsifyWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target != "cpu" && target != "gpu") {
      emitError(module.getLoc(), "llm-sparsify-weights: unknown target '")
          << target << "' (cpu or gpu)";
      return signalPassFailure();
    }
    bool gpu = target == "gpu";
    // The GPU kernels' formats: dense and 2:4 (on mma.sp).
    auto available = [&](size_t f) {
      return !gpu || kFormats[f].name == "dense" || kFormats[f].name == "2:4";
    };
    std::optional<size_t> forced;
    if (format != "auto") {
      for (size_t f = 0; f < std::size(kFormats); ++f)
        if (kFormats[f].name == format)
          forced = f;
      if (!forced) {
        emitError(module.getLoc(), "llm-sparsify-weights: unknown format '")
            << format << "' (auto, "
            << llvm::join(std::begin(kSparsifyFormatNames),
                          std::end(kSparsifyFormatNames), ", ")
            << ")";
        return signalPassFailure();
      }
      if (!available(*forced)) {
        emitError(module.getLoc(), "llm-sparsify-weights: format '")
            << format
            << "' has no GPU kernel (target=gpu takes auto, dense or 2:4)";
        return signalPassFailure();
      }
    }
    int64_t sparse = 0;
    double saved = 0;
    Builder b(&getContext());
    auto weights = collectWeights(module, /*quantized=*/!gpu);
    // Asked for sparsity, but no matmul can take it (weights that are
    // inputs, rank 3, or the lhs): said once, at the function of the first
    // matmul; the matmuls run dense.
    if (weights.empty()) {
      std::optional<Location> first;
      // A constant weight still behind an llm.dequantize that
      // llm-fold-quant would fold into an llm.dequant_matmul.
      bool unfused = false;
      module.walk([&](Operation *op) {
        // (Constant as readStorageBytes takes one: a quant.scast of a
        // constant.)
        if (auto mm = dyn_cast<MatmulOp>(op);
            mm && isFoldableWeightDequant(mm)) {
          auto cast = mm.getRhs()
                          .getDefiningOp<DequantizeOp>()
                          .getInput()
                          .getDefiningOp<quant::StorageCastOp>();
          unfused |= cast && matchPattern(cast.getInput(), m_Constant());
        }
        // At the function holding the first matmul: the warning is about
        // every matmul (for an imported model, the model, not one node).
        if (isa<MatmulOp, DequantMatmulOp>(op) && !first) {
          auto fn = op->getParentOfType<FunctionOpInterface>();
          first = fn ? fn->getLoc() : op->getLoc();
        }
        return WalkResult::advance();
      });
      if (first) {
        InFlightDiagnostic diag =
            emitWarning(*first, "llm-sparsify-weights: format=");
        diag << format
             << ": no matmul has a weight to store sparse (a constant rank-2 "
                "f32, f16 or bf16 rhs, the lhs not transposed"
             << (gpu ? "" : "; or an 8- or 4-bit quantized rhs")
             << "), so every matmul runs dense";
        if (unfused && !gpu)
          diag << "; a quantized weight reaches a matmul through "
                  "llm.dequantize: run --llm-fold-quant first, as "
                  "llm-lower-to-cpu and `llmc run --sparsify` do";
      }
    }
    for (WeightView &w : weights) {
      // A quantized weight whose levels the formats cannot hold: dense, an
      // error when a sparse format is forced on it.
      if (!w.unstorable.empty()) {
        if (forced && *forced != 0) {
          emitError(w.op->getLoc(), "llm-sparsify-weights: format=")
              << kFormats[*forced].name << " for a weight [N=" << w.N
              << ", K=" << w.K
              << "] that cannot be stored sparse: " << w.unstorable;
          return signalPassFailure();
        }
        emitRemark(w.op->getLoc(), "llm-sparsify-weights: weight [N=")
            << w.N << ", K=" << w.K << "] stays dense: " << w.unstorable;
        continue;
      }
      SparsityStats s = measure(w);
      double dense = formatBytes(0, s, w);
      // Estimated time relative to dense: bytes ratio / efficiency (on the
      // GPU, bytes only: mma.sp stores half the values, in its f16 / bf16
      // type, and 2 bits of metadata per stored value). (At most 1000x: an
      // all-zero weight stores nothing.)
      auto bytesOf = [&](size_t f) {
        return gpu && kFormats[f].name == "2:4" ? (2 + 0.25) / 2 * s.elements
                                                : formatBytes(f, s, w);
      };
      auto relTime = [&](size_t f) {
        return std::max(bytesOf(f) / dense /
                            (gpu        ? 1.0
                             : w.levels ? kFormats[f].levelEfficiency
                                        : kFormats[f].efficiency),
                        1e-3);
      };
      size_t choice = 0;
      if (forced) {
        choice = *forced;
        if (kFormats[choice].name == "2:4" && !s.exact24) {
          emitError(w.op->getLoc(),
                    "llm-sparsify-weights: format=2:4 for a weight [N=")
              << w.N << ", K=" << w.K
              << "] that is not 2:4 (a group of 4 along K holds more than 2 "
                 "nonzeros)";
          return signalPassFailure();
        }
        if (!hasKernel(choice, w)) {
          InFlightDiagnostic diag =
              emitError(w.op->getLoc(), "llm-sparsify-weights: format=")
              << kFormats[choice].name << " for the weight [N=" << w.N
              << ", K=" << w.K << "]";
          if (w.integer)
            diag << " of an llm.matmul_integer: its sparse kernel takes "
                    "bsr16x16 only";
          else
            diag << " with sub-channel scales in groups of " << w.groupSize
                 << " along K: the sparse kernels take such scales with "
                    "blocks whose columns divide the group, and with 2:4 "
                    "for groups of a multiple of 32 (not CSR)";
          return signalPassFailure();
        }
      } else {
        double best = 1.0 / 1.1; // at least 1.1x dense
        for (size_t f = 1; f < std::size(kFormats); ++f) {
          if (!available(f) || (kFormats[f].name == "2:4" && !s.exact24) ||
              !hasKernel(f, w))
            continue;
          // 16-bit indices (SparseWeights.h): CSR columns up to 65536,
          // BSR block columns alike.
          if ((kFormats[f].name == "csr" && w.K > 65536) ||
              (kFormats[f].rows &&
               (w.K + kFormats[f].cols - 1) / kFormats[f].cols > 65536))
            continue;
          if (relTime(f) < best) {
            best = relTime(f);
            choice = f;
          }
        }
      }
      double bytes = bytesOf(choice);
      double density = s.elements ? double(s.nonzeros) / s.elements : 0.0;
      double speedup = 1.0 / relTime(choice);
      w.op->setAttr(
          kSparseFormatAttrName,
          b.getDictionaryAttr(
              {b.getNamedAttr("format", b.getStringAttr(kFormats[choice].name)),
               b.getNamedAttr("density", b.getF64FloatAttr(density)),
               b.getNamedAttr("estimated_speedup", b.getF64FloatAttr(speedup)),
               b.getNamedAttr("bytes", b.getI64IntegerAttr(int64_t(bytes))),
               b.getNamedAttr("dense_bytes",
                              b.getI64IntegerAttr(int64_t(dense)))}));
      if (choice != 0) {
        ++sparse;
        saved += dense - bytes;
      }
      InFlightDiagnostic remark = emitRemark(w.op->getLoc());
      remark << "llm-sparsify-weights: weight [N=" << w.N << ", K=" << w.K
             << "] density " << formatDouble("%.3f", density) << ", 2:4 "
             << (s.exact24 ? "yes" : "no") << ", nonzero blocks";
      for (size_t f = 0; f < std::size(kFormats); ++f)
        if (kFormats[f].rows) {
          int64_t total = ((w.N + kFormats[f].rows - 1) / kFormats[f].rows) *
                          ((w.K + kFormats[f].cols - 1) / kFormats[f].cols);
          remark << " " << kFormats[f].rows << "x" << kFormats[f].cols << " "
                 << formatDouble(
                        "%.3f", total ? double(s.nonzeroBlocks[f]) / total : 0);
        }
      if (w.groupSize)
        remark << ", scales in groups of " << w.groupSize;
      remark << ": " << kFormats[choice].name << " ("
             << formatDouble("%.2f", speedup) << "x dense estimated, "
             << int64_t(bytes) << " of " << int64_t(dense) << " bytes)";
      if (gpu && choice != 0)
        remark << " on mma.sp where the matmul runs on tensor cores (else "
                  "read dense)";
    }
    accumulateReportValue(module, "sparse_weights", sparse);
    accumulateReportValue(module, "sparse_bytes_saved", int64_t(saved));
  }
};

} // namespace
