// `--mlir-timing`: the wall time of each compile stage on stderr (in the
// order first seen, then the total) and MLIR's pass timing of the lowering;
// the outputs are the same as without it.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: llmc compile %s -o %t/timed.o --emit=obj --mlir-timing 2> %t/compile.err
// RUN: FileCheck %s --check-prefix=COMPILE < %t/compile.err
// COMPILE: Execution time report
// COMPILE: LLMVerifyCallGraphPass
// COMPILE: ConvertLLMToLinalgPass
// COMPILE: ===- llmc compile stages -===
// COMPILE-NEXT: {{ +[0-9]+\.[0-9]{3} s \( *[0-9.]+%\)  parsing$}}
// COMPILE-NEXT: {{ +[0-9]+\.[0-9]{3} s \( *[0-9.]+%\)  lowering$}}
// COMPILE-NEXT: {{ +[0-9]+\.[0-9]{3} s \( *[0-9.]+%\)  translating to LLVM IR$}}
// COMPILE-NEXT: {{ +[0-9]+\.[0-9]{3} s \( *[0-9.]+%\)  LLVM IR optimization \(-O3\)$}}
// COMPILE-NEXT: {{ +[0-9]+\.[0-9]{3} s \( *[0-9.]+%\)  LLVM codegen$}}
// COMPILE-NEXT: {{ +[0-9]+\.[0-9]{3} s \( *[0-9.]+%\)  writing the outputs$}}
// COMPILE-NEXT: {{ +[0-9]+\.[0-9]{3} s \(100\.0%\)  total$}}
// RUN: llmc compile %s -o %t/plain.o --emit=obj
// RUN: cmp %t/timed.o %t/plain.o
//
// llmc run: the stages up to loading the compiled code.
// RUN: llmc run %s --mlir-timing 2>&1 | FileCheck %s --check-prefix=JIT
// JIT: ===- llmc compile stages -===
// JIT-NEXT: parsing
// JIT: lowering
// JIT: LLVM codegen
// JIT: loading
// JIT: total
// Without the flag, neither table.
// RUN: llmc run %s 2>&1 | FileCheck %s --check-prefix=NONE
// NONE-NOT: compile stages
// NONE-NOT: Execution time report

func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = llm.gelu %x approximate <tanh> : tensor<4x8xf32>
  %1 = llm.add %0, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
