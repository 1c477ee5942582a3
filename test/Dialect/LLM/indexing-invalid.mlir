// RUN: llm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the ops of LLMIndexingOps.td.

func.func @gather_nd_rank0(%x: tensor<f32>, %i: tensor<1xi64>) {
  // expected-error @+1 {{'llm.gather_nd' op input and indices must have rank >= 1 (got 0 and 1)}}
  %0 = llm.gather_nd %x, %i : (tensor<f32>, tensor<1xi64>) -> tensor<f32>
  return
}

// -----

func.func @gather_nd_batch_dims(%x: tensor<2x3xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{'llm.gather_nd' op batch_dims 2 must lie in [0, 2) (less than both ranks)}}
  %0 = llm.gather_nd %x, %i {batch_dims = 2 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_batch_mismatch(%x: tensor<2x3xf32>, %i: tensor<4x1xi64>) {
  // expected-error @+1 {{'llm.gather_nd' op batch dimension 0 differs: 2 in the input, 4 in the indices}}
  %0 = llm.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3xf32>, tensor<4x1xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_nd_tuple(%x: tensor<2x3xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'llm.gather_nd' op index tuples of 3 components for an input of rank 2 with 0 batch dimensions (expected 1 to 2)}}
  %0 = llm.gather_nd %x, %i : (tensor<2x3xf32>, tensor<4x3xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_nd_result(%x: tensor<2x3xf32>, %i: tensor<4x1xi64>) {
  // expected-error @+1 {{'llm.gather_nd' op result shape [4] differs from indices.shape[:-1] + input.shape[batch_dims + m:] = [4, 3]}}
  %0 = llm.gather_nd %x, %i : (tensor<2x3xf32>, tensor<4x1xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_nd_empty(%x: tensor<0x3xf32>, %i: tensor<4x1xi64>) {
  // expected-error @+1 {{'llm.gather_nd' op indexed dimension 0 is empty: no index can be looked up}}
  %0 = llm.gather_nd %x, %i : (tensor<0x3xf32>, tensor<4x1xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'llm.scatter_nd' op updates of shape [2, 3]; expected indices.shape[:-1] + input.shape[m:] = [2, 4]}}
  %0 = llm.scatter_nd %x, %i, %u : (tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @scatter_nd_tuple(%x: tensor<4x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'llm.scatter_nd' op index tuples of 3 components for an input of rank 2 (expected 1 to 2)}}
  %0 = llm.scatter_nd %x, %i, %u : (tensor<4x4xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @scatter_nd_bool_add(%x: tensor<4xi1>, %i: tensor<2x1xi64>, %u: tensor<2xi1>) {
  // expected-error @+1 {{'llm.scatter_nd' op reduction 'add' is not defined on i1}}
  %0 = llm.scatter_nd %x, %i, %u {reduction = #llm.scatter_reduction<add>} : (tensor<4xi1>, tensor<2x1xi64>, tensor<2xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @scatter_nd_types(%x: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf16>) {
  // expected-error @+1 {{'llm.scatter_nd' op failed to verify that all of {input, updates} have same element type}}
  %0 = llm.scatter_nd %x, %i, %u : (tensor<4xf32>, tensor<2x1xi64>, tensor<2xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_elements_rank(%x: tensor<3x5xf32>, %i: tensor<6xi64>, %u: tensor<6xf32>) {
  // expected-error @+1 {{'llm.scatter_elements' op indices of rank 1 for an input of rank 2 (the ranks must be equal)}}
  %0 = llm.scatter_elements %x, %i, %u : (tensor<3x5xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @scatter_elements_shapes(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x1xf32>) {
  // expected-error @+1 {{'llm.scatter_elements' op indices of shape [3, 2] and updates of shape [3, 1] differ}}
  %0 = llm.scatter_elements %x, %i, %u : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x1xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @scatter_elements_axis(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{'llm.scatter_elements' op axis 2 is out of range for rank 2 (expected [-2, 2))}}
  %0 = llm.scatter_elements %x, %i, %u {axis = 2 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @scatter_elements_dim(%x: tensor<3x5xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) {
  // expected-error @+1 {{'llm.scatter_elements' op updates dimension 0 (4) is larger than the input's (3)}}
  %0 = llm.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @scatter_elements_result(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{'llm.scatter_elements' op failed to verify that all of {input, result} have same type}}
  %0 = llm.scatter_elements %x, %i, %u : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @topk_k(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'llm.topk' op k = 6 is out of range for dimension 1 of size 5 (expected 0 <= k <= size)}}
  %v, %i = llm.topk %x {k = 6 : i64} : (tensor<2x5xf32>) -> (tensor<2x6xf32>, tensor<2x6xi64>)
  return
}

// -----

func.func @topk_axis(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'llm.topk' op axis -3 is out of range for rank 2 (expected [-2, 2))}}
  %v, %i = llm.topk %x {k = 1 : i64, axis = -3 : i64} : (tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  return
}

// -----

func.func @topk_shape(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'llm.topk' op result shape [2, 3] differs from the input's with k at axis [2, 2]}}
  %v, %i = llm.topk %x {k = 2 : i64} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x3xi64>)
  return
}

// -----

func.func @topk_type(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'llm.topk' op values of element type 'f16' for an input of element type 'f32'}}
  %v, %i = llm.topk %x {k = 2 : i64} : (tensor<2x5xf32>) -> (tensor<2x2xf16>, tensor<2x2xi64>)
  return
}

// -----

func.func @topk_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'llm.topk' op input must have rank >= 1}}
  %v, %i = llm.topk %x {k = 0 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

func.func @dynamic_quantize_shape(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'llm.dynamic_quantize' op failed to verify that all of {input, result} have same shape}}
  %q, %s, %z = llm.dynamic_quantize %x : (tensor<3x4xf32>) -> (tensor<4x3xi8>, tensor<f32>, tensor<i8>)
  return
}

// -----

func.func @dynamic_quantize_scale(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'llm.dynamic_quantize' op result #1 must be 0D tensor of 32-bit float values}}
  %q, %s, %z = llm.dynamic_quantize %x : (tensor<3x4xf32>) -> (tensor<3x4xi8>, tensor<1xf32>, tensor<i8>)
  return
}

// -----

func.func @acos_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'llm.acos' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = llm.acos %x : tensor<4xi32>
  return
}
