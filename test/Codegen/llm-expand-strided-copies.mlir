// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-expand-strided-copies))" | FileCheck %s
// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-expand-strided-copies{parallel-min-bytes=0}))" | FileCheck %s --check-prefix=NOSPLIT
// A negative limit is an error (it meant no limit).
// RUN: not llm-opt %s --llm-expand-strided-copies="parallel-min-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT0
// NEGOPT0: error: llm-expand-strided-copies: parallel-min-bytes must be at least 0, got -1

// memref.copy(src, strided view) -> linalg.copy (loops, not the runtime's
// element-by-element memrefCopy): the concat of a KV cache along the
// sequence.
// CHECK-LABEL: func.func @into_view(
// CHECK:         %[[VIEW:.+]] = memref.subview
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%{{.+}} : memref<1x2x4x8xf32>) outs(%[[VIEW]] : memref<1x2x4x8xf32, strided<[80, 40, 8, 1]>>)
func.func @into_view(%src: memref<1x2x4x8xf32>, %dst: memref<1x2x5x8xf32>) {
  %view = memref.subview %dst[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1]
      : memref<1x2x5x8xf32> to memref<1x2x4x8xf32, strided<[80, 40, 8, 1]>>
  memref.copy %src, %view : memref<1x2x4x8xf32> to memref<1x2x4x8xf32, strided<[80, 40, 8, 1]>>
  return
}

// Left alone: contiguous copies (one memcpy), static or with a dynamic size
// in identity layouts.
// CHECK-LABEL: func.func @untouched(
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<?x8xf32> to memref<?x8xf32>
// CHECK-NOT:     linalg.copy
func.func @untouched(%a: memref<4x8xf32>, %b: memref<4x8xf32>,
                     %c: memref<?x8xf32>, %d: memref<?x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %c, %d : memref<?x8xf32> to memref<?x8xf32>
  return
}

// A strided view with a dynamic size (a row tile of a dynamic sequence):
// loops too, never split.
// CHECK-LABEL: func.func @dynamic_strided(
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%{{.+}} : memref<?x8xf32, strided<[16, 1]>>) outs(%{{.+}} : memref<?x8xf32>)
// CHECK-NOT:     scf.forall
func.func @dynamic_strided(%c: memref<?x8xf32, strided<[16, 1]>>, %d: memref<?x8xf32>) {
  memref.copy %c, %d : memref<?x8xf32, strided<[16, 1]>> to memref<?x8xf32>
  return
}

// A copy of at least parallel-min-bytes (default 256 KiB; here 1.5 MiB, a
// 12-head, 512-position KV cache) is split over its outermost non-unit
// dimension (the heads) into an scf.forall, one slice copy per iteration.
// CHECK-LABEL: func.func @large_into_view(
// CHECK-SAME:    %[[SRC:.+]]: memref<1x12x512x64xf32>, %[[DST:.+]]: memref<1x12x513x64xf32>)
// CHECK:         %[[VIEW:.+]] = memref.subview %[[DST]][0, 0, 0, 0] [1, 12, 512, 64]
// CHECK-NOT:     memref.copy
// CHECK:         scf.forall (%[[H:.+]]) in (12) {
// CHECK-DAG:       %[[S:.+]] = memref.subview %[[SRC]][0, %[[H]], 0, 0] [1, 1, 512, 64] [1, 1, 1, 1]
// CHECK-DAG:       %[[D:.+]] = memref.subview %[[VIEW]][0, %[[H]], 0, 0] [1, 1, 512, 64] [1, 1, 1, 1]
// CHECK:           linalg.copy ins(%[[S]] : {{.+}}) outs(%[[D]] : {{.+}})
// CHECK:         }
// NOSPLIT-LABEL: func.func @large_into_view(
// NOSPLIT-NOT:     scf.forall
// NOSPLIT:         linalg.copy ins(%{{.+}} : memref<1x12x512x64xf32>) outs(%{{.+}} : memref<1x12x512x64xf32, strided<[393984, 32832, 64, 1]>>)
func.func @large_into_view(%src: memref<1x12x512x64xf32>, %dst: memref<1x12x513x64xf32>) {
  %view = memref.subview %dst[0, 0, 0, 0] [1, 12, 512, 64] [1, 1, 1, 1]
      : memref<1x12x513x64xf32> to memref<1x12x512x64xf32, strided<[393984, 32832, 64, 1]>>
  memref.copy %src, %view : memref<1x12x512x64xf32> to memref<1x12x512x64xf32, strided<[393984, 32832, 64, 1]>>
  return
}
