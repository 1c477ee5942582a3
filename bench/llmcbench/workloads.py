# ===- workloads.py - the benchmark workloads as torch modules -----------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""The benchmark workloads, defined once in torch and exported to ONNX.

Every system runs the same graph and weights: llmc and ONNX Runtime read the
exported .onnx; torch (eager and TorchScript) rebuilds the module with the
same seed and loads the state dict saved next to it; numpy (matmuls only)
reads the same input files. `export(name, dir)` writes into `dir`:

  model.onnx            the graph (opset 14, static shapes, weights inline)
  state.pt              the torch state dict
  in/<input>.npy        the inputs (seeded)
  ref/<output>.npy      torch eager's outputs (the reference of the check)
  meta.json             inputs, outputs, FLOPs and compulsory bytes

The model building blocks (GPT-2 `Block`, `RMSNorm`, `rotate_half`) are the
ones the importer tests use (test/lib/onnx_models/torch_models.py).

Run with /usr/bin/python3 (Debian's torch 1.13 and onnx 1.12).
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "lib", "onnx_models"))

OPSET = 14


def _torch():
    import torch
    return torch


# ===---------------------------------------------------------------------=== #
# Modules
# ===---------------------------------------------------------------------=== #


def _modules():
    """Defined lazily so that `--dry-run` and the numpy worker do not import
    torch."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch_models import Block, RMSNorm, rotate_half

    class GPT2(nn.Module):
        """GPT-2-style model: token + position embeddings, `layers` pre-LN
        blocks (causal attention, tanh-GELU MLP), final LayerNorm, LM head."""

        def __init__(self, vocab, d, heads, layers, seq):
            super().__init__()
            self.wte = nn.Embedding(vocab, d)
            self.wpe = nn.Embedding(seq, d)
            self.blocks = nn.ModuleList(Block(d, heads, seq) for _ in range(layers))
            self.ln_f = nn.LayerNorm(d)
            self.lm_head = nn.Linear(d, vocab, bias=False)

        def forward(self, ids):
            pos = torch.arange(0, ids.size(1), dtype=torch.long).unsqueeze(0)
            x = self.wte(ids) + self.wpe(pos)
            for b in self.blocks:
                x = b(x)
            return self.lm_head(self.ln_f(x))

    class GPT2Decode(nn.Module):
        """One new token through a GPT-2 block whose attention reads `past`
        cached K/V positions passed in as inputs (static shapes). Returns
        the block output and the new token's K and V (what a decode loop
        appends to its cache)."""

        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.blk = Block(d, heads, 1)

        def forward(self, x, past_k, past_v):
            b, t, c = x.size()
            hd = c // self.heads
            blk = self.blk
            q, k, v = blk.c_attn(blk.ln_1(x)).split(c, dim=2)
            q = q.view(b, t, self.heads, hd).transpose(1, 2)
            k = k.view(b, t, self.heads, hd).transpose(1, 2)
            v = v.view(b, t, self.heads, hd).transpose(1, 2)
            keys = torch.cat([past_k, k], dim=2)
            vals = torch.cat([past_v, v], dim=2)
            att = (q @ keys.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            y = (F.softmax(att, dim=-1) @ vals).transpose(1, 2).reshape(b, t, c)
            x = x + blk.c_proj(y)
            return x + blk.mlp(blk.ln_2(x)), k, v

    class LlamaBlock(nn.Module):
        """A LLaMA-style decoder block (Hugging Face layout) on hidden states
        x[1, seq, d]: RMSNorm, q/k/v projections without bias, rotate-half
        RoPE from cos/sin buffers, grouped-query causal attention, o-proj,
        residual, RMSNorm, SwiGLU MLP, residual."""

        def __init__(self, d, heads, kv_heads, hidden, seq):
            super().__init__()
            self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
            self.norm1 = RMSNorm(d)
            self.q = nn.Linear(d, d, bias=False)
            self.k = nn.Linear(d, kv_heads * self.hd, bias=False)
            self.v = nn.Linear(d, kv_heads * self.hd, bias=False)
            self.o = nn.Linear(d, d, bias=False)
            self.norm2 = RMSNorm(d)
            self.gate = nn.Linear(d, hidden, bias=False)
            self.up = nn.Linear(d, hidden, bias=False)
            self.down = nn.Linear(hidden, d, bias=False)
            inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
            freqs = torch.outer(torch.arange(seq).float(), inv)
            emb = torch.cat((freqs, freqs), dim=-1)
            self.register_buffer("cos", emb.cos())
            self.register_buffer("sin", emb.sin())
            self.register_buffer("mask", torch.full((seq, seq), -1e4).triu(1))

        def forward(self, x):
            b, t, _ = x.shape
            h = self.norm1(x)
            q = self.q(h).view(b, t, self.heads, self.hd).transpose(1, 2)
            k = self.k(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
            v = self.v(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
            cos, sin = self.cos[:t], self.sin[:t]
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            rep = self.heads // self.kv_heads
            k = k[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(
                b, self.heads, t, self.hd)
            v = v[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(
                b, self.heads, t, self.hd)
            att = q @ k.transpose(-2, -1) / math.sqrt(self.hd) + self.mask[:t, :t]
            y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(b, t, -1)
            x = x + self.o(y)
            h = self.norm2(x)
            return x + self.down(F.silu(self.gate(h)) * self.up(h))

    class MatVec(nn.Module):
        """y[1, n] = x[1, k] @ W[k, n], W a weight (an ONNX initializer)."""

        def __init__(self, k, n):
            super().__init__()
            self.w = nn.Parameter(torch.randn(k, n) / math.sqrt(k))

        def forward(self, x):
            return x @ self.w

    class MatMul(nn.Module):
        """c[m, n] = a[m, k] @ b[k, n], both operands graph inputs."""

        def forward(self, a, b):
            return a @ b

    return dict(GPT2=GPT2, GPT2Decode=GPT2Decode, LlamaBlock=LlamaBlock,
                MatVec=MatVec, MatMul=MatMul)


# ===---------------------------------------------------------------------=== #
# The workload table
# ===---------------------------------------------------------------------=== #

# kind: "model" (the ratio goal vs ONNX Runtime applies), "decode", "matmul".
# layers: transformer layers in the graph (kernels per layer = kernels/layers).
# numpy: whether numpy runs it (a plain matmul; the models are not
# re-implemented in numpy).
WORKLOADS = {
    "gpt2_2l": dict(
        desc="GPT-2-style model, 2 layers, d 256, 4 heads, seq 64, vocab 1024",
        kind="model", layers=2, numpy=False,
        cls="GPT2", args=dict(vocab=1024, d=256, heads=4, layers=2, seq=64),
        inputs=[("input_ids", (1, 64), "int64")], outputs=["logits"]),
    "gpt2_layer768": dict(
        desc="GPT-2-small-shaped layer, d 768, 12 heads, seq 128 (prefill)",
        kind="model", layers=1, numpy=False,
        cls="GPT2", args=None,  # built below: one Block on hidden states
        inputs=[("x", (1, 128, 768), "float32")], outputs=["y"]),
    "llama_block": dict(
        desc="LLaMA-style block, d 512, 8 heads, 4 KV heads (GQA), SwiGLU "
             "1408, RoPE, seq 128",
        kind="model", layers=1, numpy=False,
        cls="LlamaBlock", args=dict(d=512, heads=8, kv_heads=4, hidden=1408,
                                    seq=128),
        inputs=[("x", (1, 128, 512), "float32")], outputs=["y"]),
    "decode768": dict(
        desc="decode: 1 token through a GPT-2-small-shaped layer (d 768, 12 "
             "heads) attending over 512 cached K/V positions (inputs)",
        kind="decode", layers=1, numpy=False,
        cls="GPT2Decode", args=dict(d=768, heads=12),
        inputs=[("x", (1, 1, 768), "float32"),
                ("past_k", (1, 12, 512, 64), "float32"),
                ("past_v", (1, 12, 512, 64), "float32")],
        outputs=["y", "k", "v"]),
    "matvec4096": dict(
        desc="decode matvec: x[1,4096] @ W[4096,4096] (W a weight)",
        kind="decode", layers=0, numpy=True,
        cls="MatVec", args=dict(k=4096, n=4096),
        inputs=[("x", (1, 4096), "float32")], outputs=["y"]),
    "matmul512": dict(
        desc="f32 matmul 512x512x512 (both operands inputs)",
        kind="matmul", layers=0, numpy=True,
        cls="MatMul", args={},
        inputs=[("a", (512, 512), "float32"), ("b", (512, 512), "float32")],
        outputs=["c"]),
    "matmul2048": dict(
        desc="f32 matmul 2048x2048x2048 (both operands inputs)",
        kind="matmul", layers=0, numpy=True,
        cls="MatMul", args={},
        inputs=[("a", (2048, 2048), "float32"), ("b", (2048, 2048), "float32")],
        outputs=["c"]),
}


def build_module(name):
    """Rebuilds workload `name`'s torch module (eval mode, weights from the
    seed; callers load state.pt over it to be sure)."""
    torch = _torch()
    mods = _modules()
    w = WORKLOADS[name]
    torch.manual_seed(0)
    if name == "gpt2_layer768":
        from torch_models import Block
        m = Block(768, 12, 128)
    else:
        m = mods[w["cls"]](**w["args"])
    return m.eval()


def make_inputs(name):
    """Seeded inputs: token ids uniform in [0, vocab), floats N(0, 1) (the
    matmul operands uniform in [-1, 1))."""
    w = WORKLOADS[name]
    rng = np.random.default_rng(1234)
    out = {}
    for iname, shape, dtype in w["inputs"]:
        if dtype == "int64":
            out[iname] = rng.integers(0, w["args"]["vocab"], size=shape,
                                      dtype=np.int64)
        elif w["kind"] == "matmul":
            out[iname] = rng.uniform(-1, 1, size=shape).astype(np.float32)
        else:
            out[iname] = rng.standard_normal(shape).astype(np.float32)
    return out


# ===---------------------------------------------------------------------=== #
# FLOPs and compulsory bytes, from the shape-inferred ONNX graph
# ===---------------------------------------------------------------------=== #


def count_cost(model_path):
    """Returns (flops, bytes, notes) of an ONNX model.

    FLOPs: 2*M*N*K per MatMul/Gemm (batch dimensions multiplied in); every
    other compute node one FLOP per output element (an approximation: the
    matmuls dominate every workload here). Shape-only nodes (Shape, Gather
    of shapes, Reshape, Transpose, Concat, Slice, Unsqueeze, Squeeze,
    Constant, Cast, Expand, Split) count zero.
    Bytes: the compulsory traffic, each weight and graph input read once and
    each graph output written once (intermediates assumed to stay in cache,
    so the figure is a lower bound)."""
    import onnx
    from onnx import shape_inference
    m = shape_inference.infer_shapes(onnx.load(model_path))
    g = m.graph
    shapes = {}
    esize = {1: 4, 7: 8, 6: 4, 11: 8, 10: 2, 9: 1, 3: 1, 2: 1, 16: 2}
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        t = vi.type.tensor_type
        if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[vi.name] = ([d.dim_value for d in t.shape.dim],
                               esize.get(t.elem_type, 4))
    for init in g.initializer:
        shapes[init.name] = (list(init.dims), esize.get(init.data_type, 4))
    zero = {"Shape", "Gather", "Reshape", "Transpose", "Concat", "Slice",
            "Unsqueeze", "Squeeze", "Constant", "Cast", "Expand", "Split",
            "Identity", "ConstantOfShape", "Range"}
    flops, unknown = 0, 0
    for node in g.node:
        if node.op_type in ("MatMul", "Gemm"):
            a, y = node.input[0], node.output[0]
            if a not in shapes or y not in shapes:
                unknown += 1
                continue
            ashape = shapes[a][0]
            trans_a = any(at.name == "transA" and at.i for at in node.attribute)
            k = ashape[-2] if trans_a else ashape[-1]
            flops += 2 * int(np.prod(shapes[y][0])) * k
        elif node.op_type not in zero:
            y = node.output[0]
            if y in shapes:
                flops += int(np.prod(shapes[y][0]))
            else:
                unknown += 1
    nbytes = 0
    for init in g.initializer:
        nbytes += int(np.prod(init.dims)) * esize.get(init.data_type, 4)
    for vi in list(g.input) + list(g.output):
        if vi.name in shapes:
            s, e = shapes[vi.name]
            nbytes += int(np.prod(s)) * e
    notes = "" if not unknown else "%d nodes without a static shape not counted" % unknown
    return flops, nbytes, notes


# ===---------------------------------------------------------------------=== #
# Export
# ===---------------------------------------------------------------------=== #


def export(name, outdir):
    """Exports workload `name` into `outdir` (see the module docstring)."""
    torch = _torch()
    w = WORKLOADS[name]
    os.makedirs(os.path.join(outdir, "in"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "ref"), exist_ok=True)
    m = build_module(name)
    torch.save(m.state_dict(), os.path.join(outdir, "state.pt"))
    inputs = make_inputs(name)
    for k, v in inputs.items():
        np.save(os.path.join(outdir, "in", k + ".npy"), v)
    args = tuple(torch.from_numpy(inputs[i[0]]) for i in w["inputs"])
    path = os.path.join(outdir, "model.onnx")
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(m, args, tmp, opset_version=OPSET,
                          input_names=[i[0] for i in w["inputs"]],
                          output_names=w["outputs"], do_constant_folding=True)
        outs = m(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    for oname, t in zip(w["outputs"], outs):
        np.save(os.path.join(outdir, "ref", oname + ".npy"), t.numpy())
    os.replace(tmp, path)
    flops, nbytes, notes = count_cost(path)
    meta = dict(name=name, desc=w["desc"], kind=w["kind"], layers=w["layers"],
                inputs=[i[0] for i in w["inputs"]], outputs=w["outputs"],
                flops=flops, bytes=nbytes, cost_notes=notes, opset=OPSET,
                torch=torch.__version__)
    with open(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


if __name__ == "__main__":
    # workloads.py NAME OUTDIR: export one workload (used by bench/run, in a
    # subprocess so the parent never imports torch).
    print(json.dumps(export(sys.argv[1], sys.argv[2])))
