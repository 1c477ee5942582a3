// A model without a matmul or attention (test/llmc/tune.test).
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = llm.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
