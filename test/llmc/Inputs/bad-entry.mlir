// Entries that llmc refuses: non-tensor, dynamic shape, unsupported element
// type, private, declaration.
func.func @scalar(%a: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
func.func @complex(%a: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  %c = complex.constant [1.0 : f32, 0.0 : f32] : complex<f32>
  %t = tensor.splat %c : tensor<4xcomplex<f32>>
  return %t : tensor<4xcomplex<f32>>
}
func.func private @hidden(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @decl(%a: tensor<4xf32>) -> tensor<4xf32>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
