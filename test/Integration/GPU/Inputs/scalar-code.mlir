// Host scalar code between kernels that the GPU path computes on the device:
// a position read from an input (llm.kv_cache_update on a [B, H, S, D]
// cache: the update's subview offset) and a scale and zero point reduced by
// one kernel, used by the next and stored as results (llm.dynamic_quantize).
// The host cannot read device memory: the kernels that use such a value
// load it again (nothing writes it in between), and the stores of the
// scalar results run in a single-thread kernel. The cache holds 24
// positions so that every seeded position (integers in [0, 16)) is valid.

func.func @kv_bhsd(%c: tensor<1x2x24x4xf32>, %u: tensor<1x2x3x4xf32>, %p: tensor<i64>) -> tensor<1x2x24x4xf32> {
  %0 = llm.kv_cache_update %c, %u, %p : (tensor<1x2x24x4xf32>, tensor<1x2x3x4xf32>, tensor<i64>) -> tensor<1x2x24x4xf32>
  return %0 : tensor<1x2x24x4xf32>
}

func.func @dynamic_quantize(%x: tensor<4x6xf32>, %z: tensor<5xf32>) -> (tensor<4x6xi8>, tensor<f32>, tensor<i8>, tensor<5xi8>, tensor<f32>) {
  %q, %s, %zp = llm.dynamic_quantize %x : (tensor<4x6xf32>) -> (tensor<4x6xi8>, tensor<f32>, tensor<i8>)
  %q0, %s0, %zp0 = llm.dynamic_quantize %z : (tensor<5xf32>) -> (tensor<5xi8>, tensor<f32>, tensor<i8>)
  return %q, %s, %zp, %q0, %s0 : tensor<4x6xi8>, tensor<f32>, tensor<i8>, tensor<5xi8>, tensor<f32>
}
