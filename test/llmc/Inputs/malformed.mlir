// A model with a syntax error (an undefined value).
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %b : tensor<4xf32>
}
