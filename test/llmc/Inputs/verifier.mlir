// A model that parses but fails the verifier (result type mismatch).
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<1.0> : tensor<3xf32>
  return %c : tensor<3xf32>
}
