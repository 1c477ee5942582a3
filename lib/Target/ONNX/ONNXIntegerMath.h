//===- ONNXIntegerMath.h - integer arithmetic of ONNX folds -----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private header of the ONNX importer: the integer arithmetic the importer
// folds (Add, Sub, Mul, Div, Mod, Pow, Neg, Abs on constants, and shape math),
// as ONNX defines it and without undefined behaviour in C++:
//   * Add/Sub/Mul/Neg/Abs wrap around in two's complement, as ONNX Runtime's
//     int64 kernels do on the hardware (computed in uint64, where C++ defines
//     the wrap-around); Abs and Neg of INT64_MIN are INT64_MIN.
//   * Div truncates toward zero; INT64_MIN / -1 wraps to INT64_MIN (the C++
//     expression traps with SIGFPE on x86).
//   * Mod with fmod=0 takes the sign of the divisor (Python's %), with
//     fmod=1 the sign of the dividend (C's %); INT64_MIN % -1 is 0.
//   * Division and remainder by zero have no value: callers check the divisor
//     first and report an error naming the node.
// Narrower integer types are computed in int64 and truncated when stored,
// which is the same two's complement wrap-around.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_LIB_TARGET_ONNX_ONNXINTEGERMATH_H
#define LLM_LIB_TARGET_ONNX_ONNXINTEGERMATH_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace mlir::llm::detail {

inline int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
inline int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
inline int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}
inline int64_t wrapNeg(int64_t a) {
  return static_cast<int64_t>(uint64_t(0) - static_cast<uint64_t>(a));
}
inline int64_t wrapAbs(int64_t a) { return a < 0 ? wrapNeg(a) : a; }

/// a / b truncated toward zero; b must not be 0.
inline int64_t truncDiv(int64_t a, int64_t b) {
  return b == -1 ? wrapNeg(a) : a / b;
}

/// ONNX Mod: the remainder of a / b with the sign of the divisor (fmod=0)
/// or of the dividend (fmod=1); b must not be 0.
inline int64_t onnxMod(int64_t a, int64_t b, bool fmod) {
  if (b == -1)
    return 0;
  int64_t r = a % b;
  // |r| < |b| and the signs differ: r + b cannot overflow.
  if (!fmod && r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

/// ONNX Pow on integers: base^exp wrapping around (square and multiply, so a
/// huge exponent costs 64 steps). A negative exponent gives the truncated
/// quotient 1 / base^-exp (1 or -1 for a base of 1 or -1, else 0); nullopt
/// for 0 to a negative power (a division by zero).
inline std::optional<int64_t> intPow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 0)
      return std::nullopt;
    if (base == 1)
      return 1;
    if (base == -1)
      return (exp & 1) ? -1 : 1;
    return 0;
  }
  int64_t result = 1;
  for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1) {
    if (e & 1)
      result = wrapMul(result, base);
    base = wrapMul(base, base);
  }
  return result;
}

/// `d` converted to int64, truncated toward zero and saturated (NaN: 0).
/// ONNX leaves out-of-range float-to-integer casts undefined; C++ makes
/// them undefined behaviour.
inline int64_t doubleToInt64(double d) {
  if (std::isnan(d))
    return 0;
  if (d >= 9223372036854775808.0) // 2^63
    return std::numeric_limits<int64_t>::max();
  if (d < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

/// `d` converted to uint64 the same way (negative values: 0).
inline uint64_t doubleToUInt64(double d) {
  if (!(d > 0))
    return 0;
  if (d >= 18446744073709551616.0) // 2^64
    return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(d);
}

/// a + b and a * b, nullopt on int64 overflow (shape arithmetic).
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

} // namespace mlir::llm::detail

#endif // LLM_LIB_TARGET_ONNX_ONNXINTEGERMATH_H
