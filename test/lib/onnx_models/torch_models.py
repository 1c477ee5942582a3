#!/usr/bin/env python3
# ===- torch_models.py - torch.onnx.export'ed models for importer tests ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Exports small torch modules to ONNX with Debian's torch 1.13.

Usage: torch_models.py NAME OUTPUT.onnx [OPSET]

Also writes OUTPUT.onnx.npz with the inputs (`in<i>`) and torch's outputs
(`out<i>`) for run_llm_ir.py.

  gpt2        a one-block GPT-2-style model: token + position embedding,
              pre-LayerNorm causal self-attention (additive mask buffer),
              tanh-GELU MLP, final LayerNorm and LM head (default opset 13).
  llama       a one-block LLaMA-style model: RMSNorm, RoPE, grouped-query
              attention, SwiGLU (default opset 14).
  gpt2_masked_fill
              gpt2 with nanoGPT's attention mask instead: a bool tril buffer
              and att.masked_fill(mask == 0, -inf) (exports as Where).
  encoder     nn.TransformerEncoderLayer (batch_first, eval; default
              opset 14).
  ln_gelu     LayerNorm + Linear + erf-GELU on 3-D and 2-D inputs (default
              opset 17, so LayerNorm exports as LayerNormalization).
  seq_pool    Hugging Face-style pooling heads on integer inputs (default
              opset 14): GPT2ForSequenceClassification's last token before
              the padding, CLIP's end-of-text token, and a masked mean with
              attention_mask.sum(-1) (integer ArgMax and ReduceSum).
"""

import math
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads, max_seq, masked_fill=False):
        super().__init__()
        self.heads = heads
        self.masked_fill = masked_fill
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj2 = nn.Linear(4 * d, d)
        mask = torch.full((max_seq, max_seq), -1e4).triu(1)
        self.register_buffer("mask", mask.view(1, 1, max_seq, max_seq))
        tril = torch.tril(torch.ones(max_seq, max_seq, dtype=torch.bool))
        self.register_buffer("bias", tril.view(1, 1, max_seq, max_seq))

    def attn(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        hd = c // self.heads
        q = q.view(b, t, self.heads, hd).transpose(1, 2)
        k = k.view(b, t, self.heads, hd).transpose(1, 2)
        v = v.view(b, t, self.heads, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if self.masked_fill:
            att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        else:
            att = att + self.mask[:, :, :t, :t]
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)

    def mlp(self, x):
        h = self.c_fc(x)
        # GPT-2's tanh approximation of GELU.
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                        (h + 0.044715 * torch.pow(h, 3.0))))
        return self.c_proj2(h)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT2(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, max_seq=16, masked_fill=False):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_seq, d)
        self.block = Block(d, heads, max_seq, masked_fill)
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        pos = torch.arange(0, ids.size(1), dtype=torch.long).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        return self.lm_head(self.ln_f(self.block(x)))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(var + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class TinyLlama(nn.Module):
    """One LLaMA-style block (Hugging Face layout): RMSNorm, rotate-half RoPE
    from cos/sin buffers, grouped-query attention (4 query heads, 2 key/value
    heads, repeated with expand + reshape), a causal mask and SwiGLU."""

    def __init__(self, vocab=64, d=32, heads=4, kv_heads=2, max_seq=16,
                 graph_tables=False):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        # graph_tables: the rotary cos/sin tables and the causal mask are
        # computed in forward from the positions (Hugging Face rotary style:
        # arange -> outer with inv_freq -> cat -> cos/sin; mask from
        # arange/Less/Where), not stored as buffers.
        self.graph_tables = graph_tables
        self.embed = nn.Embedding(vocab, d)
        self.norm1 = RMSNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.norm2 = RMSNorm(d)
        self.gate = nn.Linear(d, 2 * d, bias=False)
        self.up = nn.Linear(d, 2 * d, bias=False)
        self.down = nn.Linear(2 * d, d, bias=False)
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        freqs = torch.outer(torch.arange(max_seq).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("inv_freq", inv)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())
        self.register_buffer("mask", torch.full((max_seq, max_seq), -1e4).triu(1))

    def forward(self, ids):
        b, t = ids.shape
        x = self.embed(ids)
        h = self.norm1(x)
        q = self.q(h).view(b, t, self.heads, self.hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        if self.graph_tables:
            # LlamaRotaryEmbedding.forward (transformers >= 4.38): inv_freq
            # [1, hd/2, 1] @ positions [1, 1, t], transposed.
            pos = torch.arange(ids.size(1))
            freqs = (self.inv_freq[None, :, None].float()
                     @ pos[None, None, :].float()).transpose(1, 2)
            emb = torch.cat((freqs, freqs), dim=-1)
            cos, sin = emb.cos(), emb.sin()
            neg = torch.full((t, t), -1e4)
            mask = torch.where(pos[:, None] < pos[None, :], neg,
                               torch.zeros_like(neg))
        else:
            cos, sin = self.cos[:t], self.sin[:t]
            mask = self.mask[:t, :t]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.heads // self.kv_heads
        k = k[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        v = v[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        att = q @ k.transpose(-2, -1) / math.sqrt(self.hd) + mask
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(b, t, -1)
        x = x + self.o(y)
        h = self.norm2(x)
        x = x + self.down(F.silu(self.gate(h)) * self.up(h))
        return self.lm_head(self.norm(x))


class LnGelu(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 2 * d)
        self.act = nn.GELU()
        self.head = nn.Linear(2 * d, 8)

    def forward(self, x, v):
        y = self.act(self.fc(self.ln(x)))
        # A 2-D Linear exports as Gemm.
        return y, self.head(self.act(self.fc(v)))


class SeqPool(nn.Module):
    """Pooling heads over token embeddings, written as Hugging Face writes
    them:
    * GPT2ForSequenceClassification: the position before the first padding
      token, `eq(input_ids, pad).int().argmax(-1) - 1`, modulo the length (a
      row without padding gives -1 -> its last position); the score head's
      logits there.
    * CLIPTextTransformer: the hidden state at `input_ids.to(torch.int)
      .argmax(dim=-1)` (the end-of-text token has the largest id).
    * Sentence encoders: `attention_mask.sum(-1)` (int64) and the masked
      mean of the hidden states."""

    def __init__(self, d=16, vocab=32, pad=0):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.score = nn.Linear(d, 3, bias=False)
        self.pad = pad

    def forward(self, input_ids, attention_mask):
        h = self.emb(input_ids)
        batch, length = input_ids.shape
        rows = torch.arange(batch)
        last = torch.eq(input_ids, self.pad).int().argmax(-1) - 1
        last = last % length
        pooled = self.score(h)[rows, last]
        eot = h[rows, input_ids.to(torch.int).argmax(dim=-1)]
        lengths = attention_mask.sum(-1)
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        mean = (h * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)
        return pooled, eot, lengths, mean


def main():
    name, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    if name in ("gpt2", "gpt2_masked_fill"):
        opset = int(sys.argv[3]) if len(sys.argv) > 3 else 13
        m = TinyGPT2(masked_fill=name == "gpt2_masked_fill").eval()
        args = (torch.randint(0, 64, (1, 8)),)
        names = (["input_ids"], ["logits"])
    elif name in ("llama", "llama_graph_tables"):
        opset = int(sys.argv[3]) if len(sys.argv) > 3 else 14
        m = TinyLlama(graph_tables=name == "llama_graph_tables").eval()
        args = (torch.randint(0, 64, (1, 8)),)
        names = (["input_ids"], ["logits"])
    elif name == "encoder":
        opset = int(sys.argv[3]) if len(sys.argv) > 3 else 14
        m = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                       dropout=0.1, batch_first=True).eval()
        args = (torch.randn(2, 6, 32),)
        names = (["src"], ["out"])
    elif name == "seq_pool":
        opset = int(sys.argv[3]) if len(sys.argv) > 3 else 14
        m = SeqPool().eval()
        # Padding (id 0) after 4 tokens, none, after 2; the largest id of a
        # row is unique (the end-of-text token).
        ids = torch.tensor([[5, 9, 31, 4, 0, 0, 0],
                            [3, 8, 2, 30, 7, 1, 6],
                            [11, 29, 0, 0, 0, 0, 0]])
        args = (ids, (ids != 0).long())
        names = (["input_ids", "attention_mask"],
                 ["pooled", "eot", "lengths", "mean"])
    else:
        opset = int(sys.argv[3]) if len(sys.argv) > 3 else 17
        m = LnGelu().eval()
        args = (torch.randn(2, 4, 32), torch.randn(3, 32))
        names = (["x", "v"], ["y", "z"])
    # llama_graph_tables: a symbolic sequence length ("seq"), so the tables
    # and the mask are computed from Shape -> Range in the graph.
    dyn = ({"input_ids": {1: "seq"}} if name == "llama_graph_tables"
           else None)
    torch.onnx.export(m, args, out, opset_version=opset,
                      input_names=names[0], output_names=names[1],
                      do_constant_folding=False, dynamic_axes=dyn)
    # Inputs and torch's outputs, for run_llm_ir.py.
    with torch.no_grad():
        outs = m(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    arrays = {"in%d" % i: t.numpy() for i, t in enumerate(args)}
    arrays.update({"out%d" % i: t.numpy() for i, t in enumerate(outs)})
    np.savez(out + ".npz", **arrays)


if __name__ == "__main__":
    main()
