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

} // namespace
