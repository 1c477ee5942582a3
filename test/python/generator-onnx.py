# llmc.Generator on an ONNX decoder exported with its past
# (past_key_values.* inputs, present.* outputs; export_past_kv.py): the past
# becomes the session's caches, and the greedy ids equal a torch loop that
# feeds the past back to the same module, token for token.
# REQUIRES: torch
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %llmc_src_root %t | FileCheck %s

import os
import sys
import warnings

src, tmp = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "test", "lib", "onnx_models"))
import export_corpus as ec  # noqa: E402
import export_past_kv as epk  # noqa: E402

import llmc  # noqa: E402

ec.set_size(48, 4, 1, 24)
path = os.path.join(tmp, "llama_past.onnx")
epk.export("llama", path, layers=2, scale=4.0)
gen = llmc.Generator(path, cache=False)
# The bound is the rotary table's 48 rows; the vocabulary 2 * d.
# CHECK: vocab 96, max_sequence 48, position 0
print(f"vocab {gen.vocab_size}, max_sequence {gen.max_sequence}, position {gen.position}")
prompt = [3, 14, 15, 9, 26]
ids = list(gen.generate(prompt, max_new_tokens=24, greedy=True))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    model, kv = epk.build("llama", 2, 4.0)
    expected = epk.greedy(model, 2, kv, prompt, 24)
# CHECK-NEXT: 24 ids, equal to torch: True, distinct > 4: True
print(f"{len(ids)} ids, equal to torch: {ids == expected}, distinct > 4: {len(set(ids)) > 4}")
# The prompt and 23 decoded tokens are in the cache (the last new id is not
# decoded).
# CHECK-NEXT: position 28
print("position", gen.position)
