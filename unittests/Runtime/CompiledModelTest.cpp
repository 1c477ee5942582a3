//===- CompiledModelTest.cpp - Tests of the JIT runtime API ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CompiledModel.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::llm::runtime;

namespace {

constexpr const char *kModel = R"mlir(
func.func @scale(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = llm.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @bad(%a: i32) -> i32 {
  return %a : i32
}
)mlir";

class CompiledModelTest : public ::testing::Test {
protected:
  CompiledModelTest() : ctx(makeRegistry()) {
    ctx.getDiagEngine().registerHandler([this](Diagnostic &diag) {
      messages.push_back(diag.str());
      return success();
    });
    module = parseSourceString<ModuleOp>(kModel, &ctx);
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerRuntimeDialects(registry);
    return registry;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::vector<std::string> messages;
};

TEST_F(CompiledModelTest, Signature) {
  ASSERT_TRUE(module);
  FailureOr<EntrySignature> sig = getEntrySignature(*module, "scale");
  ASSERT_TRUE(succeeded(sig));
  ASSERT_EQ(sig->inputs.size(), 2u);
  ASSERT_EQ(sig->results.size(), 1u);
  EXPECT_EQ(sig->inputs[1].str(), "tensor<3xf32>");
  EXPECT_EQ(sig->results[0].str(), "tensor<2x3xf32>");

  EXPECT_TRUE(failed(getEntrySignature(*module, "bad")));
  EXPECT_TRUE(failed(getEntrySignature(*module, "missing")));
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1],
            "entry function @missing not found (public functions: @scale "
            "@bad)");
}

TEST_F(CompiledModelTest, InvokeOnCallerBuffers) {
  ASSERT_TRUE(module);
  CompileOptions options;
  options.entry = "scale";
  FailureOr<std::unique_ptr<CompiledModel>> model =
      CompiledModel::create(*module, options);
  ASSERT_TRUE(succeeded(model)) << (messages.empty() ? "" : messages[0]);

  HostTensor a(DType::F32, {2, 3}), b(DType::F32, {3}), out(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i)
    a.setFromDouble(i, i);
  for (int i = 0; i < 3; ++i)
    b.setFromDouble(i, 10 * (i + 1));
  ASSERT_FALSE(!!(*model)->invoke({a, b}, {out}));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out.getAsDouble(i), i * 10.0 * (i % 3 + 1));

  // Mismatching operands are reported and nothing runs.
  HostTensor wrong(DType::F32, {3, 2});
  llvm::Error e = (*model)->invoke({wrong, b}, {out});
  ASSERT_TRUE(!!e);
  EXPECT_EQ(llvm::toString(std::move(e)),
            "input #0: expected tensor<2x3xf32>, got shape 3x2 of f32");
  llvm::Error e2 = (*model)->invoke({a}, {out});
  ASSERT_TRUE(!!e2);
  EXPECT_EQ(llvm::toString(std::move(e2)),
            "@scale takes 2 inputs and 1 outputs, got 1 and 1");
}

TEST_F(CompiledModelTest, BadPipelineOptions) {
  ASSERT_TRUE(module);
  CompileOptions options;
  options.entry = "scale";
  options.lowering.pipelineOptions = "no-such-option=1";
  EXPECT_TRUE(failed(CompiledModel::create(*module, options)));
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages[0].find("invalid pipeline options"), std::string::npos);
}

/// A dynamic sequence length (llm.dim_bounds): one compiled module runs at
/// every length up to the bound, results take the inputs' length, and a
/// longer input or two different lengths are refused with a message.
TEST_F(CompiledModelTest, DynamicSequence) {
  constexpr const char *kDynamic = R"mlir(
func.func @rows(%x: tensor<?x3xf32> {llm.dim_bounds = array<i64: 4, 3>},
                %p: tensor<?xf32> {llm.dim_bounds = array<i64: 4>},
                %w: tensor<3x2xf32>) -> tensor<?x2xf32> {
  %0 = llm.matmul %x, %w : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %1 = llm.reshape %p : (tensor<?xf32>) -> tensor<?x1xf32>
  %2 = llm.add %0, %1 : (tensor<?x2xf32>, tensor<?x1xf32>) -> tensor<?x2xf32>
  return %2 : tensor<?x2xf32>
}
)mlir";
  OwningOpRef<ModuleOp> dyn = parseSourceString<ModuleOp>(kDynamic, &ctx);
  ASSERT_TRUE(dyn);
  FailureOr<EntrySignature> sig = getEntrySignature(*dyn, "rows");
  ASSERT_TRUE(succeeded(sig));
  EXPECT_EQ(sig->seqBound, 4);
  EXPECT_EQ(sig->inputs[0].str(), "tensor<?x3xf32>");
  EXPECT_EQ(sig->results[0].str(), "tensor<?x2xf32>");

  CompileOptions options;
  options.entry = "rows";
  FailureOr<std::unique_ptr<CompiledModel>> model =
      CompiledModel::create(*dyn, options);
  ASSERT_TRUE(succeeded(model)) << (messages.empty() ? "" : messages[0]);

  HostTensor w(DType::F32, {3, 2});
  for (int i = 0; i < 6; ++i)
    w.setFromDouble(i, i + 1); // [[1, 2], [3, 4], [5, 6]]
  for (int64_t n : {1, 3, 4}) {
    HostTensor x(DType::F32, {n, 3}), p(DType::F32, {n}),
        out(DType::F32, {n, 2});
    for (int64_t i = 0; i < 3 * n; ++i)
      x.setFromDouble(i, i % 3 == i / 3 % 3 ? 1.0 : 0.0);
    for (int64_t r = 0; r < n; ++r)
      p.setFromDouble(r, 100.0 * r);
    ASSERT_FALSE(!!(*model)->invoke({x, p, w}, {out})) << "n = " << n;
    // Row r of x is the unit vector e_(r % 3): row r % 3 of w, plus 100 r.
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < 2; ++c)
        EXPECT_EQ(out.getAsDouble(r * 2 + c),
                  2.0 * (r % 3) + c + 1 + 100.0 * r)
            << "n = " << n << ", row " << r;
  }

  HostTensor x5(DType::F32, {5, 3}), p5(DType::F32, {5}),
      out5(DType::F32, {5, 2});
  llvm::Error e = (*model)->invoke({x5, p5, w}, {out5});
  ASSERT_TRUE(!!e);
  EXPECT_EQ(llvm::toString(std::move(e)),
            "@rows: input #0 dimension 0 (the sequence length) is 5, outside "
            "[1, 4]: the model was compiled for sequences of at most 4 "
            "(llm.dim_bounds)");
  HostTensor x2(DType::F32, {2, 3}), p3(DType::F32, {3}),
      out2(DType::F32, {2, 2});
  llvm::Error e2 = (*model)->invoke({x2, p3, w}, {out2});
  ASSERT_TRUE(!!e2);
  EXPECT_EQ(llvm::toString(std::move(e2)),
            "@rows: input #1 dimension 0 is 3 but input #0 dimension 0 is 2 "
            "(every dynamic dimension is the one sequence length)");
  // An output of another length than the inputs'.
  HostTensor p2(DType::F32, {2}), out3(DType::F32, {3, 2});
  llvm::Error e3 = (*model)->invoke({x2, p2, w}, {out3});
  ASSERT_TRUE(!!e3);
  EXPECT_EQ(llvm::toString(std::move(e3)),
            "output #0: expected tensor<2x2xf32>, got shape 3x2 of f32");
}

} // namespace
