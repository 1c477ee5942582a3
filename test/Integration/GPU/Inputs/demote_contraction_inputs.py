"""Model, inputs and check of test/Integration/GPU/demote-contraction-inputs.test.

  demote_contraction_inputs.py make DIR   writes DIR/m.mlir (a projection
      x[64, 96] @ W[96, 128] + b with constant W and b, and x @ x^T, two
      activations) and DIR/x.npy, seeded;
  demote_contraction_inputs.py check DIR  compares DIR/{bf16,f16}/out*.npy
      (the model run with llm-lower-to-nvvm's demote-contraction-inputs) with
      a float64 numpy reference whose matmul inputs are rounded to bf16 / f16
      (round to nearest even) first, and DIR/f32/out*.npy (the exact f32 run)
      with the exact reference. Tolerance: K * 2^-24 * max(1, max |ref|) (a
      bound of the f32 accumulation's rounding in another order). A demoted run must also differ from
      the exact one by more than ten times that (else the rounding did not
      happen). Prints one PASS/FAIL line per run.
"""
import os
import sys

import numpy as np


def round_bf16(a):
    """`a` (float32) rounded to bf16 (nearest even), back in float32."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32)


def round_f16(a):
    return a.astype(np.float16).astype(np.float32)


def make(out):
    rng = np.random.default_rng(7)
    w = rng.uniform(-1, 1, (96, 128)).astype(np.float32)
    b = rng.uniform(-1, 1, (128,)).astype(np.float32)
    x = rng.uniform(-1, 1, (64, 96)).astype(np.float32)
    np.save(os.path.join(out, "w.npy"), w)
    np.save(os.path.join(out, "b.npy"), b)
    np.save(os.path.join(out, "x.npy"), x)

    def hexof(a):
        return "0x" + a.tobytes().hex().upper()

    with open(os.path.join(out, "m.mlir"), "w") as f:
        f.write(f"""func.func @main(%x: tensor<64x96xf32>) -> (tensor<64x128xf32>, tensor<64x64xf32>) {{
  %w = llm.constant dense<"{hexof(w)}"> : tensor<96x128xf32>
  %b = llm.constant dense<"{hexof(b)}"> : tensor<128xf32>
  %0 = llm.matmul %x, %w : (tensor<64x96xf32>, tensor<96x128xf32>) -> tensor<64x128xf32>
  %1 = llm.add %0, %b : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %2 = llm.matmul %x, %x {{transpose_b}} : (tensor<64x96xf32>, tensor<64x96xf32>) -> tensor<64x64xf32>
  return %1, %2 : tensor<64x128xf32>, tensor<64x64xf32>
}}
""")


def check(out):
    w, b, x = (np.load(os.path.join(out, n + ".npy")) for n in "wbx")
    k = x.shape[1]

    def refs(rnd):
        xr, wr = rnd(x).astype(np.float64), rnd(w).astype(np.float64)
        return [xr @ wr + b, xr @ xr.T]

    exact = refs(lambda a: a)
    ok = True
    for name, rnd in (("f32", lambda a: a), ("bf16", round_bf16),
                      ("f16", round_f16)):
        expected = refs(rnd)
        worst, apart = 0.0, float("inf")
        for i, ref in enumerate(expected):
            got = np.load(os.path.join(out, name, "out%d.npy" % i))
            tol = k * 2.0 ** -24 * max(1.0, np.abs(ref).max())
            worst = max(worst, np.abs(got - ref).max() / tol)
            if name != "f32":
                apart = min(apart, np.abs(got - exact[i]).max() / tol)
        good = worst <= 1.0 and (name == "f32" or apart > 10.0)
        ok &= good
        print("%s: %s (max error %.3g of the tolerance%s)" %
              (name, "PASS" if good else "FAIL", worst,
               "" if name == "f32" else
               "; %.3g tolerances from the exact result" % apart))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2]))
