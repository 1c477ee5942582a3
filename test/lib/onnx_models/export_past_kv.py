#!/usr/bin/env python3
# ===- export_past_kv.py - decoder exports with past_key_values ----------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Decoder exports with a key/value cache, the way Hugging Face models are
exported for generation (optimum's "decoder with past"): the inputs are
`input_ids [1, S]` and, per layer, `past_key_values.L.key` /
`past_key_values.L.value` `[1, KV_HEADS, P, HEAD_DIM]`; the outputs are
`logits [1, S, V]` and `present.L.key` / `present.L.value`
`[1, KV_HEADS, P + S, HEAD_DIM]`. S and P are the symbolic dimensions
`sequence_length` and `past_sequence_length`.

The layers are export_corpus.py's (the same weights and the same code
patterns); only the forwards that take the past differ, written as
modeling_gpt2.py / modeling_llama.py (transformers 4.3x) write them:

  gpt2   `key = torch.cat((past_key, key), dim=-2)`, positions
         `arange(past_length, past_length + S)`, the causal mask sliced
         `bias[:, :, k - q:k, :k]` (4 heads, MHA).
  gpt2_mask
         gpt2 with GPT2Model's `attention_mask [B, P + S]` input after the
         ids, applied as `(1 - mask) * finfo.min` added to the scores.
  llama  rotary cos/sin sliced to `P + S` and gathered by positions
         `arange(P, P + S)`, RoPE before the concatenation, repeat_kv
         after it (GQA, 8 query heads over 2 key/value heads),
         `_make_causal_mask` with the past columns and `_expand_mask` of an
         all-ones padding mask of `P + S` columns.

Usage: export_past_kv.py FAMILY OUT.onnx [--layers L] [--d D] [--heads H]
                         [--vocab V] [--max-pos N] [--scale X] [--no-past]
                         [--variant ignore_past|top_left_mask|
                                    positions_ignore_past]
Weights are seeded; `--scale` multiplies the 2-D weights other than the
embeddings, so that greedy generation does not repeat one token (small random
weights do: the residual stream then carries the embedding through, and the
tied head predicts the last token again).

Also importable: `build(family, layers)` gives the module, and
`greedy(model, prompt, n)` the ids of a greedy loop that uses the module's
own key/value cache (what `llmc generate --greedy` must equal).
"""

import argparse
import math
import os
import sys
import warnings

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_corpus as ec  # noqa: E402

FAMILIES = ["gpt2", "gpt2_mask", "llama"]


# Broken variants (what llmc must refuse, not get wrong): the attention
# ignores the past ("ignore_past"), the causal mask is sliced from the top
# left, bias[:q, :k] ("top_left_mask"), the positions ignore the past,
# arange(S) ("positions_ignore_past").
VARIANT = ""


def gpt2_attn(attn, h, past_k, past_v, mask=None):
    """GPT2Attention.forward with layer_past (modeling_gpt2.py); `mask` is
    the additive form of attention_mask, [B, 1, 1, P + S]."""
    q, k, v = attn.c_attn(h).split(ec.D, dim=2)
    q, k, v = attn._split_heads(q), attn._split_heads(k), attn._split_heads(v)
    new_k, new_v = k, v
    k = torch.cat((past_k, k), dim=-2)
    v = torch.cat((past_v, v), dim=-2)
    if VARIANT == "ignore_past":
        out = attn.c_proj(attn._merge_heads(attn._attn(q, new_k, new_v)))
        return out, k, v
    if VARIANT == "top_left_mask":
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(v.size(-1))
        causal = attn.bias[:, :, :q.size(-2), :k.size(-2)]
        w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min))
        y = torch.matmul(F.softmax(w, dim=-1), v)
        return attn.c_proj(attn._merge_heads(y)), k, v
    if mask is None:
        y = attn._attn(q, k, v)
    else:
        # GPT2Attention._attn with attention_mask: causal where, then the
        # padding mask added, then softmax.
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        ql, kl = q.size(-2), k.size(-2)
        causal = attn.bias[:, :, kl - ql:kl, :kl]
        w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min))
        w = F.softmax(w + mask, dim=-1)
        y = torch.matmul(w, v)
    out = attn.c_proj(attn._merge_heads(y))
    return out, k, v


class GPT2Past(ec.HFGPT2):
    """With `attention_mask` set, forward takes a padding mask [B, P + S]
    after the ids (GPT2Model's attention_mask input)."""

    attention_mask = False

    def forward(self, input_ids, *past):
        mask = None
        if self.attention_mask:
            am, past = past[0], past[1:]
            mask = (1.0 - am[:, None, None, :].to(torch.float32)) * \
                torch.finfo(torch.float32).min
        past_length = past[0].size(-2)
        if VARIANT == "positions_ignore_past":
            past_length = 0
        position_ids = torch.arange(past_length,
                                    input_ids.size(-1) + past_length,
                                    dtype=torch.long).unsqueeze(0)
        h = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        for i, block in enumerate(self.h):
            a, k, v = gpt2_attn(block.attn, block.ln_1(h), past[2 * i],
                                past[2 * i + 1], mask)
            h = h + a
            h = h + block.c_proj(block.act(block.c_fc(block.ln_2(h))))
            presents += [k, v]
        return (self.lm_head(self.ln_f(h)), *presents)


def llama_attn(attn, h, mask, position_ids, past_k, past_v):
    """LlamaAttention.forward with past_key_value (transformers 4.3x)."""
    bsz, q_len, _ = h.size()
    q = attn.q_proj(h).view(bsz, q_len, ec.LLAMA_HEADS,
                            attn.head_dim).transpose(1, 2)
    k = attn.k_proj(h).view(bsz, q_len, ec.LLAMA_KV_HEADS,
                            attn.head_dim).transpose(1, 2)
    v = attn.v_proj(h).view(bsz, q_len, ec.LLAMA_KV_HEADS,
                            attn.head_dim).transpose(1, 2)
    kv_seq_len = k.shape[-2] + past_k.shape[-2]
    cos, sin = attn.rotary_emb(v, seq_len=kv_seq_len)
    q, k = ec.apply_rotary_pos_emb(q, k, cos, sin, position_ids)
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    present = (k, v)
    k = ec.repeat_kv(k, attn.num_key_value_groups)
    v = ec.repeat_kv(v, attn.num_key_value_groups)
    w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(attn.head_dim)
    w = w + mask
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    out = torch.matmul(w, v).transpose(1, 2).contiguous()
    return attn.o_proj(out.reshape(bsz, q_len, ec.D)), present


def make_causal_mask(bsz, tgt_len, dtype, past_len):
    """_make_causal_mask with past_key_values_length (transformers 4.3x)."""
    mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min)
    mask_cond = torch.arange(mask.size(-1))
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
    mask = mask.to(dtype)
    mask = torch.cat([torch.zeros(tgt_len, past_len, dtype=dtype), mask],
                     dim=-1)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_len)


class LlamaPast(ec.HFLlama):
    def forward(self, input_ids, *past):
        batch_size, seq_length = input_ids.shape
        past_length = past[0].shape[2]
        position_ids = torch.arange(past_length, seq_length + past_length,
                                    dtype=torch.long)
        position_ids = position_ids.unsqueeze(0).view(-1, seq_length)
        h = self.embed_tokens(input_ids)
        attention_mask = torch.ones((batch_size, seq_length + past_length),
                                    dtype=torch.bool)
        mask = make_causal_mask(batch_size, seq_length, h.dtype, past_length)
        mask = ec._expand_mask(attention_mask, h.dtype, seq_length) + mask
        presents = []
        for i, layer in enumerate(self.layers):
            a, (k, v) = llama_attn(layer.self_attn,
                                   layer.input_layernorm(h), mask,
                                   position_ids, past[2 * i], past[2 * i + 1])
            h = h + a
            h = h + layer.mlp(layer.post_attention_layernorm(h))
            presents += [k, v]
        return (self.lm_head(self.norm(h)), *presents)


def build(family, layers, scale=1.0):
    """The module (eval, seeded weights) and its cache shape per layer
    (kv_heads, head_dim)."""
    torch.manual_seed(0)
    if family in ("gpt2", "gpt2_mask"):
        m = GPT2Past(layers)
        m.attention_mask = family == "gpt2_mask"
        kv = (ec.HEADS, ec.D // ec.HEADS)
        emb = m.wte
    elif family == "llama":
        m = LlamaPast(layers)
        kv = (ec.LLAMA_KV_HEADS, ec.D // ec.LLAMA_HEADS)
        emb = m.embed_tokens
    else:
        raise ValueError("unknown family %r" % family)
    with torch.no_grad():
        for name, w in m.named_parameters():
            if w.dim() == 2 and w is not emb.weight and "wpe" not in name:
                w.mul_(scale)
    return m.eval(), kv


def empty_past(layers, kv, past_len=0):
    return [torch.zeros(1, kv[0], past_len, kv[1]) for _ in range(2 * layers)]


def step(model, ids, past):
    """One call: the mask of ones (no padding) when the model takes one."""
    if getattr(model, "attention_mask", False):
        total = ids.size(1) + past[0].size(-2)
        return model(ids, torch.ones(1, total, dtype=torch.long), *past)
    return model(ids, *past)


def greedy(model, layers, kv, prompt, n):
    """Greedy ids from a loop over the module's own cache: one call on the
    prompt with an empty past, then one call per token."""
    ids, past, out = torch.tensor([prompt]), empty_past(layers, kv), []
    with torch.no_grad():
        for _ in range(n):
            res = step(model, ids, past)
            tok = int(res[0][0, -1].argmax())
            out.append(tok)
            past = list(res[1:])
            ids = torch.tensor([[tok]])
    return out


def export(family, path, layers=1, scale=1.0, past=True):
    """Exports `family`; with `past` False, the same model without its past
    inputs and present outputs (a plain forward: what llmc cannot form a
    cache from)."""
    m, kv = build(family, layers, scale)
    if not past:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                ec.HFGPT2(layers) if family.startswith("gpt2")
                else ec.HFLlama(layers), (torch.randint(0, ec.VOCAB, (1, 3)),),
                path, opset_version=14, input_names=["input_ids"],
                output_names=["logits"], do_constant_folding=False,
                dynamic_axes={"input_ids": {1: "sequence_length"}})
        return
    ids = torch.randint(0, ec.VOCAB, (1, 3))
    past = empty_past(layers, kv, 2)
    past_names, present_names, dyn = [], [], {
        "input_ids": {0: "batch_size", 1: "sequence_length"},
        "logits": {0: "batch_size", 1: "sequence_length"}}
    for i in range(layers):
        for part in ("key", "value"):
            past_names.append("past_key_values.%d.%s" % (i, part))
            present_names.append("present.%d.%s" % (i, part))
            dyn[past_names[-1]] = {0: "batch_size", 2: "past_sequence_length"}
            dyn[present_names[-1]] = {0: "batch_size",
                                      2: "past_sequence_length + 1"}
    inputs, names = (ids, *past), ["input_ids"] + past_names
    if getattr(m, "attention_mask", False):
        # optimum's name for the total length.
        inputs = (ids, torch.ones(1, 5, dtype=torch.long), *past)
        names = ["input_ids", "attention_mask"] + past_names
        dyn["attention_mask"] = {0: "batch_size",
                                 1: "past_sequence_length + sequence_length"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(m, inputs, path, opset_version=14,
                          input_names=names,
                          output_names=["logits"] + present_names,
                          do_constant_folding=False, dynamic_axes=dyn)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("family", choices=FAMILIES)
    p.add_argument("out")
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--d", type=int, default=48)
    p.add_argument("--max-pos", type=int, default=32,
                   help="position table rows (the sequence bound)")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--heads", type=int, default=4,
                   help="attention heads (LLaMA: twice as many query heads "
                        "over half as many key/value heads)")
    p.add_argument("--vocab", type=int, default=0,
                   help="vocabulary size (default 2 * d)")
    p.add_argument("--no-past", action="store_true",
                   help="export the plain forward, without past and present")
    p.add_argument("--variant", default="",
                   choices=["", "ignore_past", "top_left_mask",
                            "positions_ignore_past"],
                   help="gpt2 only: a broken variant (see VARIANT)")
    a = p.parse_args()
    global VARIANT
    VARIANT = a.variant
    ec.set_size(a.d, a.heads, 1, a.max_pos // 2)
    if a.vocab:
        ec.VOCAB = a.vocab
    export(a.family, a.out, a.layers, a.scale, not a.no_past)


if __name__ == "__main__":
    main()
