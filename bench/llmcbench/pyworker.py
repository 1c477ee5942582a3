# ===- pyworker.py - times one workload in torch or numpy -----------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""One timed trial of one workload on one Python system, in its own process
(started by bench/run under `taskset`, with the thread variables set).

Usage: pyworker.py SYSTEM WORKDIR THREADS WARMUP REPEAT [OUTDIR]

  SYSTEM   torch        eager module under torch.inference_mode()
           torchscript  torch.jit.trace + torch.jit.freeze +
                        torch.jit.optimize_for_inference
           numpy        `a @ b` on the same input files (matmul workloads)
  WORKDIR  an exported workload (workloads.export)
  OUTDIR   when given, the outputs are written there as <output>.npy

Runs WARMUP untimed calls, then REPEAT calls each timed with
time.perf_counter (inputs prepared beforehand), and prints one JSON line:
{"times_ms": [...], "info": {...}}.
"""

import json
import os
import sys
import time

import numpy as np


def main():
    system, wdir = sys.argv[1], sys.argv[2]
    threads, warmup, repeat = (int(x) for x in sys.argv[3:6])
    outdir = sys.argv[6] if len(sys.argv) > 6 else None
    with open(os.path.join(wdir, "meta.json")) as f:
        meta = json.load(f)
    inputs = [np.load(os.path.join(wdir, "in", n + ".npy")) for n in meta["inputs"]]
    info = {}
    if system == "numpy":
        if len(inputs) == 2:
            a, b = inputs
        else:
            # matvec: the weight lives in the ONNX graph; read the same bytes.
            import onnx
            from onnx import numpy_helper
            m = onnx.load(os.path.join(wdir, "model.onnx"))
            (b,) = [numpy_helper.to_array(t) for t in m.graph.initializer]
            a = inputs[0]
        b = np.ascontiguousarray(b)

        def call():
            return (a @ b,)
        info["numpy"] = np.__version__
    else:
        import torch
        torch.set_num_threads(threads)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import workloads
        m = workloads.build_module(meta["name"])
        m.load_state_dict(torch.load(os.path.join(wdir, "state.pt")))
        m.eval()
        args = tuple(torch.from_numpy(x) for x in inputs)
        if system == "torchscript":
            with torch.no_grad():
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    traced = torch.jit.trace(m, args)
                frozen = torch.jit.freeze(traced)
                m = torch.jit.optimize_for_inference(frozen)
        elif system != "torch":
            sys.exit("pyworker: unknown system " + system)
        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
        # inference_mode is what torch recommends for serving; TorchScript
        # modules run under no_grad (inference_mode tensors are not accepted
        # by every frozen graph in 1.13).
        ctx = torch.inference_mode if system == "torch" else torch.no_grad

        def call():
            with ctx():
                r = m(*args)
            return r if isinstance(r, tuple) else (r,)

    for _ in range(warmup):
        outs = call()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        outs = call()
        times.append((time.perf_counter() - t0) * 1e3)
    if outdir:
        os.makedirs(outdir, exist_ok=True)
        for name, o in zip(meta["outputs"], outs):
            o = o.detach().numpy() if hasattr(o, "detach") else np.asarray(o)
            np.save(os.path.join(outdir, name + ".npy"), o)
    print(json.dumps({"times_ms": times, "info": info}))


if __name__ == "__main__":
    main()
