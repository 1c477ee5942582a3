// `llmc compile`: LLVM-dialect MLIR, LLVM IR, and an object whose only
// exported function is the C interface (linked with a C main and run).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: llmc compile %s -o %t/model.ll.mlir --emit=mlir
// RUN: FileCheck %s --check-prefix=MLIR < %t/model.ll.mlir
// The IR is verified after each stage by default and after every pass with
// --verify-each, which changes nothing but the compile time.
// RUN: llmc compile %s -o %t/model-verify-each.ll.mlir --emit=mlir --verify-each
// RUN: cmp %t/model.ll.mlir %t/model-verify-each.ll.mlir
// MLIR: llvm.func @main(
// MLIR: llvm.func @_mlir_ciface_main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// MLIR-NOT: func.func
//
// RUN: llmc compile %s -o %t/model.ll --emit=llvm
// RUN: FileCheck %s --check-prefix=LLVM < %t/model.ll
// LLVM-NOT: define {{.*}}@main(
// LLVM: define void @_mlir_ciface_main(ptr {{.*}}, ptr {{.*}}, ptr {{.*}}, ptr {{.*}})
// LLVM-NOT: define {{.*}}@main(
//
// RUN: llmc compile %s -o %t/model.o --emit=obj
// RUN: clang-22 %S/Inputs/main.c %t/model.o -o %t/prog -lm
// RUN: %t/prog | FileCheck %s --check-prefix=EXEC
// RUN: llmc compile %s -o %t/model-ref.o --emit=obj --no-opt --opt-level=0
// RUN: clang-22 %S/Inputs/main.c %t/model-ref.o -o %t/prog-ref -lm
// RUN: %t/prog-ref | FileCheck %s --check-prefix=EXEC
// EXEC: 10 21 32 13 24 35
// EXEC-NEXT: sum 135
//
// '-o -' writes to stdout.
// RUN: llmc compile %s -o - --emit=llvm | FileCheck %s --check-prefix=LLVM
//
// Refuses to overwrite the model; bad entry; unknown --emit.
// RUN: cp %s %t/model.mlir && cp %s %t/orig.mlir
// RUN: not llmc compile %t/model.mlir -o %t/model.mlir --emit=obj 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: llmc: error: output '{{.*}}model.mlir' would overwrite the model file
// RUN: cmp %t/model.mlir %t/orig.mlir
// RUN: not llmc compile %s -o %t/bad.o --emit=obj --entry foo 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: compile.mlir:1:1: error: entry function @foo not found (public functions: @main)
// RUN: not llmc compile %s -o %t/bad.o --emit=wasm 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: Cannot find option named 'wasm'
// RUN: not llmc compile %s -o %t/nodir/x.o --emit=obj 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: llmc: error: cannot write '{{.*}}x.o': No such file or directory
// RUN: test ! -e %t/bad.o

func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>)
    -> (tensor<2x3xf32>, tensor<f32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%r : tensor<2x3xf32>) outs(%acc : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %out: f32) {
      %t = arith.addf %in, %out : f32
      linalg.yield %t : f32
    }
  return %r, %sum : tensor<2x3xf32>, tensor<f32>
}
