"""Helpers of test/llmc/tune.test: rewrite and check llmc tuning caches.

  tune_cache.py check CACHE            every entry well formed, one per kernel;
                                       prints "entries N targets T"
  tune_cache.py set-tiles IN OUT       every matmul entry's tiles -> register
                                       [2, 16, 1], cache [0, 0, 0], every
                                       attention entry's -> [8, 16] (not a
                                       default of any target), written to OUT
  tune_cache.py retarget IN OUT NAME   every entry's target -> NAME
  tune_cache.py same A.npy B.npy       exits 1 unless the arrays agree to f32
                                       rounding (|a - b| <= 1e-5 |b| + 1e-6:
                                       other tiles may fuse a multiply and an
                                       add that the default rounds twice)
"""
import json
import sys

import numpy as np


def main():
    cmd = sys.argv[1]
    if cmd == "same":
        a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
        diff = np.abs(a.astype(np.float64) - b)
        if a.shape != b.shape or not (diff <= 1e-5 * np.abs(b) + 1e-6).all():
            print("arrays differ: max abs diff", float(np.max(diff)))
            return 1
        print("arrays agree", a.shape, "max abs diff", float(np.max(diff)))
        return 0
    with open(sys.argv[2]) as f:
        cache = json.load(f)
    assert cache["format"] == "llmc-tuning-cache" and cache["version"] == 1
    entries = cache["entries"]
    if cmd == "check":
        keys = set()
        for e in entries:
            if e["kernel"].startswith("attention "):
                assert len(e["attention_tile"]) == 2
                assert min(e["attention_tile"]) >= 1
            else:
                assert len(e["register_tile"]) == 3
                assert min(e["register_tile"]) >= 1
                assert len(e["cache_tile"]) == 3 and min(e["cache_tile"]) >= 0
            assert e["time_ms"] > 0 and e["default_ms"] > 0
            # The stored tiles are never slower than the defaults measured
            # in the same run.
            assert e["time_ms"] <= e["default_ms"], e
            keys.add((e["target"], e["kernel"]))
        assert len(keys) == len(entries), "duplicate entries"
        print("entries", len(entries), "targets",
              ",".join(sorted({e["target"] for e in entries})))
        return 0
    for e in entries:
        if cmd == "set-tiles" and e["kernel"].startswith("attention "):
            e["attention_tile"] = [8, 16]
        elif cmd == "set-tiles":
            e["register_tile"] = [2, 16, 1]
            e["cache_tile"] = [0, 0, 0]
        elif cmd == "retarget":
            e["target"] = sys.argv[4]
    with open(sys.argv[3], "w") as f:
        json.dump(cache, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
