// Execution check of llm-optimize-layout's layout propagation: the
// functions below (nn.MultiheadAttention's batch_first head layout, Hugging
// Face Conv1D's flattening around addmm) run through `llmc run` (JIT on the
// CPU, seeded random inputs) with llm-optimize-layout (the default) and
// without it, and the outputs must agree to 1e-5 relative (atol 1e-6).
// FileCheck checks that the optimized module keeps no runtime transpose.
// Weights: numpy (seed 0).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: llm-opt %s --llm-recompose --llm-optimize-layout -o %t/opt.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t/opt.mlir
// RUN: llmc run %s --entry mha --seed 7 --output-dir %t/mha-on > /dev/null
// RUN: llmc run %s --entry mha --seed 7 --pipeline-options=optimize-layout=false --output-dir %t/mha-off > /dev/null
// RUN: %python -m llmc_check expr "off" --arg off=%t/mha-off/out0.npy --actual %t/mha-on/out0.npy --rtol 1e-5 --atol 1e-6 --name mha | FileCheck %s
// RUN: llmc run %s --entry conv1d --seed 7 --output-dir %t/c-on > /dev/null
// RUN: llmc run %s --entry conv1d --seed 7 --pipeline-options=optimize-layout=false --output-dir %t/c-off > /dev/null
// RUN: %python -m llmc_check expr "off" --arg off=%t/c-off/out0.npy --actual %t/c-on/out0.npy --rtol 1e-5 --atol 1e-6 --name conv1d | FileCheck %s --check-prefix=CONV

// CHECK: mha: shape [2, 3, 8] dtype float32 {{.*}} PASS
// CONV: conv1d: shape [2, 3, 12] dtype float32 {{.*}} PASS
// OPT: runtime_transposes = 0
// OPT-NOT: llm.transpose

// [B, S, E] = [2, 3, 8], 2 heads of 4: x^T [S, B, E] -> in-projection ->
// q, k, v [S, B*H, D] -> [B*H, S, D] -> softmax(q k^T / 2) v -> back to
// [S*B, E] -> out-projection -> [B, S, E] + x.
func.func @mha(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %w = llm.constant dense<[[0.0629, -0.0661, 0.3202, 0.0525, -0.2678, 0.1808, 0.6520, 0.4735, -0.3519, -0.6327, -0.3116, 0.0207, -1.1625, -0.1094, -0.6230, -0.3661, -0.2721, -0.1582, 0.2058, 0.5213, -0.0643, 0.6832, -0.3326, 0.1758], [0.4517, 0.0470, -0.3717, -0.4609, -0.2289, 0.1101, -0.5048, -0.1046, -0.0796, 0.2704, 0.1073, 0.1777, -0.3269, -0.0648, 0.3920, 0.7467, -0.6295, 0.7570, 0.6729, 0.3907, 0.1322, -0.1570, 0.7290, 0.9801], [0.9008, 0.6576, 0.1787, -0.6042, -0.0022, 0.3282, -0.6442, 0.1976, 0.2149, 0.3480, -0.5921, -0.3309, -0.2182, -0.5849, 0.8697, -0.2480, 0.1645, -0.1293, 0.7917, 0.6602, 0.3167, -1.1018, 0.0260, 0.3418], [0.5020, -0.3090, 0.9110, -0.6602, -0.3308, 0.4675, 0.0245, 1.0012, 0.0943, -0.3166, -0.1888, -0.5456, -0.6388, 0.3152, 0.2906, 0.6473, -0.3773, 0.8446, -0.1437, 0.7872, -0.2164, -0.3677, 0.1249, 0.5157], [0.0805, -0.2928, -0.6706, -0.7008, 0.2513, 0.4949, -0.0821, -0.5372, 0.4365, -0.6402, -0.3565, 0.3105, -1.1251, 0.1932, -0.2908, 0.0546, -0.0379, 0.1011, 0.3471, -0.3792, 0.7105, 0.3630, 0.4219, 0.5824], [0.3938, 0.4220, 0.0378, -0.7134, -0.0675, -0.3848, -0.7114, 0.1292, -0.2843, -0.5149, -0.5215, 0.1342, 0.1793, 0.6612, -0.0070, 0.5209, 0.7011, 0.5751, -1.1827, 0.6143, 0.1698, 0.2119, 0.1856, 0.1914], [0.1597, -0.1795, -0.9508, -0.0545, -0.4019, 0.5401, -0.1444, 0.0417, -0.4248, -0.2553, -0.0058, -0.7427, 0.1503, -0.0530, -0.5929, -1.1991, 0.2565, -0.1488, -0.2650, -0.1181, 0.9082, -0.0249, 0.0433, -0.7435], [0.8237, 0.4587, 0.5335, 0.0238, 0.4583, 0.1855, 0.3066, -0.0761, -0.7369, 0.5144, -0.9675, -0.1200, -0.1023, -0.5214, 0.3066, -0.1002, -0.2184, 0.2599, -0.2383, 0.6945, 0.1757, -0.2372, -0.9721, -0.6539]]> : tensor<8x24xf32>
  %b = llm.constant dense<[0.1087, -0.0051, -0.0283, 0.1643, -0.1283, -0.0586, -0.0473, 0.0586, -0.0664, -0.0613, -0.1605, 0.0729, 0.0806, -0.0476, 0.0163, -0.1293, -0.0472, 0.1378, 0.0136, 0.2310, -0.0787, 0.0580, -0.0196, 0.0566]> : tensor<24xf32>
  %wo = llm.constant dense<[[-0.0036, -0.2806, -0.4338, 1.5330, -0.0387, -1.0083, -0.3243, 0.3390], [-0.2500, 0.6802, 0.5012, -0.0762, -0.2361, -0.5024, -0.3500, -0.7366], [0.6022, 0.7954, -0.6281, -0.5908, -0.8843, -0.4819, -1.5532, -0.5711], [0.6485, -0.1728, 0.4273, -0.2445, 0.8803, 0.0996, -0.1910, 1.2762], [-0.1622, -0.6106, 0.1010, -0.0194, 0.5332, -0.4608, 0.4024, 0.4264], [-0.3338, 0.0816, -0.4154, 1.1729, -0.3521, -0.2265, -0.5329, -0.1731], [-0.0029, 0.3839, -0.3052, -0.0929, -0.7082, -0.4137, 1.3779, 0.5206], [-0.3907, -0.6687, -0.4878, -0.0108, 0.0174, -0.3722, -0.6433, 0.7112]]> : tensor<8x8xf32>
  %bo = llm.constant dense<[0.0452, -0.0375, -0.0221, -0.0530, -0.2936, 0.0116, -0.1071, -0.1003]> : tensor<8xf32>
  %c = llm.constant dense<2.0> : tensor<f32>
  %0 = llm.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x8xf32>) -> tensor<3x2x8xf32>
  %1 = llm.matmul %0, %w : (tensor<3x2x8xf32>, tensor<8x24xf32>) -> tensor<3x2x24xf32>
  %2 = llm.add %b, %1 : (tensor<24xf32>, tensor<3x2x24xf32>) -> tensor<3x2x24xf32>
  %q = llm.slice %2 {limits = array<i64: 3, 2, 8>, starts = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<3x2x24xf32>) -> tensor<3x2x8xf32>
  %k = llm.slice %2 {limits = array<i64: 3, 2, 16>, starts = array<i64: 0, 0, 8>, strides = array<i64: 1, 1, 1>} : (tensor<3x2x24xf32>) -> tensor<3x2x8xf32>
  %v = llm.slice %2 {limits = array<i64: 3, 2, 24>, starts = array<i64: 0, 0, 16>, strides = array<i64: 1, 1, 1>} : (tensor<3x2x24xf32>) -> tensor<3x2x8xf32>
  %q1 = llm.reshape %q : (tensor<3x2x8xf32>) -> tensor<3x4x4xf32>
  %q2 = llm.transpose %q1 {permutation = array<i64: 1, 0, 2>} : (tensor<3x4x4xf32>) -> tensor<4x3x4xf32>
  %qs = llm.div %q2, %c : (tensor<4x3x4xf32>, tensor<f32>) -> tensor<4x3x4xf32>
  %k1 = llm.reshape %k : (tensor<3x2x8xf32>) -> tensor<3x4x4xf32>
  %k2 = llm.transpose %k1 {permutation = array<i64: 1, 2, 0>} : (tensor<3x4x4xf32>) -> tensor<4x4x3xf32>
  %v1 = llm.reshape %v : (tensor<3x2x8xf32>) -> tensor<3x4x4xf32>
  %v2 = llm.transpose %v1 {permutation = array<i64: 1, 0, 2>} : (tensor<3x4x4xf32>) -> tensor<4x3x4xf32>
  %s = llm.matmul %qs, %k2 : (tensor<4x3x4xf32>, tensor<4x4x3xf32>) -> tensor<4x3x3xf32>
  %p = llm.softmax %s {axis = -1 : i64} : tensor<4x3x3xf32>
  %a = llm.matmul %p, %v2 : (tensor<4x3x3xf32>, tensor<4x3x4xf32>) -> tensor<4x3x4xf32>
  %a2 = llm.transpose %a {permutation = array<i64: 1, 0, 2>} : (tensor<4x3x4xf32>) -> tensor<3x4x4xf32>
  %a3 = llm.reshape %a2 : (tensor<3x4x4xf32>) -> tensor<6x8xf32>
  %o = llm.matmul %a3, %wo {transpose_b} : (tensor<6x8xf32>, tensor<8x8xf32>) -> tensor<6x8xf32>
  %o1 = llm.add %o, %bo : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
  %o2 = llm.reshape %o1 : (tensor<6x8xf32>) -> tensor<3x2x8xf32>
  %o3 = llm.transpose %o2 {permutation = array<i64: 1, 0, 2>} : (tensor<3x2x8xf32>) -> tensor<2x3x8xf32>
  %r = llm.add %x, %o3 : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %r : tensor<2x3x8xf32>
}

// Conv1D: [B, S, K] -> [B*S, K] @ W[K, N] + b -> [B, S, N].
func.func @conv1d(%x: tensor<2x3x8xf32>) -> tensor<2x3x12xf32> {
  %w = llm.constant dense<[[-0.3201, 0.3662, -0.5853, -0.7171, 0.3199, 0.3772, -0.4795, 0.2812, -0.1458, 0.1506, -0.6305, 0.4164], [0.6016, 0.3185, 0.2792, -1.8861, 0.1303, -0.0127, -0.0735, -0.3153, 0.0277, 0.2061, -0.1319, -0.2317], [0.6149, -0.5527, 0.5151, 0.0884, -0.4022, -0.1450, -0.4600, 0.3375, 0.1740, -0.2784, -0.5511, 0.1509], [0.4787, -0.0569, 0.2092, -0.1880, 0.0338, -0.1456, 0.1470, -0.7549, 0.3221, -0.1150, 0.1793, -0.1702], [0.1602, -0.5363, 0.5946, -0.8518, -0.5196, 0.1178, 0.7314, 0.1391, -0.1240, -0.7125, -0.0956, -0.0099], [0.8453, 0.3111, -0.7645, 1.0134, -0.1975, -0.4397, 0.7374, -0.0249, -0.1837, 0.1094, 0.4224, 0.4967], [-0.6876, 0.9992, 0.4734, -0.1896, -0.4093, -0.4845, 0.0617, -0.3240, -0.3824, 0.4056, 0.1823, -0.1973], [0.3671, 0.6837, -0.5472, -0.3016, 0.4713, 0.3595, 0.1133, 0.5812, -0.5441, -0.7396, -0.4333, 0.0613]]> : tensor<8x12xf32>
  %b = llm.constant dense<[-0.0796, -0.0487, -0.0975, -0.0620, -0.1005, 0.0367, 0.0795, -0.0480, -0.0207, -0.0581, 0.0531, 0.0089]> : tensor<12xf32>
  %0 = llm.reshape %x : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  %1 = llm.matmul %0, %w : (tensor<6x8xf32>, tensor<8x12xf32>) -> tensor<6x12xf32>
  %2 = llm.add %1, %b : (tensor<6x12xf32>, tensor<12xf32>) -> tensor<6x12xf32>
  %3 = llm.reshape %2 : (tensor<6x12xf32>) -> tensor<2x3x12xf32>
  return %3 : tensor<2x3x12xf32>
}
