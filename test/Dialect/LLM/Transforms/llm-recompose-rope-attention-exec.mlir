// Execution check of the RoPE and attention recompositions of llm-recompose:
// @main spells out (as torch exports them) a rotate-half RoPE with constant
// cos/sin tables (theta 10000, positions 0..7) on q and k, grouped-query
// attention with K/V heads repeated by reshape/broadcast_to/reshape and a
// constant -inf triu causal mask, and a rank-3 [B*H, S, D] attention with
// the scale on q. It runs through `llmc run --no-opt` as written (no
// recomposition, materialized attention) and through `llmc run` after
// --llm-recompose (llm.rope, causal GQA llm.attention, flash lowering); the
// outputs must agree (f32: rtol 1e-5, atol 1e-6), and the decomposed outputs
// must match the numpy reference of test/lib/llmc_ref.py (rope, attention).
//
// RUN: rm -rf %t && mkdir -p %t/decomposed %t/recomposed
// RUN: %python -m llmc_check gen %t q=1x4x8x16xf32 k=1x2x8x16xf32 v=1x2x8x16xf32 q3=4x8x16xf32 k3=4x8x16xf32 v3=4x8x16xf32
// RUN: llm-opt %s --llm-recompose -o %t/recomposed.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t/recomposed.mlir
// RUN: llmc run %s --no-opt --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/q3.npy --input arg4=%t/k3.npy --input arg5=%t/v3.npy --output-dir %t/decomposed > /dev/null
// RUN: llmc run %t/recomposed.mlir --input arg0=%t/q.npy --input arg1=%t/k.npy --input arg2=%t/v.npy --input arg3=%t/q3.npy --input arg4=%t/k3.npy --input arg5=%t/v3.npy --output-dir %t/recomposed > /dev/null
// RUN: %python -m llmc_check expr "rope(q, np.arange(8))" --arg q=%t/q.npy --actual %t/decomposed/out0.npy --name rope_ref | FileCheck %s --check-prefix=CHECK-ROPE-REF
// RUN: %python -m llmc_check expr "d" --arg d=%t/decomposed/out0.npy --actual %t/recomposed/out0.npy --name rope | FileCheck %s --check-prefix=CHECK-ROPE
// RUN: %python -m llmc_check expr "attention(rope(q, np.arange(8)), rope(k, np.arange(8)), v, causal=True)" --arg q=%t/q.npy --arg k=%t/k.npy --arg v=%t/v.npy --actual %t/decomposed/out1.npy --name gqa_ref | FileCheck %s --check-prefix=CHECK-GQA-REF
// RUN: %python -m llmc_check expr "d" --arg d=%t/decomposed/out1.npy --actual %t/recomposed/out1.npy --name gqa | FileCheck %s --check-prefix=CHECK-GQA
// RUN: %python -m llmc_check expr "attention(q3[None], k3[None], v3[None], scale=0.25)[0]" --arg q3=%t/q3.npy --arg k3=%t/k3.npy --arg v3=%t/v3.npy --actual %t/decomposed/out2.npy --name rank3_ref | FileCheck %s --check-prefix=CHECK-RANK3-REF
// RUN: %python -m llmc_check expr "d" --arg d=%t/decomposed/out2.npy --actual %t/recomposed/out2.npy --name rank3 | FileCheck %s --check-prefix=CHECK-RANK3

// CHECK-ROPE-REF: rope_ref: {{.*}} PASS
// CHECK-ROPE: rope: {{.*}} PASS
// CHECK-GQA-REF: gqa_ref: {{.*}} PASS
// CHECK-GQA: gqa: {{.*}} PASS
// CHECK-RANK3-REF: rank3_ref: {{.*}} PASS
// CHECK-RANK3: rank3: {{.*}} PASS

// FUSED: %[[QR:.+]] = llm.rope %arg0, %{{.+}} : (tensor<1x4x8x16xf32>, tensor<8xi64>) -> tensor<1x4x8x16xf32>
// FUSED: %[[KR:.+]] = llm.rope %arg1, %{{.+}} : (tensor<1x2x8x16xf32>, tensor<8xi64>) -> tensor<1x2x8x16xf32>
// FUSED: llm.attention %[[QR]], %[[KR]], %arg2 {causal, scale = 2.500000e-01 : f32} : (tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32>
// FUSED: llm.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 2.500000e-01 : f32} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
// FUSED-NOT: llm.{{(neg|concat|slice|softmax|broadcast_to|div|matmul) }}

func.func @main(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
                %q3: tensor<4x8x16xf32>, %k3: tensor<4x8x16xf32>, %v3: tensor<4x8x16xf32>)
    -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<4x8x16xf32>) {
  %cos = llm.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.5403022766113281, 0.9504152536392212, 0.9950041770935059, 0.999500036239624, 0.9999499917030334, 0.9999949932098389, 0.9999995231628418, 0.9999999403953552, 0.5403022766113281, 0.9504152536392212, 0.9950041770935059, 0.999500036239624, 0.9999499917030334, 0.9999949932098389, 0.9999995231628418, 0.9999999403953552], [-0.41614681482315063, 0.8065783977508545, 0.9800665974617004, 0.9980006814002991, 0.9998000264167786, 0.9999799728393555, 0.9999979734420776, 0.9999998211860657, -0.41614681482315063, 0.8065783977508545, 0.9800665974617004, 0.9980006814002991, 0.9998000264167786, 0.9999799728393555, 0.9999979734420776, 0.9999998211860657], [-0.9899924993515015, 0.582753598690033, 0.9553365111351013, 0.9955033659934998, 0.9995500445365906, 0.9999549984931946, 0.9999955296516418, 0.9999995231628418, -0.9899924993515015, 0.582753598690033, 0.9553365111351013, 0.9955033659934998, 0.9995500445365906, 0.9999549984931946, 0.9999955296516418, 0.9999995231628418], [-0.6536436080932617, 0.3011374771595001, 0.9210609793663025, 0.9920106530189514, 0.9992001056671143, 0.9999200105667114, 0.9999920129776001, 0.9999992251396179, -0.6536436080932617, 0.3011374771595001, 0.9210609793663025, 0.9920106530189514, 0.9992001056671143, 0.9999200105667114, 0.9999920129776001, 0.9999992251396179], [0.28366217017173767, -0.010342338122427464, 0.8775825500488281, 0.987525999546051, 0.9987502694129944, 0.999875009059906, 0.9999874830245972, 0.9999987483024597, 0.28366217017173767, -0.010342338122427464, 0.8775825500488281, 0.987525999546051, 0.9987502694129944, 0.999875009059906, 0.9999874830245972, 0.9999987483024597], [0.9601702690124512, -0.3207963705062866, 0.8253356218338013, 0.9820539355278015, 0.998200535774231, 0.9998199939727783, 0.9999819993972778, 0.9999982118606567, 0.9601702690124512, -0.3207963705062866, 0.8253356218338013, 0.9820539355278015, 0.998200535774231, 0.9998199939727783, 0.9999819993972778, 0.9999982118606567], [0.7539022564888, -0.5994374752044678, 0.7648422122001648, 0.9755998849868774, 0.9975510239601135, 0.9997550249099731, 0.9999755024909973, 0.9999975562095642, 0.7539022564888, -0.5994374752044678, 0.7648422122001648, 0.9755998849868774, 0.9975510239601135, 0.9997550249099731, 0.9999755024909973, 0.9999975562095642]]> : tensor<8x16xf32>
  %sin = llm.constant dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.8414710164070129, 0.3109835982322693, 0.0998334214091301, 0.031617507338523865, 0.009999833069741726, 0.003162272507324815, 0.0009999999310821295, 0.0003162277862429619, 0.8414710164070129, 0.3109835982322693, 0.0998334214091301, 0.031617507338523865, 0.009999833069741726, 0.003162272507324815, 0.0009999999310821295, 0.0003162277862429619], [0.9092974066734314, 0.5911270976066589, 0.19866932928562164, 0.06320340186357498, 0.019998665899038315, 0.006324513349682093, 0.0019999986980110407, 0.0006324555142782629, 0.9092974066734314, 0.5911270976066589, 0.19866932928562164, 0.06320340186357498, 0.019998665899038315, 0.006324513349682093, 0.0019999986980110407, 0.0006324555142782629], [0.14112000167369843, 0.8126488924026489, 0.29552021622657776, 0.0947260931134224, 0.029995499178767204, 0.00948669109493494, 0.0029999956022948027, 0.0009486832423135638, 0.14112000167369843, 0.8126488924026489, 0.29552021622657776, 0.0947260931134224, 0.029995499178767204, 0.00948669109493494, 0.0029999956022948027, 0.0009486832423135638], [-0.756802499294281, 0.9535807371139526, 0.3894183337688446, 0.1261540800333023, 0.03998933359980583, 0.012648774310946465, 0.003999989479780197, 0.001264910795725882, -0.756802499294281, 0.9535807371139526, 0.3894183337688446, 0.1261540800333023, 0.03998933359980583, 0.012648774310946465, 0.003999989479780197, 0.001264910795725882], [-0.9589242935180664, 0.9999465346336365, 0.4794255495071411, 0.1574559062719345, 0.04997916519641876, 0.015810729935765266, 0.0049999793991446495, 0.0015811382327228785, -0.9589242935180664, 0.9999465346336365, 0.4794255495071411, 0.1574559062719345, 0.04997916519641876, 0.015810729935765266, 0.0049999793991446495, 0.0015811382327228785], [-0.279415488243103, 0.9471482038497925, 0.5646424889564514, 0.18860028684139252, 0.059964004904031754, 0.018972529098391533, 0.0059999641962349415, 0.001897365553304553, -0.279415488243103, 0.9471482038497925, 0.5646424889564514, 0.18860028684139252, 0.059964004904031754, 0.018972529098391533, 0.0059999641962349415, 0.001897365553304553], [0.6569865942001343, 0.8004215955734253, 0.6442176699638367, 0.21955610811710358, 0.06994284689426422, 0.02213413640856743, 0.0069999429397284985, 0.002213592641055584, 0.6569865942001343, 0.8004215955734253, 0.6442176699638367, 0.21955610811710358, 0.06994284689426422, 0.02213413640856743, 0.0069999429397284985, 0.002213592641055584]]> : tensor<8x16xf32>
  %mask = llm.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  // q * cos + rotate_half(q) * sin
  %q1 = llm.slice %q {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 4, 8, 8>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
  %q2 = llm.slice %q {starts = array<i64: 0, 0, 0, 8>, limits = array<i64: 1, 4, 8, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
  %qn = llm.neg %q2 : tensor<1x4x8x8xf32>
  %qrot = llm.concat %qn, %q1 {axis = -1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
  %qc = llm.mul %q, %cos : (tensor<1x4x8x16xf32>, tensor<8x16xf32>) -> tensor<1x4x8x16xf32>
  %qs = llm.mul %qrot, %sin : (tensor<1x4x8x16xf32>, tensor<8x16xf32>) -> tensor<1x4x8x16xf32>
  %qe = llm.add %qc, %qs : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  // k * cos + rotate_half(k) * sin (other operand orders)
  %k1 = llm.slice %k {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 2, 8, 8>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %k2 = llm.slice %k {starts = array<i64: 0, 0, 0, 8>, limits = array<i64: 1, 2, 8, 16>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %kn = llm.neg %k2 : tensor<1x2x8x8xf32>
  %krot = llm.concat %kn, %k1 {axis = 3 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x16xf32>
  %kc = llm.mul %cos, %k : (tensor<8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %ks = llm.mul %sin, %krot : (tensor<8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %ke = llm.add %ks, %kc : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  // K/V heads repeated 2x (x[:, :, None].expand(...).reshape(...))
  %k5 = llm.reshape %ke : (tensor<1x2x8x16xf32>) -> tensor<1x2x1x8x16xf32>
  %kb = llm.broadcast_to %k5 : (tensor<1x2x1x8x16xf32>) -> tensor<1x2x2x8x16xf32>
  %kr = llm.reshape %kb : (tensor<1x2x2x8x16xf32>) -> tensor<1x4x8x16xf32>
  %v5 = llm.reshape %v : (tensor<1x2x8x16xf32>) -> tensor<1x2x1x8x16xf32>
  %vb = llm.broadcast_to %v5 : (tensor<1x2x1x8x16xf32>) -> tensor<1x2x2x8x16xf32>
  %vr = llm.reshape %vb : (tensor<1x2x2x8x16xf32>) -> tensor<1x4x8x16xf32>
  // softmax(q k^T / 4 + triu(-inf)) v
  %c4 = llm.constant dense<4.0> : tensor<f32>
  %kt = llm.transpose %kr {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x8x16xf32>) -> tensor<1x4x16x8xf32>
  %s = llm.matmul %qe, %kt : (tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32>
  %ss = llm.div %s, %c4 : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
  %sm = llm.add %ss, %mask : (tensor<1x4x8x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = llm.softmax %sm {axis = -1 : i64} : tensor<1x4x8x8xf32>
  %o = llm.matmul %p, %vr : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  // rank 3, scale on q: softmax((q / 4) k^T) v
  %q3s = llm.div %q3, %c4 : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8x16xf32>
  %k3t = llm.transpose %k3 {permutation = array<i64: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %s3 = llm.matmul %q3s, %k3t : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  %p3 = llm.softmax %s3 {axis = 2 : i64} : tensor<4x8x8xf32>
  %o3 = llm.matmul %p3, %v3 : (tensor<4x8x8xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %qe, %o, %o3 : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<4x8x16xf32>
}
