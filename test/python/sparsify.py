# llmc.compile(..., sparsify=...) on a model whose constant weights are
# pruned (16x16 blocks, 2:4): the sparse kernels give numpy's results
# (float64 reference; |error| <= 1e-5 sum |x| |w|), as the dense path does;
# run_pipeline shows the format llm-sparsify-weights chose; a bad format is a
# ValueError naming the pass option.
# RUN: %python %s | FileCheck %s

import numpy as np

import llmc

rng = np.random.default_rng(5)
K, N = 64, 48
w1 = rng.standard_normal((N, K)).astype(np.float32)
keep = rng.random((N // 16, K // 16)) < 0.3
keep[0, 0] = True
w1 *= np.kron(keep, np.ones((16, 16), np.float32))  # 16x16 blocks
w2 = rng.standard_normal((N, N)).astype(np.float32)
for n in range(N):  # exactly 2 of every 4 along K
    for g in range(0, N, 4):
        w2[n, g + rng.choice(4, 2, replace=False)] = 0


def literal(a):
    return "dense<" + np.array2string(
        a.astype(np.float64), separator=",", threshold=1 << 30,
        max_line_width=1 << 30, floatmode="unique").replace("\n", "") + ">"


MODEL = f"""
func.func @main(%x: tensor<1x{K}xf32>) -> tensor<1x{N}xf32> {{
  %w1 = llm.constant {literal(w1)} : tensor<{N}x{K}xf32>
  %w2 = llm.constant {literal(w2)} : tensor<{N}x{N}xf32>
  %h = llm.matmul %x, %w1 {{transpose_b}} : (tensor<1x{K}xf32>, tensor<{N}x{K}xf32>) -> tensor<1x{N}xf32>
  %r = llm.relu %h : tensor<1x{N}xf32>
  %y = llm.matmul %r, %w2 {{transpose_b}} : (tensor<1x{N}xf32>, tensor<{N}x{N}xf32>) -> tensor<1x{N}xf32>
  return %y : tensor<1x{N}xf32>
}}
"""

x = rng.standard_normal((1, K)).astype(np.float32)
h = np.maximum(x.astype(np.float64) @ w1.T.astype(np.float64), 0)
ref = h @ w2.T.astype(np.float64)
bound = 1e-5 * (np.abs(h) @ np.abs(w2.T)) + 1e-5 * np.abs(ref).max()

for sparsify in (None, "auto", "bsr16x16", "csr"):
    opts = {"sparsify": sparsify} if sparsify else {}
    y = llmc.compile(MODEL, **opts)(x)
    ok = y.shape == ref.shape and bool(np.all(np.abs(y - ref) <= bound))
    print(f"sparsify={sparsify}: {'PASS' if ok else 'FAIL'}")
# CHECK: sparsify=None: PASS
# CHECK-NEXT: sparsify=auto: PASS
# CHECK-NEXT: sparsify=bsr16x16: PASS
# CHECK-NEXT: sparsify=csr: PASS

# The choice, as the pipeline records it.
ir = llmc.run_pipeline(MODEL, "llm-sparsify-weights")
print(sorted(set(
    line.split('format = "')[1].split('"')[0] for line in ir.splitlines()
    if "llm.sparse_format" in line)))
# CHECK-NEXT: ['2:4', 'bsr16x16']

try:
    llmc.compile(MODEL, sparsify="bsr3")
    print("no error")
except ValueError as e:
    print("ValueError:", " ".join(str(e).split())[:200])
# CHECK-NEXT: ValueError: {{.*}}llm-sparsify-weights: unknown format 'bsr3'
