// The compile progress line (docs/llmc.md): on stderr, rewritten in place
// (`\r`, the line, then ESC [ K to clear the rest), cleared when the
// compilation ends or before a diagnostic; shown only when stderr is a
// terminal (--progress=auto, the default) or with --progress=always, and
// never with --quiet.
//
// RUN: llmc run %s --no-cache --progress=always > %t.out 2> %t.err
// RUN: %python %S/Inputs/show_progress.py < %t.err | FileCheck %s
// CHECK:      <CR>
// CHECK-NEXT: llmc: [  0%] parsing {{.*}}progress.mlir<EL><CR>
// CHECK-NEXT: <EL><CR>
// CHECK-NEXT: llmc: [ 10%] lowering: {{[a-z-]+}}<EL><CR>
// CHECK:      llmc: [ {{[1-4][0-9]}}%] lowering: convert-llm-to-linalg<EL><CR>
// CHECK:      llmc: [ 45%] translating to LLVM IR<EL><CR>
// CHECK-NEXT: llmc: [ 52%] LLVM IR optimization (-O3)<EL><CR>
// CHECK-NEXT: llmc: [ 70%] LLVM codegen<EL><CR>
// CHECK-NEXT: llmc: [ 97%] loading<EL><CR>
// CHECK-NEXT: <EL>{{$}}
// CHECK-NOT:  {{.}}
// The results on stdout are unchanged.
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// OUT:      input arg0: tensor<4x8xf32> not given, generated (seed 0)
// OUT-NEXT: out0: tensor<4x8xf32> sum=
//
// stderr is not a terminal here: by default nothing is shown; --quiet
// shows nothing even with --progress=always; --progress=never neither.
// RUN: llmc run %s --no-cache > %t.auto.out 2> %t.auto.err
// RUN: count 0 < %t.auto.err
// RUN: llmc run %s --no-cache --quiet --progress=always > %t.quiet.out 2> %t.quiet.err
// RUN: count 0 < %t.quiet.err
// RUN: llmc run %s --no-cache --progress=never > %t.never.out 2> %t.never.err
// RUN: count 0 < %t.never.err
// RUN: llmc compile %s -o %t.quiet.o --emit=obj --quiet 2> %t.compile-quiet.err
// RUN: count 0 < %t.compile-quiet.err
//
// `llmc compile` shows the same stages (no loading).
// RUN: llmc compile %s -o %t.o --emit=obj --progress=always 2> %t.compile.err
// RUN: %python %S/Inputs/show_progress.py < %t.compile.err | FileCheck %s --check-prefix=COMPILE
// COMPILE:      llmc: [  0%] parsing {{.*}}progress.mlir<EL><CR>
// COMPILE:      lowering: convert-llm-to-linalg<EL><CR>
// COMPILE:      llmc: [ 52%] LLVM IR optimization (-O3)<EL><CR>
// COMPILE-NEXT: llmc: [ 70%] LLVM codegen<EL><CR>
// COMPILE-NEXT: <EL>{{$}}
//
// A diagnostic clears the line first.
// RUN: not llmc run %S/Inputs/pass-failure.mlir --no-cache --progress=always 2> %t.fail.err
// RUN: %python %S/Inputs/show_progress.py < %t.fail.err | FileCheck %s --check-prefix=FAIL
// FAIL:      lowering: convert-llm-to-linalg<EL><CR>
// FAIL-NEXT: <EL>{{.*}}pass-failure.mlir:7:8: error: llm-to-linalg: dynamic shapes

func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = llm.add %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
