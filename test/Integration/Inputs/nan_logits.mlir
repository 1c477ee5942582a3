// A minimal generation entry (docs/Generation.md) whose logits are NaN
// (multiplied by a NaN constant): generate-gpt2.test checks that llmc
// generate reports them instead of sampling a token.
func.func @main(%ids: tensor<1x?xi64> {llm.name = "input_ids", llm.dim_bounds = array<i64: 1, 16>},
                %pos: tensor<1x?xi64> {llm.name = "position_ids", llm.dim_bounds = array<i64: 1, 16>},
                %past: tensor<i64> {llm.name = "past_length"},
                %total: tensor<i64> {llm.name = "total_length"},
                %kc: tensor<1x16x1x4xf32> {llm.kv_cache}, %vc: tensor<1x16x1x4xf32> {llm.kv_cache})
    -> tensor<1x?x8xf32> {
  %emb = llm.constant dense<0.5> : tensor<8x4xf32>
  %x = llm.embedding %emb, %ids : (tensor<8x4xf32>, tensor<1x?xi64>) -> tensor<1x?x4xf32>
  %h = llm.reshape %x : (tensor<1x?x4xf32>) -> tensor<1x?x1x4xf32>
  %k = llm.kv_cache_update %kc, %h, %past {axis = 1 : i64}
      : (tensor<1x16x1x4xf32>, tensor<1x?x1x4xf32>, tensor<i64>) -> tensor<1x16x1x4xf32>
  %v = llm.kv_cache_update %vc, %h, %past {axis = 1 : i64}
      : (tensor<1x16x1x4xf32>, tensor<1x?x1x4xf32>, tensor<i64>) -> tensor<1x16x1x4xf32>
  %a = llm.attention %h, %k, %v kv_length %total {causal, layout = #llm.attention_layout<bshd>}
      : (tensor<1x?x1x4xf32>, tensor<1x16x1x4xf32>, tensor<1x16x1x4xf32>, tensor<i64>) -> tensor<1x?x1x4xf32>
  %o = llm.reshape %a : (tensor<1x?x1x4xf32>) -> tensor<1x?x4xf32>
  %l = llm.matmul %o, %emb {transpose_b} : (tensor<1x?x4xf32>, tensor<8x4xf32>) -> tensor<1x?x8xf32>
  %nan = llm.constant dense<0x7FC00000> : tensor<8xf32>
  %logits = llm.mul %l, %nan : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  return %logits : tensor<1x?x8xf32>
}
