//===- SparseWeights.cpp - Sparse storage of constant matmul weights ------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Dialect/LLM/IR/SparseWeights.h"
#include "llm/Dialect/LLM/IR/LLMQuant.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::llm;

FailureOr<SparseFormat> SparseFormat::parse(StringRef name) {
  SparseFormat f;
  if (name == "dense")
    return f;
  if (name == "2:4") {
    f.kind = Kind::TwoFour;
    return f;
  }
  if (name == "csr") {
    f.kind = Kind::CSR;
    return f;
  }
  StringRef shape = name;
  if (!shape.consume_front("bsr"))
    return failure();
  auto [r, c] = shape.split('x');
  if (r.getAsInteger(10, f.rows) || c.getAsInteger(10, f.cols) || f.rows < 1 ||
      f.cols < 1 || f.rows > 64 || f.cols > 64)
    return failure();
  f.kind = Kind::Block;
  return f;
}

std::string SparseFormat::str() const {
  switch (kind) {
  case Kind::Dense:
    return "dense";
  case Kind::TwoFour:
    return "2:4";
  case Kind::CSR:
    return "csr";
  case Kind::Block:
    return "bsr" + std::to_string(rows) + "x" + std::to_string(cols);
  }
  return "dense";
}

FailureOr<PackedSparseWeight>
mlir::llm::packSparseWeight(ArrayRef<float> w, bool nk, int64_t N, int64_t K,
                            SparseFormat format, int64_t lanes,
                            std::string &why) {
  if (lanes < 1 || N < 1 || K < 1 || int64_t(w.size()) != N * K) {
    why = "the weight is empty or its size is not N x K";
    return failure();
  }
  auto at = [&](int64_t n, int64_t k) {
    return w[nk ? size_t(n * K + k) : size_t(k * N + n)];
  };
  PackedSparseWeight p;
  p.format = format;
  p.N = p.paddedN = N;
  p.K = p.paddedK = K;

  switch (format.kind) {
  case SparseFormat::Kind::Dense:
    why = "the dense format has no sparse packing";
    return failure();

  case SparseFormat::Kind::Block: {
    const int64_t R = format.rows, C = format.cols;
    p.paddedN = (N + R - 1) / R * R;
    p.paddedK = (K + C - 1) / C * C;
    const int64_t blockRows = p.paddedN / R, blockCols = p.paddedK / C;
    if (blockCols > 65536) {
      why = "more than 65536 block columns (16-bit block indices)";
      return failure();
    }
    p.transposedBlocks = R % lanes == 0;
    auto get = [&](int64_t n, int64_t k) {
      return n < N && k < K ? at(n, k) : 0.0f;
    };
    p.rowPtr.push_back(0);
    for (int64_t i = 0; i < blockRows; ++i) {
      for (int64_t j = 0; j < blockCols; ++j) {
        bool nonzero = false;
        for (int64_t r = 0; r < R && !nonzero; ++r)
          for (int64_t c = 0; c < C && !nonzero; ++c)
            nonzero = get(i * R + r, j * C + c) != 0.0f;
        if (!nonzero)
          continue;
        p.colIdx.push_back(uint16_t(j));
        if (p.transposedBlocks) {
          for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < R; ++r)
              p.values.push_back(get(i * R + r, j * C + c));
        } else {
          for (int64_t r = 0; r < R; ++r)
            for (int64_t c = 0; c < C; ++c)
              p.values.push_back(get(i * R + r, j * C + c));
        }
      }
      p.rowPtr.push_back(int32_t(p.colIdx.size()));
    }
    return p;
  }

  case SparseFormat::Kind::CSR: {
    if (K > 65536) {
      why = "K is above 65536 (16-bit column indices)";
      return failure();
    }
    p.chunk = lanes;
    p.rowPtr.push_back(0);
    for (int64_t n = 0; n < N; ++n) {
      int64_t stored = 0, last = 0;
      for (int64_t k = 0; k < K; ++k) {
        if (at(n, k) == 0.0f)
          continue;
        p.colIdx.push_back(uint16_t(k));
        p.values.push_back(at(n, k));
        last = k;
        ++stored;
      }
      // Whole chunks: zeros at the row's last column (a column it reads).
      for (; stored % lanes; ++stored) {
        p.colIdx.push_back(uint16_t(last));
        p.values.push_back(0.0f);
      }
      p.rowPtr.push_back(int32_t(p.colIdx.size() / lanes));
    }
    return p;
  }

  case SparseFormat::Kind::TwoFour: {
    p.paddedK = (K + 31) / 32 * 32;
    const int64_t chunks = p.paddedK / 32;
    p.values.assign(size_t(N * chunks * 16), 0.0f);
    p.laneIdx.assign(size_t(N * chunks * 16), 0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < p.paddedK / 4; ++g) {
        // The group's nonzeros, then explicit zeros at its other lanes: an
        // under-full group still stores exactly two elements.
        int64_t lanesUsed[2], values = 0;
        float kept[2] = {0.0f, 0.0f};
        for (int64_t t = 0; t < 4; ++t) {
          int64_t k = g * 4 + t;
          float v = k < K ? at(n, k) : 0.0f;
          if (v == 0.0f)
            continue;
          if (values == 2) {
            why = "a group of 4 along K holds more than 2 nonzeros (row " +
                  std::to_string(n) + ", columns " + std::to_string(g * 4) +
                  ".." + std::to_string(g * 4 + 3) + ")";
            return failure();
          }
          lanesUsed[values] = t;
          kept[values++] = v;
        }
        for (int64_t t = 0; values < 2; ++t)
          if (values == 0 || lanesUsed[0] != t)
            lanesUsed[values++] = t;
        if (lanesUsed[0] > lanesUsed[1]) {
          std::swap(lanesUsed[0], lanesUsed[1]);
          std::swap(kept[0], kept[1]);
        }
        int64_t q = g / 8, inChunk = g % 8;
        for (int64_t e = 0; e < 2; ++e) {
          size_t slot = size_t((n * chunks + q) * 16 + inChunk * 2 + e);
          p.values[slot] = kept[e];
          p.laneIdx[slot] = uint8_t(inChunk * 4 + lanesUsed[e]);
        }
      }
    return p;
  }
  }
  return failure();
}

DenseElementsAttr mlir::llm::getFloatElementsAttr(RankedTensorType type,
                                                  ArrayRef<float> values) {
  auto ft = cast<FloatType>(type.getElementType());
  if (ft.isF32())
    return DenseElementsAttr::get(type, values);
  SmallVector<APFloat> elems;
  elems.reserve(values.size());
  for (float v : values) {
    APFloat f(v);
    bool lost = false;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    elems.push_back(f);
  }
  return DenseElementsAttr::get(type, elems);
}

/// `value` rounded to nearest even in `type` (bf16 or f16), as its bits.
static uint16_t roundToHalfBits(float value, FloatType type) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (type.isBF16()) {
    // bf16 is the top half of an f32: add half an ulp (ties to even) and
    // truncate; NaNs stay quiet NaNs.
    if ((bits & 0x7fffffffu) > 0x7f800000u)
      return static_cast<uint16_t>((bits >> 16) | 0x40);
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
  }
  bool losesInfo;
  APFloat rounded(value);
  rounded.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return static_cast<uint16_t>(rounded.bitcastToAPInt().getZExtValue());
}

ElementsAttr mlir::llm::convertFloatElements(ElementsAttr attr, FloatType to) {
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !(to.isF32() || to.isF16() || to.isBF16()))
    return nullptr;
  RankedTensorType resultType = type.clone(to);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr);
      dense && dense.isSplat() && isa<FloatType>(type.getElementType())) {
    APFloat value = dense.getSplatValue<APFloat>();
    bool losesInfo;
    value.convert(to.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    return DenseElementsAttr::get(resultType, value);
  }
  std::optional<std::vector<float>> values = readFloatValues(attr);
  if (!values || static_cast<int64_t>(values->size()) != type.getNumElements())
    return nullptr;
  // The elements' little-endian bytes in `to`: the f32 values themselves,
  // or their rounded 16-bit patterns.
  std::vector<uint16_t> halves;
  if (!to.isF32()) {
    halves.reserve(values->size());
    for (float value : *values)
      halves.push_back(roundToHalfBits(value, to));
  }
  ArrayRef<char> bytes =
      to.isF32()
          ? ArrayRef<char>(reinterpret_cast<const char *>(values->data()),
                           values->size() * sizeof(float))
          : ArrayRef<char>(reinterpret_cast<const char *>(halves.data()),
                           halves.size() * sizeof(uint16_t));
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource)
    return DenseElementsAttr::getFromRawBuffer(resultType, bytes);
  std::string name = resource.getRawHandle().getKey().str() + "_";
  llvm::raw_string_ostream os(name);
  to.print(os);
  return DenseResourceElementsAttr::get(
      resultType, name,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, to.getWidth() / 8));
}

std::optional<std::vector<float>>
mlir::llm::readFloatValues(ElementsAttr attr) {
  auto ft = dyn_cast<FloatType>(attr.getElementType());
  if (!ft || !(ft.isF32() || ft.isF16() || ft.isBF16()))
    return std::nullopt;
  std::vector<float> out;
  out.reserve(attr.getNumElements());
  auto toF32 = [](APFloat v) {
    bool lost = false;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return v.convertToFloat();
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (ft.isF32()) {
      for (float v : dense.getValues<float>())
        out.push_back(v);
    } else {
      for (const APFloat &v : dense.getValues<APFloat>())
        out.push_back(toF32(v));
    }
    return out;
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!res || !res.getRawHandle().getBlob())
    return std::nullopt;
  ArrayRef<char> data = res.getRawHandle().getBlob()->getData();
  int64_t n = res.getNumElements();
  int64_t width = ft.getWidth() / 8;
  if (static_cast<int64_t>(data.size()) != n * width)
    return std::nullopt;
  if (ft.isF32()) {
    out.resize(n);
    std::memcpy(out.data(), data.data(), n * 4);
    return out;
  }
  for (int64_t i = 0; i < n; ++i) {
    uint16_t bits;
    std::memcpy(&bits, data.data() + i * 2, 2);
    out.push_back(toF32(APFloat(ft.getFloatSemantics(), APInt(16, bits))));
  }
  return out;
}

FailureOr<QuantizedWeightLevels>
mlir::llm::readQuantizedWeightLevels(Value w, bool nk, std::string *why) {
  auto fail = [&](const std::string &reason) {
    if (why)
      *why = reason;
    return failure();
  };
  auto type = dyn_cast<RankedTensorType>(w.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !isUniformQuantType(type.getElementType()))
    return failure();
  FailureOr<QuantParams> p =
      getQuantParams(type.getElementType(), type.getShape());
  if (failed(p) || p->paramShape.size() != 2)
    return failure();
  if (p->storageWidth != 8 && p->storageWidth != 4)
    return fail("its storage is " + std::to_string(p->storageWidth) +
                "-bit (the sparse kernels take 8- and 4-bit levels)");
  int64_t nDim = nk ? 0 : 1, kDim = 1 - nDim;
  int64_t N = type.getDimSize(nDim), K = type.getDimSize(kDim);
  // Parameters per tensor, per output channel, or per group of K (one or N
  // along N): none shared by some output channels but not all.
  int64_t paramsN = p->paramShape[nDim], paramsK = p->paramShape[kDim];
  if ((paramsN != 1 && paramsN != N) || paramsK < 1 || K % paramsK)
    return fail("its scales or zero points are shared by some output "
                "channels but not all");
  FailureOr<SmallVector<uint8_t>> bytes =
      readStorageBytes(w, type.getNumElements());
  if (failed(bytes))
    return failure();
  // The index into p->scales / p->zeroPoints of element (n, k).
  const int64_t perParamN = N / paramsN, perParamK = K / paramsK;
  auto paramIndex = [&](int64_t n, int64_t k) {
    int64_t pn = n / perParamN, pk = k / perParamK;
    return nDim == 0 ? pn * paramsK + pk : pk * paramsN + pn;
  };
  QuantizedWeightLevels out;
  out.storageWidth = p->storageWidth;
  if (paramsK == 1) {
    out.scales.assign(p->scales.begin(), p->scales.end());
  } else {
    out.groupSize = perParamK;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < paramsK; ++g)
        out.scales.push_back(p->scales[paramIndex(n, g * perParamK)]);
  }
  out.levels.reserve(bytes->size());
  int64_t cols = type.getDimSize(1);
  for (size_t i = 0; i < bytes->size(); ++i) {
    uint8_t b = (*bytes)[i];
    int64_t q;
    if (p->storageWidth == 8)
      q = p->isSigned ? int64_t(int8_t(b)) : int64_t(b);
    else
      q = p->isSigned ? int64_t(int8_t(uint8_t(b << 4)) >> 4)
                      : int64_t(b & 0xF);
    int64_t row = int64_t(i) / cols, col = int64_t(i) % cols;
    int64_t n = nDim == 0 ? row : col, k = nDim == 0 ? col : row;
    int64_t level = q - p->zeroPoints[paramIndex(n, k)];
    if (level < -128 || level > 127)
      return fail("its level q - zp = " + std::to_string(level) +
                  " lies outside [-128, 127] (the sparse kernels store the "
                  "levels as i8)");
    out.levels.push_back(float(level));
  }
  return out;
}

bool mlir::llm::supportsGroupScales(SparseFormat format, int64_t groupSize) {
  if (groupSize < 1)
    return false;
  switch (format.kind) {
  case SparseFormat::Kind::Block:
    return groupSize % format.cols == 0;
  case SparseFormat::Kind::TwoFour:
    return groupSize % 32 == 0;
  case SparseFormat::Kind::CSR:
  case SparseFormat::Kind::Dense:
    return false;
  }
  return false;
}

LogicalResult mlir::llm::setGroupScales(PackedSparseWeight &p,
                                        ArrayRef<double> scales,
                                        int64_t groupSize, std::string &why) {
  if (!supportsGroupScales(p.format, groupSize)) {
    why = "format " + p.format.str() + " does not take sub-channel scales " +
          "in groups of " + std::to_string(groupSize) +
          " (blocks whose columns divide the group, or 2:4 with groups of a "
          "multiple of 32)";
    return failure();
  }
  const int64_t groups = (p.K + groupSize - 1) / groupSize;
  const int64_t paddedGroups = (p.paddedK + groupSize - 1) / groupSize;
  if (int64_t(scales.size()) != p.N * groups) {
    why = "the scales are not [N, K / group size]";
    return failure();
  }
  p.groupSize = groupSize;
  p.groupScales.assign(size_t(paddedGroups * p.paddedN), 0.0f);
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < groups; ++g)
      p.groupScales[size_t(g * p.paddedN + n)] = float(scales[n * groups + g]);
  return success();
}
