# End-to-end through the Python package: torch models defined here (a
# 2-layer GPT-2-style model with tied lm_head, the LLaMA-style block of
# test/lib/onnx_models/torch_models.py, nn.TransformerEncoderLayer), exported
# with torch.onnx.export at opsets 13 and 17, compiled with llmc.compile and
# called on numpy arrays: max |llmc - torch| <= 1e-4 (f32). LLVM opt level 1
# keeps the test fast (the llm/linalg pipeline is the default one).
# REQUIRES: torch, onnx-python
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t 2>/dev/null | FileCheck %s

import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib", "onnx_models"))
from torch_models import Block, TinyLlama  # noqa: E402

import llmc  # noqa: E402

warnings.filterwarnings("ignore")
tmp = sys.argv[1]


class TiedGPT2(nn.Module):
    """GPT-2-style: token + position embeddings, `layers` pre-LayerNorm
    blocks, final LayerNorm, lm_head sharing the token embedding."""

    def __init__(self, vocab=64, d=32, heads=4, max_seq=16, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, max_seq)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, ids):
        pos = torch.arange(0, ids.size(1), dtype=torch.long).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def models():
    torch.manual_seed(0)
    ids = torch.randint(0, 64, (1, 8))
    yield "gpt2x2-tied", TiedGPT2().eval(), ids, "input_ids", "logits"
    yield "llama", TinyLlama().eval(), ids, "input_ids", "logits"
    enc = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                     batch_first=True).eval()
    yield "encoder", enc, torch.randn(2, 6, 32), "src", "out"


for name, module, arg, in_name, out_name in models():
    with torch.no_grad():
        expected = module(arg).numpy()
    for opset in (13, 17):
        path = os.path.join(tmp, "%s-%d.onnx" % (name, opset))
        torch.onnx.export(module, (arg,), path, opset_version=opset,
                          input_names=[in_name], output_names=[out_name])
        model = llmc.compile(path, opt_level=1)
        actual = model(**{in_name: arg.numpy()})
        err = float(np.abs(actual.astype(np.float64) - expected).max())
        print("%s opset %d: %s %s -> %s %s max_abs_diff %s" % (
            name, opset, model.inputs[0].name, model.inputs[0].shape,
            model.outputs[0].name, actual.shape,
            "<= 1e-4" if err <= 1e-4 else "= %.3g FAIL" % err))

# CHECK: gpt2x2-tied opset 13: input_ids (1, 8) -> logits (1, 8, 64) max_abs_diff <= 1e-4
# CHECK: gpt2x2-tied opset 17: input_ids (1, 8) -> logits (1, 8, 64) max_abs_diff <= 1e-4
# CHECK: llama opset 13: input_ids (1, 8) -> logits (1, 8, 64) max_abs_diff <= 1e-4
# CHECK: llama opset 17: input_ids (1, 8) -> logits (1, 8, 64) max_abs_diff <= 1e-4
# CHECK: encoder opset 13: src (2, 6, 32) -> out (2, 6, 32) max_abs_diff <= 1e-4
# CHECK: encoder opset 17: src (2, 6, 32) -> out (2, 6, 32) max_abs_diff <= 1e-4
