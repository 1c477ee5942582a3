func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = llm.relu %x : tensor<4xf32>
  %1 = func.call @main(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
