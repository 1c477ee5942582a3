// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-expand-strided-copies))" | FileCheck %s

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

// Left alone: contiguous copies (one memcpy) and dynamic shapes.
// CHECK-LABEL: func.func @untouched(
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<?x8xf32, strided<[16, 1]>> to memref<?x8xf32>
// CHECK-NOT:     linalg.copy
func.func @untouched(%a: memref<4x8xf32>, %b: memref<4x8xf32>,
                     %c: memref<?x8xf32, strided<[16, 1]>>, %d: memref<?x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %c, %d : memref<?x8xf32, strided<[16, 1]>> to memref<?x8xf32>
  return
}
