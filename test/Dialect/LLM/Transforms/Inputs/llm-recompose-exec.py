# Helper of llm-recompose-exec.mlir.
#   gen DIR:            writes DIR/x.npy (4x16), DIR/{g,b,w}.npy (16),
#                       DIR/{q,k,v}.npy (1x2x8x16) and DIR/mask.npy (1x1x8x8,
#                       0 or -1e4 above the diagonal) with a fixed seed.
#   compare DIR NAMES:  compares output K of DIR/decomposed with output K of
#                       DIR/recomposed (outK.npy) for the K-th NAME and prints
#                       "NAME: PASS ..." or "NAME: FAIL ...". Tolerance (f32):
#                       |a - b| <= 1e-6 + 1e-5 |b|. Also checks each recomposed
#                       output against a float64 numpy reference with the same
#                       tolerance, so that an identical wrong result on both
#                       sides cannot pass.

import sys

import math

import numpy as np


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def attention(q, k, v, mask):
    s = q @ k.transpose(0, 1, 3, 2) / 4.0 + mask
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def reference(x, g, b, w, q, k, v, mask):
    m = x.mean(-1, keepdims=True)
    var = ((x - m) ** 2).mean(-1, keepdims=True)
    ln = (x - m) / np.sqrt(var + 1e-5) * g + b
    rms = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
    silu = x / (1 + np.exp(-x))
    erf = np.vectorize(math.erf)
    gelu_erf = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    return {"ln": ln, "rms": rms, "gelu_erf": gelu_erf, "gelu": gelu_tanh(x),
            "silu": silu, "attention": attention(q, k, v, mask)}


def main():
    mode, root = sys.argv[1], sys.argv[2]
    if mode == "gen":
        rng = np.random.default_rng(0)
        np.save(f"{root}/x.npy", rng.uniform(-3, 3, (4, 16)).astype(np.float32))
        for name in ("g", "b", "w"):
            np.save(f"{root}/{name}.npy",
                    rng.uniform(-1.5, 1.5, (16,)).astype(np.float32))
        for name in ("q", "k", "v"):
            np.save(f"{root}/{name}.npy",
                    rng.uniform(-1, 1, (1, 2, 8, 16)).astype(np.float32))
        mask = np.triu(np.full((8, 8), -1e4, np.float32), 1)[None, None]
        np.save(f"{root}/mask.npy", mask)
        return
    args = [np.load(f"{root}/{n}.npy").astype(np.float64)
            for n in ("x", "g", "b", "w", "q", "k", "v", "mask")]
    ref = reference(*args)
    for k, name in enumerate(sys.argv[3:]):
        a = np.load(f"{root}/decomposed/out{k}.npy")
        b = np.load(f"{root}/recomposed/out{k}.npy")
        if a.shape != b.shape or a.dtype != b.dtype:
            print(f"{name}: FAIL shape/dtype {a.shape} {a.dtype} vs "
                  f"{b.shape} {b.dtype}")
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        err = np.abs(a64 - b64)
        ref_err = np.abs(b64 - ref[name])
        ok = (not np.isnan(a64).any() and not np.isnan(b64).any()
              and (err <= 1e-6 + 1e-5 * np.abs(b64)).all()
              and (ref_err <= 1e-6 + 1e-5 * np.abs(ref[name])).all())
        print(f"{name}: {'PASS' if ok else 'FAIL'} max_abs_err={err.max():.3g} "
              f"max_ref_err={ref_err.max():.3g}")


if __name__ == "__main__":
    main()
