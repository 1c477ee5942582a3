#!/usr/bin/env bash
# The GPU check of llmc's CUDA path, in two steps (docs/GPU.md):
#
#   bash scripts/gpu-check.sh prepare DIR [CHIP]   # here: needs the build and
#                                                  # the CUDA toolkit
#   bash DIR/gpu-check.sh run DIR                  # on the GPU machine: needs
#                                                  # libcuda, python3 + numpy;
#                                                  # torch for the peers
#
# prepare compiles each model with `llmc compile --target cuda --emit=exe`
# (programs that need only libc and the CUDA driver: the GPU machine has no
# MLIR or LLVM) for CHIP (default sm_90a), with its inputs and the CPU's
# results (`llmc run --target cpu`) where they are small, and copies this
# script next to them; DIR stays well under the 64 MiB that may travel.
# run executes each program on the GPU, compares its results with the CPU's
# (rtol 1e-3, atol 1e-3 * max|expected|), prints the per-call time (with
# and without the host<->device copies), the achieved GB/s or TFLOP/s, and
# times PyTorch eager and torch.compile on the same shapes. It exits 1 when
# a result differs or a program fails; the whole run takes about a minute.
set -euo pipefail

mode="${1:-}"
dir="${2:-}"
if [[ -z "$mode" || -z "$dir" ]]; then
  echo "usage: $0 prepare DIR [CHIP] | $0 run DIR" >&2
  exit 2
fi

# Models: NAME and what its numbers mean. Shapes of the issue's goals
# (decode matvec 4096 x 4096; prefill matmul) and the GPT-2 example.
MODELS="gpt2_model matvec4096 matmul1024"

prepare() {
  local root llmc chip
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  llmc="${LLMC:-$root/build/bin/llmc}"
  chip="${3:-sm_90a}"
  mkdir -p "$dir/models" "$dir/inputs" "$dir/ref"
  /usr/bin/python3 "$root/examples/generate.py" gpt2_model --out-dir "$dir/models" >/dev/null
  cat >"$dir/models/matvec4096.mlir" <<'EOF'
// Decode matvec: y[1, 4096] = x[1, 4096] @ W[4096, 4096] (f32, W an input).
func.func @main(%x: tensor<1x4096xf32>, %w: tensor<4096x4096xf32>) -> tensor<1x4096xf32> {
  %0 = llm.matmul %x, %w : (tensor<1x4096xf32>, tensor<4096x4096xf32>) -> tensor<1x4096xf32>
  return %0 : tensor<1x4096xf32>
}
EOF
  cat >"$dir/models/matmul1024.mlir" <<'EOF'
// Prefill matmul: C[1024, 1024] = A[1024, 1024] @ B[1024, 1024] (f32).
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = llm.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
EOF
  for m in $MODELS; do
    echo "compiling $m for $chip"
    "$llmc" compile "$dir/models/$m.mlir" --target cuda --chip "$chip" \
      --emit=exe -o "$dir/$m.exe" --quiet
  done
  # Inputs and CPU results of the models small enough to travel.
  cp "$dir/models/gpt2_model.arg0.npy" "$dir/inputs/gpt2_model.arg0.npy"
  mkdir -p "$dir/ref/gpt2_model"
  "$llmc" run "$dir/models/gpt2_model.mlir" \
    --input "arg0=$dir/inputs/gpt2_model.arg0.npy" \
    --output-dir "$dir/ref/gpt2_model" --no-cache --quiet >/dev/null
  rm -rf "$dir/models"
  cp "${BASH_SOURCE[0]}" "$dir/gpu-check.sh"
  du -sh "$dir"
}

run() {
  local fail=0
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
  for m in $MODELS; do
    local args=() out="$dir/out/$m"
    mkdir -p "$out"
    for f in "$dir"/inputs/"$m".arg*.npy; do
      [[ -e "$f" ]] && args+=("$f")
    done
    echo "== $m"
    if ! "$dir/$m.exe" "${args[@]}" --repeat 20 --output-dir "$out" | tee "$out/log"; then
      echo "FAIL: $m did not run"
      fail=1
      continue
    fi
    if [[ -d "$dir/ref/$m" ]]; then
      python3 - "$dir/ref/$m" "$out" <<'EOF' || fail=1
import os, sys
import numpy as np
ref, out = sys.argv[1], sys.argv[2]
ok = True
for name in sorted(os.listdir(ref)):
    a = np.load(os.path.join(ref, name)); b = np.load(os.path.join(out, name))
    tol = 1e-3 * max(1.0, float(np.abs(a).max()))
    good = a.shape == b.shape and np.allclose(b, a, rtol=1e-3, atol=tol)
    print("%s %s: max |diff| %.3g" % ("PASS" if good else "FAIL", name,
          float(np.abs(a - b).max()) if a.shape == b.shape else float("nan")))
    ok &= good
sys.exit(0 if ok else 1)
EOF
    fi
    python3 - "$m" "$out/log" <<'EOF'
import re, sys
name, log = sys.argv[1], open(sys.argv[2]).read()
t = float(re.search(r"device time: median ([0-9.]+) ms", log).group(1)) * 1e-3
if name == "matvec4096":
    print("llmc: %.1f GB/s (weights read once per call)" % (4096 * 4096 * 4 / t / 1e9))
elif name == "matmul1024":
    print("llmc: %.2f TFLOP/s" % (2 * 1024 ** 3 / t / 1e12))
EOF
  done
  # Peers on the same shapes.
  python3 - <<'EOF' || true
import time
import torch
dev = "cuda"
def bench(f, *a, n=50):
    f(*a); torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        s = time.perf_counter(); f(*a); torch.cuda.synchronize()
        ts.append(time.perf_counter() - s)
    return sorted(ts)[n // 2]
x = torch.randn(1, 4096, device=dev); w = torch.randn(4096, 4096, device=dev)
a = torch.randn(1024, 1024, device=dev); b = torch.randn(1024, 1024, device=dev)
for label, f in [("torch eager", torch.matmul), ("torch.compile", torch.compile(torch.matmul))]:
    t = bench(f, x, w)
    print("%s matvec4096 f32: %.4f ms, %.1f GB/s" % (label, t * 1e3, 4096 * 4096 * 4 / t / 1e9))
    t = bench(f, a, b)
    print("%s matmul1024 f32: %.4f ms, %.2f TFLOP/s" % (label, t * 1e3, 2 * 1024 ** 3 / t / 1e12))
EOF
  if [[ $fail -ne 0 ]]; then
    echo "gpu-check: FAILED"
    exit 1
  fi
  echo "gpu-check: all results match the CPU"
}

case "$mode" in
  prepare) prepare "$@" ;;
  run) run ;;
  *) echo "usage: $0 prepare DIR [CHIP] | $0 run DIR" >&2; exit 2 ;;
esac
