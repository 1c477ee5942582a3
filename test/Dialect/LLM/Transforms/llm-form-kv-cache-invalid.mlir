// RUN: llm-opt %s -split-input-file -llm-form-kv-cache -verify-diagnostics

// expected-error @+1 {{llm-form-kv-cache: @main has no dynamic sequence dimension}}
func.func @main(%x: tensor<1x4x2x4xf32>, %pk: tensor<1x2x0x4xf32>) -> tensor<1x4x2x4xf32> {
  return %x : tensor<1x4x2x4xf32>
}

// -----

// expected-error @+1 {{llm-form-kv-cache: @main has no past input (an argument with an empty dimension}}
func.func @main(%x: tensor<1x?x2x4xf32> {llm.dim_bounds = array<i64: 1, 8, 2, 4>}) -> tensor<1x?x2x4xf32> {
  return %x : tensor<1x?x2x4xf32>
}

// -----

func.func @main(%x: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 8, 4>},
                %pk: tensor<1x2x0x4xf32> {llm.name = "past.key"}) -> tensor<1x2x?x4xf32> {
  // expected-error @+1 {{llm-form-kv-cache: the past input 'past.key' is still read here with an empty past}}
  %c = llm.concat %pk, %x {axis = 2 : i64} : (tensor<1x2x0x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  return %c : tensor<1x2x?x4xf32>
}

// -----

func.func @main(%x: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 8, 4>},
                %m: tensor<1x1x?x?xi1> {llm.dim_bounds = array<i64: 1, 1, 8, 8>},
                %pk: tensor<1x2x0x4xf32>, %pv: tensor<1x2x0x4xf32>)
    -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) {
  // expected-error @+1 {{llm-form-kv-cache: this attention has an explicit mask}}
  %a = llm.attention %x, %x, %x mask %m : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x1x?x?xi1>) -> tensor<1x2x?x4xf32>
  return %a, %x, %x : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

func.func @main(%x: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 8, 4>},
                %pk: tensor<1x2x0x4xf32>, %pv: tensor<1x2x0x4xf32>)
    -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) {
  %e = llm.exp %x : tensor<1x2x?x4xf32>
  // expected-error @+1 {{llm-form-kv-cache: the values of this attention are not returned as a present output}}
  %a = llm.attention %x, %x, %e {causal} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  return %a, %x : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

// expected-error @+1 {{llm-form-kv-cache: @main has 3 past inputs but 2 present outputs that return the keys or values of an attention}}
func.func @main(%x: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 8, 4>},
                %pk: tensor<1x2x0x4xf32>, %pv: tensor<1x2x0x4xf32>, %extra: tensor<1x2x0x4xf32>)
    -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) {
  %a = llm.attention %x, %x, %x {causal} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  return %a, %x, %x : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

func.func @main(%x: tensor<1x2x?x4xf32> {llm.dim_bounds = array<i64: 1, 2, 8, 4>},
                %pk: tensor<1x2x0x4xf32>, %pv: tensor<1x2x0x4xf32>)
    -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x1x?x?xf32>) {
  %t = llm.constant dense<0.0> : tensor<1x1x8x8xf32>
  // expected-error @+1 {{llm-form-kv-cache: a table read along 2 sequence axes (a mask that was not recognized as causal)}}
  %m = llm.sequence_prefix %t {axes = array<i64: 2, 3>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x?x?xf32>
  %a = llm.attention %x, %x, %x {causal} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  return %a, %x, %x, %m : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x1x?x?xf32>
}
