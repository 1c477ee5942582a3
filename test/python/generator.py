# llmc.Generator: greedy ids of the gpt2_decoder example equal a float64
# numpy greedy loop without a cache (llmc_ref.gpt2_model on the whole
# sequence at every step); tokens come one at a time from a Python generator;
# seeded sampling is reproducible; bad input raises ValueError before
# anything runs and leaves the generator usable.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_decoder --d 32 --heads 2 --layers 2 --vocab 40 --max-seq 32 --out-dir %t
# RUN: %python %llmc_src_root/examples/generate.py gpt2_model --d 32 --heads 2 --seq 8 --layers 1 --vocab 16 --out-dir %t
# RUN: %python %s %t | FileCheck %s

import os
import sys
import types

import numpy as np

import llmc
import llmc_check
import llmc_ref

tmp = sys.argv[1]
model = os.path.join(tmp, "gpt2_decoder.mlir")
gen = llmc.Generator(model, cache=False)
# CHECK: vocab 40, max_sequence 32, position 0
print(f"vocab {gen.vocab_size}, max_sequence {gen.max_sequence}, position {gen.position}")

prompt = [7, 1, 30, 12, 3]
tokens = gen.generate(prompt, max_new_tokens=20)
# CHECK-NEXT: a generator: True
print("a generator:", isinstance(tokens, types.GeneratorType))
first = next(tokens)
# One token produced: the prompt is in the cache, nothing decoded yet.
# CHECK-NEXT: after the first token: position 5
print("after the first token: position", gen.position)
ids = [first] + list(tokens)

config, weights = llmc_check.read_example(model)
expected = []
for _ in range(20):
  logits = llmc_ref.gpt2_model(np.array([prompt + expected]), weights, config["heads"],
                               config["layers"], eps=config["eps"])[0, -1]
  expected.append(int(np.argmax(logits)))
# CHECK-NEXT: greedy equal to numpy: True
print("greedy equal to numpy:", ids == expected, "" if ids == expected else (ids, expected))
# CHECK-NEXT: distinct ids > 3: True
print("distinct ids > 3:", len(set(ids)) > 3)

a = list(gen.generate(prompt, max_new_tokens=12, temperature=0.9, top_k=10, seed=3))
b = list(gen.generate(prompt, max_new_tokens=12, temperature=0.9, top_k=10, seed=3))
# CHECK-NEXT: seeded sampling reproducible: True 12
print("seeded sampling reproducible:", a == b, len(a))

# Stops when the sequence reaches the bound: 30 prompt tokens + 2 new ones
# (the last one never enters the cache).
# CHECK-NEXT: at the bound: 2 tokens, position 31
n = len(list(gen.generate(list(range(30)), max_new_tokens=10)))
print(f"at the bound: {n} tokens, position {gen.position}")


def expect(fn, *args, **kwargs):
  try:
    fn(*args, **kwargs)
  except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
    return
  print("NO EXCEPTION")


# CHECK-NEXT: ValueError: token id 40 (#1) is outside the vocabulary [0, 40)
expect(gen.generate, [3, 40])
# CHECK-NEXT: ValueError: the prompt has 33 tokens, more than the 32 positions
expect(gen.generate, list(range(33)))
# A prompt that fills the bound leaves no room for a new token.
# CHECK-NEXT: ValueError: the prompt has 32 tokens, as many as the 32 positions available: no room for a new token
expect(gen.generate, list(range(32)))
# CHECK-NEXT: ValueError: top-p must be in (0, 1], got 0
expect(gen.generate, [3], top_p=0)
# CHECK-NEXT: ValueError: {{.*}}generation entry @main: has no llm.kv_cache argument
expect(llmc.Generator, os.path.join(tmp, "gpt2_model.mlir"), cache=False)
# CHECK-NEXT: ValueError: token id must be an integer, got 1.5
expect(gen.generate, [3, 1.5])
# CHECK-NEXT: ValueError: stop_id 40 is outside the vocabulary [0, 40)
expect(gen.generate, [3], stop_id=40)
# One sequence per Generator: an earlier generator stops with an error once
# a later generate() restarted the session.
old = gen.generate(prompt, max_new_tokens=8)
next(old)
list(gen.generate([1, 2], max_new_tokens=3))
try:
  next(old)
  print("NO EXCEPTION")
except RuntimeError as e:
  # CHECK-NEXT: RuntimeError: this generation was superseded
  print("RuntimeError:", str(e).split(":")[0])
# Still usable after the errors.
# CHECK-NEXT: again equal: True
print("again equal:", list(gen.generate(prompt, max_new_tokens=20)) == expected)
