// A failed index check in a called function (@sub) and in the caller
// (@main): run-index-checks.mlir runs it on the CPU and on the CUDA-kernel
// emulator.
func.func private @sub(%ids: tensor<1x4xi64>) -> tensor<1x4x8xf32> {
  %t = llm.constant dense<0.5> : tensor<16x8xf32>
  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<1x4xi64>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}
func.func @main(%ids: tensor<1x4xi64>, %ids2: tensor<1x4xi64>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %t = llm.constant dense<0.25> : tensor<16x8xf32>
  %0 = llm.embedding %t, %ids2 : (tensor<16x8xf32>, tensor<1x4xi64>) -> tensor<1x4x8xf32>
  %1 = call @sub(%ids) : (tensor<1x4xi64>) -> tensor<1x4x8xf32>
  return %0, %1 : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}
