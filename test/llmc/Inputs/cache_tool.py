#!/usr/bin/env python3
"""Helpers of the compile cache tests (test/llmc/compile-cache.mlir).

  cache_tool.py corrupt DIR      flips one byte in the middle of every entry
  cache_tool.py truncate DIR     cuts every entry to half its size
  cache_tool.py count DIR        prints the number of entries ("N entries")
  cache_tool.py info DIR         prints each entry's weights region (the
                                 externalized constant weights: symbols,
                                 bytes, whether it starts on a page)
  cache_tool.py corrupt-weights DIR
                                 flips one byte in the middle of every
                                 entry's weights region
  cache_tool.py model OUT.mlir W.npy B.npy [K N]
                                 writes a model x [4, K] @ w + b with a
                                 dense_resource weight w [K, N] f32 (default
                                 [64, 32], 8 KiB: kept out of the object) and
                                 b [N] f32 (128 bytes: kept in it), and saves
                                 w and b for the reference
  cache_tool.py evict LLMC MODEL DIR
      checks the size limit and the least-recently-used eviction with
      `LLMC_CACHE_MAX_MB` set from the measured entry sizes (so the check
      does not depend on how big the compiled code is); prints "evict OK".
"""

import glob
import json
import os
import re
import struct
import subprocess
import sys

# The entry header (lib/Runtime/CompileCache.cpp, format version 5).
HEADER = struct.Struct("<8sIIQQQQQ")


def entries(d):
    return sorted(glob.glob(os.path.join(d, "*.llmcc")))


def run(llmc, model, d, args, limit_bytes=None):
    """Runs `llmc run MODEL --verbose ARGS` on the cache DIR; returns the
    verbose line's outcome and the entry path."""
    env = dict(os.environ, LLMC_CACHE="on", LLMC_CACHE_DIR=d)
    if limit_bytes is not None:
        env["LLMC_CACHE_MAX_MB"] = repr(limit_bytes / 1048576.0)
    p = subprocess.run([llmc, "run", model, "--verbose"] + args, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    m = re.search(r"llmc: compile: cache (hit|miss).* \(([^()]*\.llmcc)\), "
                  r"[0-9.]+ s", p.stderr)
    if not m:
        sys.exit("no compile line in: " + p.stderr)
    return m.group(1), m.group(2), p.stderr


def evict(llmc, model, d):
    a, b, c = [], ["--opt-level=2"], ["--opt-level=1"]
    # Entry sizes, measured without a limit.
    sizes = {}
    for name, args in (("a", a), ("b", b), ("c", c)):
        _, path, _ = run(llmc, model, d, args)
        sizes[name] = os.path.getsize(path)
    for path in entries(d):
        os.remove(path)
    big = max(sizes.values())

    # Room for one entry: storing B evicts A, storing A again evicts B.
    one = int(big * 1.5)
    _, path_a, _ = run(llmc, model, d, a, one)
    outcome, path_b, _ = run(llmc, model, d, b, one)
    assert outcome == "miss", outcome
    assert entries(d) == [path_b], entries(d)
    outcome, _, _ = run(llmc, model, d, a, one)
    assert outcome == "miss", outcome
    assert entries(d) == [path_a], entries(d)

    # Room for two: A and B stored, A used (a hit makes it the newest), so
    # storing C evicts B, the least recently used, not A, the oldest stored.
    for path in entries(d):
        os.remove(path)
    two = int(big * 2.5)
    run(llmc, model, d, a, two)
    run(llmc, model, d, b, two)
    outcome, _, _ = run(llmc, model, d, a, two)
    assert outcome == "hit", outcome
    _, path_c, _ = run(llmc, model, d, c, two)
    assert entries(d) == sorted([path_a, path_c]), entries(d)

    # An entry larger than the whole limit is not stored.
    for path in entries(d):
        os.remove(path)
    outcome, _, err = run(llmc, model, d, a, big // 2)
    assert outcome == "miss" and "exceeds the cache size limit" in err, err
    assert entries(d) == [], entries(d)
    print("evict OK")


def header(path):
    with open(path, "rb") as f:
        data = f.read(HEADER.size)
    (magic, version, header_size, metadata_size, object_offset, object_size,
     weights_offset, weights_size) = HEADER.unpack(data)
    assert magic == b"LLMCACHE" and version == 5, (magic, version)
    with open(path, "rb") as f:
        f.seek(header_size)
        metadata = json.loads(f.read(metadata_size))
    return weights_offset, weights_size, metadata


def write_model(out, w_path, b_path, k=64, n=32):
    import numpy as np
    rng = np.random.default_rng(7)
    w = rng.standard_normal((k, n)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    np.save(w_path, w)
    np.save(b_path, b)

    def blob(a):  # dense_resource hex: a 4-byte alignment, then the bytes
        return "0x04000000" + a.tobytes().hex().upper()
    with open(out, "w") as f:
        f.write("""func.func @main(%x: tensor<4xKxf32>) -> tensor<4xNxf32> {
  %w = llm.constant dense_resource<w> : tensor<KxNxf32>
  %b = llm.constant dense_resource<b> : tensor<Nxf32>
  %0 = llm.matmul %x, %w : (tensor<4xKxf32>, tensor<KxNxf32>) -> tensor<4xNxf32>
  %1 = llm.add %0, %b : (tensor<4xNxf32>, tensor<Nxf32>) -> tensor<4xNxf32>
  return %1 : tensor<4xNxf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "W_BLOB",
      b: "B_BLOB"
    }
  }
#-}
""".replace("W_BLOB", blob(w)).replace("B_BLOB", blob(b))
                .replace("K", str(k)).replace("N", str(n)))


def main():
    cmd = sys.argv[1]
    if cmd == "corrupt":
        for path in entries(sys.argv[2]):
            data = bytearray(open(path, "rb").read())
            data[len(data) // 2] ^= 0x55
            open(path, "wb").write(data)
    elif cmd == "truncate":
        for path in entries(sys.argv[2]):
            os.truncate(path, os.path.getsize(path) // 2)
    elif cmd == "info":
        for path in entries(sys.argv[2]):
            offset, size, metadata = header(path)
            weights = metadata["weights"]
            print("weights: %d symbols, %d bytes, region %d bytes%s" % (
                len(weights), sum(w["size"] for w in weights), size,
                ", page-aligned" if offset % 4096 == 0 else ""))
    elif cmd == "corrupt-weights":
        for path in entries(sys.argv[2]):
            offset, size, _ = header(path)
            assert size > 0, "no weights region in " + path
            data = bytearray(open(path, "rb").read())
            data[offset + size // 2] ^= 0x55
            open(path, "wb").write(data)
    elif cmd == "model":
        write_model(sys.argv[2], sys.argv[3], sys.argv[4],
                    *[int(a) for a in sys.argv[5:7]])
    elif cmd == "count":
        print("%d entries" % len(entries(sys.argv[2])))
    elif cmd == "evict":
        evict(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
