#!/usr/bin/env python3
# ===- check_dynamic.py - one compile of a dynamic export, every length ---=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Checks that a corpus model exported with a dynamic sequence axis
(export_corpus.py, torch.onnx.export with dynamic_axes, 2 layers, batch 1
or --batch B) imports with that axis kept dynamic and, compiled once,
matches torch at several lengths.

For each FAMILY: the model is exported at opset 14 with dynamic batch and
sequence axes and run by `llmc run` with --dim batch=B (the sequence
bound from the model, else --dim-bound seq=BOUND: the same compiled model
for every length) on new inputs of each LENGTH
(random ids / activations; padding masks with the last key padded,
bool attention masks causal) and compared with
torch's forward on the same module: |llmc - torch| <= 1e-4 + 1e-4 |torch|
elementwise. Prints `FAMILY S=LENGTH max_err=E OK` (or FAIL with the
reason) per length (`FAMILY B=B S=LENGTH ...` for a batch above 1), then
`N passed, N failed`; exits 1 on any failure.

Usage: check_dynamic.py BIN_DIR WORKDIR FAMILY... [--lengths 1,7,20]
                        [--bound 32] [--batch 1]
"""
import argparse
import os
import subprocess
import sys
import warnings

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_corpus as ec  # noqa: E402

ATOL = RTOL = 1e-4


def inputs_at(args, names, dyn, length, gen):
    """New inputs like `args` with every dynamic sequence axis = length."""
    out = []
    for name, a in zip(names, args):
        shape = list(a.shape)
        for axis, sym in dyn.get(name, {}).items():
            if sym != "batch":
                shape[axis] = length
        # Masks: the last key is padding when there are several; an
        # attention mask input is causal.
        if a.dtype == torch.bool and "padding" in name:
            t = torch.zeros(shape, dtype=torch.bool)
            if length > 1:
                t[..., -1] = True
            out.append(t)
        elif a.dtype == torch.bool:
            out.append(torch.ones(shape, dtype=torch.bool).tril())
        elif a.dtype == torch.long and "mask" in name:
            t = torch.ones(shape, dtype=torch.long)
            if length > 1:
                t[..., -1] = 0
            out.append(t)
        elif a.dtype == torch.long:
            hi = int(a.max()) + 1
            out.append(torch.randint(0, max(hi, 2), shape, generator=gen))
        else:
            out.append(torch.randn(shape, generator=gen))
    return out


def check(bin_dir, work, family, lengths, bound, batch):
    ec.set_size(48, 3, batch, 7)
    m, args, names, out_names, dyn = ec.build(family, 2)
    m.eval()
    path = os.path.join(work, family + ".onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(m, args, path, opset_version=14, input_names=names,
                          output_names=out_names, do_constant_folding=False,
                          dynamic_axes=dyn)
    # Models without a position table or mask buffer need a bound.
    opts = ["--dim", "batch=%d" % batch]
    if family.startswith(("mha", "encoder", "sdpa", "bloom")):
        opts += ["--dim-bound", "seq=%d" % bound]
        if family == "sdpa_mask":
            opts += ["--dim-bound", "seq_k=%d" % bound]
    gen = torch.Generator().manual_seed(1)
    lines, failed = [], 0
    for length in lengths:
        new = inputs_at(args, names, dyn, length, gen)
        with torch.no_grad():
            want = m(*new)
        want = (want if isinstance(want, tuple) else (want,))[0].numpy()
        cmd = [os.path.join(bin_dir, "llmc"), "run", path, "--quiet",
               "--output-dir", os.path.join(work, "%s_%d" % (family, length))]
        cmd += opts
        for i, (name, t) in enumerate(zip(names, new)):
            npy = os.path.join(work, "%s_%d_in%d.npy" % (family, length, i))
            np.save(npy, t.numpy())
            cmd += ["--input", "%s=%s" % (name, npy)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        tag = "%s S=%d" % (family, length)
        if batch != 1:
            tag = "%s B=%d S=%d" % (family, batch, length)
        if r.returncode:
            lines.append("%s: FAIL: run: %s" % (tag, r.stderr.strip()))
            failed += 1
            continue
        got = np.load(os.path.join(work, "%s_%d" % (family, length),
                                   out_names[0] + ".npy"))
        if got.shape != want.shape:
            lines.append("%s: FAIL: shape %s, torch %s" % (tag, got.shape,
                                                          want.shape))
            failed += 1
            continue
        err = float(np.abs(got - want).max())
        ok = bool(np.all(np.abs(got - want) <= ATOL + RTOL * np.abs(want)))
        lines.append("%s max_err=%.1e %s" % (tag, err, "OK" if ok else "FAIL"))
        failed += not ok
    return lines, failed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bin_dir")
    p.add_argument("work")
    p.add_argument("families", nargs="+")
    p.add_argument("--lengths", default="1,7,20")
    p.add_argument("--bound", type=int, default=32)
    p.add_argument("--batch", type=int, default=1)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    lengths = [int(v) for v in a.lengths.split(",")]
    passed = failed = 0
    for family in a.families:
        lines, f = check(a.bin_dir, a.work, family, lengths, a.bound,
                             a.batch)
        for line in lines:
            print(line, flush=True)
        failed += f
        passed += len(lines) - f
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
