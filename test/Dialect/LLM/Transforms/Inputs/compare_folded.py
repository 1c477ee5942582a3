# Compares output K of DIR/unfolded with output K of DIR/folded (outK.npy) for
# the K-th NAME and prints "NAME: PASS ..." or "NAME: FAIL ..." (see
# llm-fold-constants-exec.mlir for the tolerances).

import sys

import numpy as np

TOL = {np.dtype(np.float32): (1e-6, 1e-5), np.dtype(np.float16): (1e-3, 2e-3)}

root, names = sys.argv[1], sys.argv[2:]
for k, name in enumerate(names):
    a = np.load(f"{root}/unfolded/out{k}.npy")
    b = np.load(f"{root}/folded/out{k}.npy")
    if a.shape != b.shape or a.dtype != b.dtype:
        print(f"{name}: FAIL shape/dtype {a.shape} {a.dtype} vs {b.shape} {b.dtype}")
        continue
    atol, rtol = TOL.get(a.dtype, (0.0, 0.0))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    nan_ok = np.array_equal(np.isnan(a64), np.isnan(b64))
    m = ~np.isnan(a64)
    err = np.abs(a64[m] - b64[m])
    bad = err > atol + rtol * np.abs(b64[m])
    if nan_ok and not bad.any():
        print(f"{name}: PASS max_abs_err={err.max() if err.size else 0:.3g}")
    else:
        print(f"{name}: FAIL nan_match={nan_ok} max_abs_err={err.max():.3g} "
              f"bad={int(bad.sum())}")
