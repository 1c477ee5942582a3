#!/usr/bin/env python3
# ===- check_generate_past.py - llmc generate on decoder-with-past exports -=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Checks `llmc generate MODEL.onnx --greedy` on decoder exports with
past_key_values (export_past_kv.py) against a torch greedy loop that uses the
module's own key/value cache (the past fed back as inputs, as the ONNX
graph expects), token for token.

For each FAMILY the model (LAYERS layers, d 48, a position table of BOUND
rows, 2-D weights scaled by 4 so that greedy ids vary) is exported, generated
from PROMPT for NEW tokens by llmc (the importer's cached form: one compile,
the prefill and every decode step), and compared with torch. Prints
`FAMILY: N ids equal (D distinct; smallest top-2 logit margin M) PASS`, or
FAIL with the first differing position; exits 1 on any failure. The margin
(torch's, over the loop) shows how close a tie the comparison survived; the
distinct count that the model does not repeat one token.

Usage: check_generate_past.py LLMC WORKDIR FAMILY... [--layers 2]
           [--bound 96] [--new 64] [--prompt 3,14,15,9,26] [--no-opt]
"""
import argparse
import os
import subprocess
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_corpus as ec  # noqa: E402
import export_past_kv as epk  # noqa: E402

SCALE = 4.0


def torch_greedy(model, layers, kv, prompt, n):
    """Greedy ids and the smallest top-2 logit margin over the loop."""
    ids, past, out = torch.tensor([prompt]), epk.empty_past(layers, kv), []
    margin = float("inf")
    with torch.no_grad():
        for _ in range(n):
            res = epk.step(model, ids, past)
            top = torch.topk(res[0][0, -1], 2).values
            margin = min(margin, float(top[0] - top[1]))
            tok = int(res[0][0, -1].argmax())
            out.append(tok)
            past = list(res[1:])
            ids = torch.tensor([[tok]])
    return out, margin


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("llmc")
    p.add_argument("workdir")
    p.add_argument("families", nargs="+", choices=epk.FAMILIES)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--bound", type=int, default=96)
    p.add_argument("--new", type=int, default=64)
    p.add_argument("--prompt", default="3,14,15,9,26")
    p.add_argument("--no-opt", action="store_true")
    a = p.parse_args()
    prompt = [int(t) for t in a.prompt.split(",")]
    os.makedirs(a.workdir, exist_ok=True)
    ec.set_size(48, 4, 1, a.bound // 2)
    failed = 0
    for family in a.families:
        path = os.path.join(a.workdir, family + "_past.onnx")
        epk.export(family, path, a.layers, SCALE)
        cmd = [a.llmc, "generate", path, "--greedy", "--prompt-ids", a.prompt,
               "--max-new-tokens", str(a.new)] + (["--no-opt"] if a.no_opt
                                                   else [])
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print("%s: FAIL (llmc exit %d): %s" % (family, run.returncode,
                                                  run.stderr.strip()))
            failed += 1
            continue
        text = run.stdout.strip()
        got = [int(t) for t in text.split(",")] if text else []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, kv = epk.build(family, a.layers, SCALE)
            want, margin = torch_greedy(model, a.layers, kv, prompt, a.new)
        if got != want:
            first = next((i for i, (x, y) in enumerate(zip(got, want))
                          if x != y), min(len(got), len(want)))
            print("%s: FAIL at new token %d: llmc %s, torch %s (llmc %d ids, "
                  "torch %d)" % (family, first, got[first:first + 1],
                                 want[first:first + 1], len(got), len(want)))
            failed += 1
            continue
        print("%s: %d ids equal (%d distinct; smallest top-2 logit margin "
              "%.3g) PASS" % (family, len(got), len(set(got)), margin))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
