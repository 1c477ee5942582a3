//===- Npy.h - Host tensors and .npy files ----------------------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Host tensors (owning, 64-byte aligned, row-major) and their .npy file
// format, as read and written by `llmc run` and the runtime library.
//
// Supported .npy files (https://numpy.org/neps/nep-0001-npy-format.html):
// format versions 1.0, 2.0 and 3.0, `fortran_order: False`, little-endian
// (or byte-order-free) element types:
//
//   DType  numpy descr   MLIR type
//   F32    '<f4'         f32
//   F64    '<f8'         f64
//   F16    '<f2'         f16
//   BF16   (none)        bf16   (numpy has no bfloat16: files hold '<f4'
//                               values, rounded to nearest-even on read and
//                               widened exactly on write)
//   I1     '|b1'         i1     (one byte per element, 0 or 1)
//   I8     '|i1'         i8
//   I32    '<i4'         i32
//   I64    '<i8'         i64
//
// Big-endian data, Fortran order, structured/object dtypes and truncated
// files are rejected with an error that names the file.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_NPY_H
#define LLM_RUNTIME_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
class Type;
class MLIRContext;
} // namespace mlir

namespace mlir::llm::runtime {

/// Element types a host tensor can hold.
enum class DType { F32, F64, F16, BF16, I1, I8, I32, I64 };

/// Size in bytes of one element of `dtype` (I1 is one byte).
int64_t getDTypeSize(DType dtype);

/// The MLIR spelling of `dtype` ("f32", "bf16", "i1", ...).
llvm::StringRef getDTypeName(DType dtype);

/// The numpy `descr` used for `dtype` in .npy files ('<f4', '|b1', ...).
/// BF16 is stored as '<f4' (see the file comment).
llvm::StringRef getNpyDescr(DType dtype);

/// The DType of an MLIR element type, or std::nullopt when unsupported.
std::optional<DType> getDTypeFromType(mlir::Type type);

/// The MLIR element type of `dtype`.
mlir::Type getTypeFromDType(mlir::MLIRContext *ctx, DType dtype);

/// Number of elements of `shape` (1 for rank 0).
int64_t getNumElements(llvm::ArrayRef<int64_t> shape);

/// Formats a shape as `2x3` (rank 0: `scalar`) for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// An owning, row-major host tensor with 64-byte aligned storage.
class HostTensor {
public:
  HostTensor() = default;
  /// Allocates a zero-filled tensor. `shape` must have no negative sizes and
  /// its size must be known to fit (this aborts with a bad_alloc error when
  /// the memory cannot be allocated); use `allocate` for untrusted shapes.
  HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape);

  /// Allocates a zero-filled tensor without aborting: an error "cannot
  /// allocate N bytes" when the memory is not available, or "shape ... is
  /// too large" when the size in bytes overflows int64.
  static llvm::Expected<HostTensor> allocate(DType dtype,
                                             llvm::ArrayRef<int64_t> shape);

  DType getDType() const { return dtype; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  int64_t getNumElements() const { return runtime::getNumElements(shape); }
  int64_t getSizeInBytes() const {
    return getNumElements() * getDTypeSize(dtype);
  }
  void *getData() { return data.get(); }
  const void *getData() const { return data.get(); }

  /// Element `i` (row-major linear index) converted to double.
  double getAsDouble(int64_t i) const;
  /// Stores `value` into element `i`, converting (truncating for integers,
  /// rounding to nearest-even for f16/bf16, `value != 0` for i1).
  void setFromDouble(int64_t i, double value);

private:
  /// Allocates `bytes` of zeroed 64-byte aligned memory; null on failure.
  static void *allocateZeroed(int64_t bytes);

  struct FreeDeleter {
    void operator()(void *p) const;
  };
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::unique_ptr<void, FreeDeleter> data;
};

/// Parses the bytes of a .npy file into a host tensor. When `expected` is
/// given, the file's element type must be the one stored for it (see
/// `getNpyDescr`; for BF16 a '<f4' file is converted). Errors name `name`.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes, llvm::StringRef name,
                                    std::optional<DType> expected = {});

/// Reads the .npy file at `path` (see `parseNpy`). Only a regular file (or a
/// link to one) is read: a directory, device, FIFO or socket is an error,
/// before anything is read from it. The header is read first and checked
/// (with the data size it declares) against the file's size; then exactly
/// the declared data is read into the new tensor.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path,
                                   std::optional<DType> expected = {});

/// Serializes `tensor` as a version 1.0 .npy file (BF16 widened to '<f4').
std::string serializeNpy(const HostTensor &tensor);

/// Writes `tensor` to `path` as `mlir::llm::writeFile` does
/// (llm/Support/OutputFile.h): a regular file atomically (a temporary file in
/// the same directory renamed over `path` once complete), a device or FIFO
/// in place, "-" to stdout; every write is checked.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_NPY_H
