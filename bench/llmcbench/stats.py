# ===- stats.py - the harness's statistics, output check and roofline ----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Pure functions of bench/run (no processes, no torch), unit-tested by
test/bench/harness-self-test.test through `bench/run --self-test`."""

import math

# Output check: a system's output y passes against torch eager's reference r
# when  max|y - r| <= CHECK_TOL * max(max|r|, 1)  (a normwise relative bound,
# per output). f32 results of differently ordered sums (K up to 4096) differ
# by ~sqrt(K) * 2^-24 * max|r| ~ 4e-6 * max|r|; fused transcendental
# approximations (ORT's and llmc's tanh/erf/exp) by ~1e-6 relative. 1e-4 is
# 25x the first and rejects any real error (a wrong mask, a dropped bias).
CHECK_TOL = 1e-4


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return float("nan")
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def summarize(trial_medians, best_calls):
    """A system's time on a workload: the median over trials of each trial's
    median call time; the spread is the [min, max] of the trial medians; best
    is the fastest single call seen. All in ms."""
    if not trial_medians:
        return None
    return dict(median_ms=median(trial_medians), min_ms=min(trial_medians),
                max_ms=max(trial_medians), best_call_ms=min(best_calls),
                trials=len(trial_medians))


def compare_outputs(outs, refs):
    """outs, refs: dicts name -> ndarray. Returns (ok, max_rel_err, message);
    max_rel_err is max|y - r| / max(max|r|, 1) over the outputs."""
    import numpy as np
    worst = 0.0
    for name, r in refs.items():
        if name not in outs:
            return False, float("inf"), "output '%s' missing" % name
        y = outs[name]
        if tuple(y.shape) != tuple(r.shape):
            return False, float("inf"), "output '%s' has shape %s, expected %s" % (
                name, tuple(y.shape), tuple(r.shape))
        y = y.astype(np.float64)
        r = r.astype(np.float64)
        if not np.all(np.isfinite(y)):
            return False, float("inf"), "output '%s' has non-finite values" % name
        scale = max(float(np.max(np.abs(r))) if r.size else 0.0, 1.0)
        err = float(np.max(np.abs(y - r))) / scale if r.size else 0.0
        worst = max(worst, err)
        if err > CHECK_TOL:
            return False, worst, "output '%s': max|y-ref|/max(|ref|,1) = %.3g > %g" % (
                name, err, CHECK_TOL)
    return True, worst, "ok"


def roofline(flops, nbytes, peak_gflops, bw_gbs):
    """The roofline bound in ms: max(FLOPs / peak, bytes / bandwidth), and
    which roof binds ('compute' or 'memory')."""
    t_c = flops / (peak_gflops * 1e9) if peak_gflops else 0.0
    t_m = nbytes / (bw_gbs * 1e9) if bw_gbs else 0.0
    return max(t_c, t_m) * 1e3, ("compute" if t_c >= t_m else "memory")


def achieved(flops, nbytes, ms):
    """(GFLOP/s, GB/s) at a time of `ms` milliseconds."""
    if not ms or math.isnan(ms):
        return float("nan"), float("nan")
    return flops / (ms * 1e-3) / 1e9, nbytes / (ms * 1e-3) / 1e9


def speedup(peer_ms, llmc_ms):
    """llmc's speedup over a peer: peer time / llmc time (> 1: llmc faster)."""
    if not peer_ms or not llmc_ms:
        return None
    return peer_ms / llmc_ms


def self_test():
    """Checks the functions above on synthetic data; returns a list of
    failures (empty when all pass)."""
    import numpy as np
    fails = []

    def expect(cond, what):
        if not cond:
            fails.append(what)

    expect(median([3, 1, 2]) == 2, "median odd")
    expect(median([4, 1, 2, 3]) == 2.5, "median even")
    s = summarize([5.0, 1.0, 3.0], [0.9, 2.5, 4.0])
    expect(s["median_ms"] == 3.0 and s["min_ms"] == 1.0 and s["max_ms"] == 5.0
           and s["best_call_ms"] == 0.9 and s["trials"] == 3, "summarize")
    expect(summarize([], []) is None, "summarize empty")
    r = {"y": np.linspace(-10, 10, 100, dtype=np.float32).reshape(10, 10)}
    ok, err, _ = compare_outputs({"y": r["y"] + 1e-5}, r)
    expect(ok and 0 < err < CHECK_TOL, "compare: small error accepted")
    ok, _, msg = compare_outputs({"y": r["y"] + 1e-2}, r)
    expect(not ok and "max|y-ref|" in msg, "compare: 1e-3 relative error rejected")
    bad = r["y"].copy()
    bad[3, 4] = np.nan
    ok, _, msg = compare_outputs({"y": bad}, r)
    expect(not ok and "non-finite" in msg, "compare: NaN rejected")
    ok, _, msg = compare_outputs({"y": r["y"].reshape(100)}, r)
    expect(not ok and "shape" in msg, "compare: shape mismatch rejected")
    ok, _, msg = compare_outputs({}, r)
    expect(not ok and "missing" in msg, "compare: missing output rejected")
    t, bound = roofline(2e9, 1e6, 100.0, 10.0)
    expect(abs(t - 20.0) < 1e-9 and bound == "compute", "roofline compute")
    t, bound = roofline(1e6, 1e9, 100.0, 10.0)
    expect(abs(t - 100.0) < 1e-9 and bound == "memory", "roofline memory")
    g, b = achieved(2e9, 1e9, 10.0)
    expect(abs(g - 200.0) < 1e-9 and abs(b - 100.0) < 1e-9, "achieved")
    expect(speedup(4.0, 2.0) == 2.0 and speedup(None, 2.0) is None, "speedup")
    return fails
