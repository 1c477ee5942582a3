// RUN: llm-opt %s --pass-pipeline="builtin.module(func.func(llm-approximate-math))" | FileCheck %s

// math.tanh/erf/exp(x : f32 or vector of f32) -> polynomial approximation
// (arith ops only, no libm call).
// CHECK-LABEL: func.func @scalar(
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @scalar(%x: f32) -> (f32, f32, f32, f32) {
  %0 = math.tanh %x : f32
  %1 = math.erf %x : f32
  %2 = math.exp %x : f32
  %3 = math.expm1 %x : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}

// The vector form keeps the vector type (one approximation per vector).
// CHECK-LABEL: func.func @vector(
// CHECK-NOT:     math.exp
// CHECK:         arith.mulf {{.*}} : vector<16xf32>
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// Left alone: logarithms (subnormal inputs) and other element types.
// CHECK-LABEL: func.func @untouched(
// CHECK:         math.log %{{.*}} : f32
// CHECK:         math.exp %{{.*}} : f64
// CHECK:         math.tanh %{{.*}} : f16
func.func @untouched(%x: f32, %y: f64, %z: f16) -> (f32, f64, f16) {
  %0 = math.log %x : f32
  %1 = math.exp %y : f64
  %2 = math.tanh %z : f16
  return %0, %1, %2 : f32, f64, f16
}

