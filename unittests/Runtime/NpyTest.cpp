//===- NpyTest.cpp - Tests of host tensors and .npy files -----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Npy.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::llm::runtime;

namespace {

/// A version-1.0 .npy file with `dict` as header (padded) and `data`.
std::string makeNpy(const std::string &dict, const std::string &data,
                    int version = 1) {
  std::string header = dict;
  size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header.push_back(' ');
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(version));
  out.push_back(0);
  uint32_t len = header.size();
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>((len >> 8) & 0xff));
  if (version != 1) {
    out.push_back(0);
    out.push_back(0);
  }
  return out + header + data;
}

std::string errorOf(llvm::Expected<HostTensor> t) {
  if (t)
    return "";
  return llvm::toString(t.takeError());
}

TEST(Npy, RoundTripEveryDType) {
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16,
                      DType::I1, DType::I8, DType::I32, DType::I64}) {
    HostTensor t(dtype, {2, 3});
    for (int64_t i = 0; i < 6; ++i)
      t.setFromDouble(i, dtype == DType::I1 ? i % 2 : i - 2);
    llvm::Expected<HostTensor> back = parseNpy(serializeNpy(t), "mem", dtype);
    ASSERT_TRUE(!!back) << llvm::toString(back.takeError());
    EXPECT_EQ(back->getDType(), dtype);
    EXPECT_EQ(back->getShape(), llvm::ArrayRef<int64_t>({2, 3}));
    for (int64_t i = 0; i < 6; ++i)
      EXPECT_EQ(back->getAsDouble(i), t.getAsDouble(i)) << getDTypeName(dtype).str();
  }
}

TEST(Npy, DataIs64ByteAligned) {
  std::string bytes = serializeNpy(HostTensor(DType::F32, {3}));
  // numpy pads the header so that the data starts at a multiple of 64.
  EXPECT_EQ((bytes.size() - 12) % 64, 0u);
  HostTensor t(DType::I8, {5});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.getData()) % 64, 0u);
}

TEST(Npy, ScalarAndRank1Headers) {
  std::string scalar = serializeNpy(HostTensor(DType::F32, {}));
  EXPECT_NE(scalar.find("'shape': ()"), std::string::npos);
  std::string vec = serializeNpy(HostTensor(DType::F32, {7}));
  EXPECT_NE(vec.find("'shape': (7,)"), std::string::npos);
  llvm::Expected<HostTensor> t = parseNpy(scalar, "mem");
  ASSERT_TRUE(!!t);
  EXPECT_EQ(t->getRank(), 0);
  EXPECT_EQ(t->getNumElements(), 1);
}

TEST(Npy, Versions2And3) {
  std::string data(8, '\0');
  for (int version : {2, 3}) {
    llvm::Expected<HostTensor> t = parseNpy(
        makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                data, version),
        "mem");
    ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
    EXPECT_EQ(t->getDType(), DType::I32);
  }
}

TEST(Npy, Bf16FromF32) {
  float values[2] = {1.0f, 1.00390625f}; // the second rounds to even: 1.0
  std::string data(reinterpret_cast<char *>(values), 8);
  llvm::Expected<HostTensor> t = parseNpy(
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
              data),
      "mem", DType::BF16);
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_EQ(t->getDType(), DType::BF16);
  EXPECT_EQ(t->getAsDouble(1), 1.0);
}

TEST(Npy, Errors) {
  std::string f32x2(8, '\0');
  EXPECT_EQ(errorOf(parseNpy("hello", "a.npy")),
            "a.npy: not a .npy file (bad magic string)");
  EXPECT_EQ(
      errorOf(parseNpy(
          makeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                  f32x2),
          "a.npy")),
      "a.npy: big-endian data ('>f4') is not supported; convert with "
      "arr.astype(arr.dtype.newbyteorder('<'))");
  EXPECT_EQ(
      errorOf(parseNpy(
          makeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
                  f32x2),
          "a.npy")),
      "a.npy: fortran_order arrays are not supported; save a C-order array "
      "(np.ascontiguousarray)");
  EXPECT_EQ(
      errorOf(parseNpy(
          makeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                  f32x2),
          "a.npy")),
      "a.npy: unsupported dtype '<c8' (supported: <f4 <f8 <f2 |b1 |i1 <i4 "
      "<i8)");
  EXPECT_EQ(
      errorOf(parseNpy(
          makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                  f32x2),
          "a.npy")),
      "a.npy: truncated .npy data: shape 3 of '<f4' needs 12 bytes, the file "
      "has 8");
  EXPECT_EQ(
      errorOf(parseNpy(
          makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                  f32x2),
          "a.npy")),
      "a.npy: corrupt .npy file: 4 unexpected bytes after the data");
  EXPECT_EQ(
      errorOf(parseNpy(
          makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                  f32x2),
          "a.npy", DType::I32)),
      "a.npy: expected dtype i32 ('<i4'), got '<f4' (f32)");
  EXPECT_EQ(
      errorOf(parseNpy(
          makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
                  f32x2),
          "a.npy")),
      "a.npy: malformed .npy header: 'shape' must be a tuple of non-negative "
      "integers");
  EXPECT_EQ(
      errorOf(parseNpy(makeNpy("{'descr': '<f4', 'shape': (2,), }", f32x2),
                       "a.npy")),
      "a.npy: malformed .npy header: header lacks 'descr', 'fortran_order' "
      "or 'shape'");
  EXPECT_EQ(errorOf(parseNpy(
                makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(1000000000, 1000000000, 1000000000), }",
                        f32x2),
                "a.npy")),
            "a.npy: shape (1000000000x1000000000x1000000000) is too large");
}

// readNpy reads files, not streams, and the header before the data.
TEST(Npy, ReadNpyFromFiles) {
  llvm::SmallString<128> prefix, dir;
  llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, prefix);
  llvm::sys::path::append(prefix, "llmc-npy-test");
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, dir));
  auto path = [&](llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  auto write = [&](const std::string &name, const std::string &bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path(name), ec);
    ASSERT_FALSE(ec);
    os << bytes;
  };
  std::string f32x6(24, '\0');
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  write("good.npy", makeNpy(dict, f32x6));
  write("good2.npy", makeNpy(dict, f32x6, /*version=*/2));
  llvm::Expected<HostTensor> good = readNpy(path("good.npy"));
  ASSERT_TRUE(!!good) << llvm::toString(good.takeError());
  EXPECT_EQ(good->getNumElements(), 6);
  llvm::Expected<HostTensor> good2 = readNpy(path("good2.npy"));
  ASSERT_TRUE(!!good2) << llvm::toString(good2.takeError());
  EXPECT_EQ(good2->getNumElements(), 6);
  // bf16 from f32, converted while read.
  llvm::Expected<HostTensor> bf16 = readNpy(path("good.npy"), DType::BF16);
  ASSERT_TRUE(!!bf16) << llvm::toString(bf16.takeError());
  EXPECT_EQ(bf16->getDType(), DType::BF16);

  // A 40 GB shape in a small file: the size is checked before allocating.
  write("huge.npy",
        makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                "(100000, 100000), }",
                f32x6));
  EXPECT_EQ(errorOf(readNpy(path("huge.npy"))),
            path("huge.npy") +
                ": truncated .npy data: shape 100000x100000 of '<f4' needs "
                "40000000000 bytes, the file has 24");
  std::string full = makeNpy(dict, f32x6);
  write("header.npy", full.substr(0, 20));
  EXPECT_EQ(errorOf(readNpy(path("header.npy"))),
            path("header.npy") +
                ": truncated .npy header (header length 118, file size 20)");
  write("tiny.npy", full.substr(0, 8));
  EXPECT_EQ(errorOf(readNpy(path("tiny.npy"))),
            path("tiny.npy") + ": truncated .npy header");
  write("empty.npy", "");
  EXPECT_EQ(errorOf(readNpy(path("empty.npy"))),
            path("empty.npy") + ": not a .npy file (bad magic string)");

  // Not regular files: refused without being opened (a FIFO would block).
  ASSERT_EQ(::mkfifo(path("fifo.npy").c_str(), 0600), 0);
  EXPECT_EQ(errorOf(readNpy(path("fifo.npy"))),
            path("fifo.npy") + ": cannot read file: a FIFO; .npy inputs "
                               "must be regular files");
  EXPECT_EQ(errorOf(readNpy(dir)),
            std::string(dir) + ": cannot read file: Is a directory");
  EXPECT_EQ(errorOf(readNpy(path("missing.npy"))),
            path("missing.npy") +
                ": cannot read file: No such file or directory");

  for (const char *name : {"good.npy", "good2.npy", "huge.npy", "header.npy",
                           "tiny.npy", "empty.npy"})
    llvm::sys::fs::remove(path(name));
  // (llvm::sys::fs::remove removes regular files, links and directories.)
  ::unlink(path("fifo.npy").c_str());
  llvm::sys::fs::remove(dir);
}

} // namespace

TEST(Npy, AllocateReportsErrors) {
  llvm::Expected<HostTensor> ok = HostTensor::allocate(DType::F32, {2, 3});
  ASSERT_TRUE(!!ok) << llvm::toString(ok.takeError());
  EXPECT_EQ(ok->getAsDouble(5), 0.0);
  EXPECT_EQ(errorOf(HostTensor::allocate(DType::F32,
                                         {4611686018427387905, 4})),
            "shape 4611686018427387905x4 is too large: its size in bytes "
            "overflows int64");
  // 1 PiB: more than any address space this runs in.
  EXPECT_EQ(errorOf(HostTensor::allocate(DType::F32, {70368744177664, 4})),
            "cannot allocate 1125899906842624 bytes");
}
