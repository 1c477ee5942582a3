// RUN: llm-opt %s -llm-clone-empty-tensors -split-input-file | FileCheck %s
// RUN: llm-opt %s -llm-clone-empty-tensors="fills" -split-input-file | FileCheck %s --check-prefix=FILLS

// One tensor.empty shared by three destinations (as CSE leaves them)
// becomes one per destination, each right before its user.
// CHECK-LABEL: func.func @shared
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[A:.+]] = linalg.generic {{.*}} outs(%[[E1]] :
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[B:.+]] = linalg.generic {{.*}} outs(%[[E2]] :
// CHECK: linalg.generic {{.*}} outs(%[[E0]] :
// CHECK-NOT: tensor.empty
#id = affine_map<(d0) -> (d0)>
func.func @shared(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Dynamic sizes are reused by the clones; a user inside a nested region (the
// fill, and the yield of the else branch) gets its clone next to it.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[N:.+]]: index
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: scf.if
// CHECK-NEXT: %[[C:.+]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[C]] :
// CHECK: } else {
// CHECK-NEXT: %[[D:.+]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: linalg.fill {{.*}} outs(%[[E]] :
// CHECK-NOT: tensor.empty
func.func @dynamic(%n: index, %c: i1) -> (tensor<?xf32>, tensor<?xf32>) {
  %f = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = scf.if %c -> (tensor<?xf32>) {
    %t = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %t : tensor<?xf32>
  } else {
    scf.yield %e : tensor<?xf32>
  }
  %s = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r, %s : tensor<?xf32>, tensor<?xf32>
}

// -----

// With `fills`, a fill that CSE merged (the flash attention's running
// maximum and its per-tile row maximum both start at -inf) gets one fill per
// use, so that the loop's carried value has a buffer of its own.
// FILLS-LABEL: func.func @shared_fill
// FILLS:         %[[E0:.+]] = tensor.empty() : tensor<4xf32>
// FILLS-NEXT:    %[[F0:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4xf32>)
// FILLS:         scf.for {{.*}} iter_args(%[[A:.+]] = %[[F0]])
// FILLS-NEXT:      %[[E1:.+]] = tensor.empty() : tensor<4xf32>
// FILLS-NEXT:      %[[F1:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// FILLS-NEXT:      linalg.generic {{.*}} ins(%arg0, %[[A]] : {{.*}}) outs(%[[F1]] : tensor<4xf32>)
// Without it, the fill stays shared.
// CHECK-LABEL: func.func @shared_fill
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT:     linalg.fill
#id1 = affine_map<(d0) -> (d0)>
func.func @shared_fill(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %f) -> (tensor<4xf32>) {
    %m = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
        ins(%x, %a : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %v = arith.maximumf %in, %in2 : f32
      %w = arith.maximumf %v, %out : f32
      linalg.yield %w : f32
    } -> tensor<4xf32>
    scf.yield %m : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
