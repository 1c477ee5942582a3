// Inputs that are not given are generated from a seeded generator (and llmc
// says so); the same seed gives the same results. --repeat prints the median
// and minimum over the timed runs after one warm-up.
//
// RUN: llmc run %s | FileCheck %s
// RUN: llmc run %s --repeat 5 --threads 2 | FileCheck %s --check-prefix=REPEAT
// RUN: llmc run %s --seed 7 | FileCheck %s --check-prefix=SEED7
// RUN: llmc run %s > %t.a && llmc run %s --repeat 3 > %t.b
// RUN: grep out0 %t.a > %t.a0 && grep out0 %t.b > %t.b0 && diff %t.a0 %t.b0
// Seed 0 vs seed 7 differ.
// RUN: llmc run %s --seed 7 | grep out0 > %t.c0 && not diff %t.a0 %t.c0
//
// Generated inputs are reproducible in numpy terms too: they are written
// nowhere, but the checksum of out0 = arg0 + arg1 is stable.
// CHECK: input arg0: tensor<4x8xf32> not given, generated (seed 0)
// CHECK-NEXT: input arg1: tensor<8xi32> not given, generated (seed 0)
// CHECK-NEXT: out0: tensor<4x8xf32> sum=[[SUM:-?[0-9.e+-]+]] mean_abs=
// CHECK-NEXT: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (1 run after 0 warm-up)
// REPEAT: out0: tensor<4x8xf32>
// REPEAT-NEXT: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (5 runs after 1 warm-up)
// SEED7: input arg0: tensor<4x8xf32> not given, generated (seed 7)

#map2 = affine_map<(i, j) -> (i, j)>
#map1 = affine_map<(i, j) -> (j)>
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8xi32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#map2, #map1, #map2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8xi32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: i32, %o: f32):
    %yf = arith.sitofp %y : i32 to f32
    %s = arith.addf %x, %yf : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
