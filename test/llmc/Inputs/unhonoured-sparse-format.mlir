// A weight whose recorded sparse format no kernel takes (blocks of 5 x 32):
// convert-llm-to-linalg warns and the dense kernel runs.
func.func @main(%x: tensor<1x32xf32>) -> tensor<1x5xf32> {
  %c = llm.constant dense<1.0> : tensor<5x32xf32>
  %y = llm.matmul %x, %c {transpose_b, llm.sparse_format = {format = "bsr5x32"}}
      : (tensor<1x32xf32>, tensor<5x32xf32>) -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}
