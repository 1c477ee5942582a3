// RUN: llm-opt %s -convert-llm-to-linalg -split-input-file | FileCheck %s

// llm.embedding and llm.gather check their run-time indices first: a
// reduction to min and max, compared with [-size, size); the first failure
// of a call is stored in @__llmc_status as [check number, index, size].
// The checks are numbered in program order and listed in llm.index_checks.
// CHECK: module attributes {llm.index_checks = ["llm.embedding at {{.*}}convert-llm-to-linalg-index-checks.mlir:43:8", "llm.gather at {{.*}}convert-llm-to-linalg-index-checks.mlir:44:8"]}
// CHECK: memref.global "public" @__llmc_status : memref<4xi64> = dense<0>
// CHECK-LABEL: func.func @two_checks
// CHECK-SAME: (%[[IDS:.+]]: tensor<1x4xi64>, %[[IDX:.+]]: tensor<3xi32>)
// CHECK: %[[MM:.+]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[IDS]] : tensor<1x4xi64>)
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: %[[MIN:.+]] = tensor.extract %[[MM]]#0[]
// CHECK: %[[MAX:.+]] = tensor.extract %[[MM]]#1[]
// CHECK: %[[HI:.+]] = arith.cmpi sge, %[[MAX]], %c16_i64
// CHECK: %[[LO:.+]] = arith.cmpi slt, %[[MIN]], %c-16_i64
// CHECK: %[[BAD:.+]] = arith.ori %[[HI]], %[[LO]]
// CHECK: %[[VALUE:.+]] = arith.select %[[HI]], %[[MAX]], %[[MIN]]
// CHECK: scf.if %[[BAD]] {
// CHECK: %[[S:.+]] = memref.get_global @__llmc_status
// CHECK: %[[FIRST:.+]] = memref.load %[[S]]
// CHECK: %[[NONE:.+]] = arith.cmpi eq, %[[FIRST]], %c0_i64
// CHECK: scf.if %[[NONE]] {
// CHECK: memref.store %c1_i64, %[[S]]
// CHECK: memref.store %[[VALUE]], %[[S]]
// CHECK: memref.store %c16_i64{{.*}}, %[[S]]
// The embedding itself follows (and still clamps).
// CHECK: linalg.generic
// CHECK: arith.minsi
// The gather's check: i32 indices, widened to i64 for the status, number 2.
// CHECK: linalg.generic {{.*}} ins(%[[IDX]] : tensor<3xi32>)
// CHECK: arith.cmpi sge, %{{.+}}, %c5_i32
// CHECK: arith.cmpi slt, %{{.+}}, %c-5_i32
// CHECK: scf.if
// CHECK: scf.if
// CHECK: %[[WIDE:.+]] = arith.extsi %{{.+}} : i32 to i64
// CHECK: memref.store %c2_i64
// CHECK: memref.store %[[WIDE]]
func.func @two_checks(%ids: tensor<1x4xi64>, %idx: tensor<3xi32>) -> (tensor<1x4x8xf32>, tensor<3x2xf32>) {
  %t = llm.constant dense<1.0> : tensor<16x8xf32>
  %x = llm.constant dense<2.0> : tensor<5x2xf32>
  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<1x4xi64>) -> tensor<1x4x8xf32>
  %1 = llm.gather %x, %idx {axis = 0 : i64} : (tensor<5x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<1x4x8xf32>, tensor<3x2xf32>
}

// -----

// A module without embedding or gather gets no status and no attribute.
// CHECK-NOT: llm.index_checks
// CHECK-NOT: __llmc_status
// CHECK-LABEL: func.func @no_checks
func.func @no_checks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

