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
# MLIR or LLVM) for CHIP (default sm_90a; cubins only, format=bin: the PTX of
# a fatbin would double the size of the weights), with its inputs and the CPU's
# results (`llmc run --target cpu`) where they are small, and copies this
# script next to them; DIR stays well under the 64 MiB that may travel.
# run executes each program on the GPU, compares its results with the CPU's
# (rtol 1e-3, atol 1e-3 * max|expected|), prints the per-call time (with
# and without the host<->device copies), the achieved GB/s or TFLOP/s, and
# times PyTorch eager and torch.compile on the same shapes. prepare also
# readies every public function of test/Integration/*.mlir (op families:
# scripts/gpu_check_ops.py), which run compares with the CPU the same way at
# the emulator test's tolerances. On a machine with two GPUs or more, run
# also runs gpt2_model as a two-rank tensor-parallel job (one GPU per rank,
# NCCL all-reduces: libnccl.so.2 from the system, $LLMC_NCCL_LIBRARY or
# PyTorch's nvidia-nccl package) and compares rank 0's output with the
# CPU's. It exits 1 when a result differs or a program fails; the whole run
# takes a few minutes.
set -euo pipefail

mode="${1:-}"
dir="${2:-}"
if [[ -z "$mode" || -z "$dir" ]]; then
  echo "usage: $0 prepare DIR [CHIP] | $0 run DIR" >&2
  exit 2
fi

# Models: NAME and what its numbers mean. Shapes of the issue's goals
# (decode matvec 4096 x 4096 in f32 and bf16; prefill matmul 1024^3 f32 and
# 4096^3 bf16, seeded inputs), the GPT-2 example and a GPT-2-small-shaped
# layer (d 768, 12 heads, 512 tokens, f32 weights), also compiled with
# demote-contraction-inputs=bf16 (gpt2_layer768_bf16w: its matmuls on tensor
# cores with bf16 weights and rounded activations, checked against the exact
# f32 CPU result with a bf16-sized tolerance).
# index_checks: an embedding lookup whose run-time index check runs in a
# kernel; run also feeds it an out-of-range index and expects the program
# to fail naming it (llm-forward-gpu-index-status).
# attention512: GPT-2 small's causal attention (12 heads of 64, 512 tokens,
# f32, seeded inputs) as the flash kernel, and attention512_mat as the
# three kernels of attention=materialized: run compares their results with
# each other and times both against PyTorch's scaled_dot_product_attention.
# matmul8192_2of4: a prefill projection (8192 tokens, bf16) whose constant
# weight [1024, 1024] is 2:4 along K, compiled with sparsify=auto (mma.sp,
# the weight packed) and as matmul8192_2of4_dense (mma.sync on the same
# weight): run compares their results and times both (the seeded inputs of
# the two programs are the same).
MODELS="gpt2_model gpt2_layer768 gpt2_layer768_bf16w matvec4096 matmul1024 matvec4096_bf16 matmul4096_bf16 index_checks attention512 attention512_mat matmul8192_2of4 matmul8192_2of4_dense"

prepare() {
  local root llmc chip
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  llmc="${LLMC:-$root/build/bin/llmc}"
  chip="${3:-sm_90a}"
  mkdir -p "$dir/models" "$dir/inputs" "$dir/ref"
  /usr/bin/python3 "$root/examples/generate.py" gpt2_model --out-dir "$dir/models" >/dev/null
  /usr/bin/python3 "$root/examples/generate.py" gpt2_block --name gpt2_layer768 \
    --d 768 --heads 12 --ffn 3072 --seq 512 --out-dir "$dir/models" >/dev/null
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
  cat >"$dir/models/matvec4096_bf16.mlir" <<'EOF'
// Decode matvec in bf16 (the issue's goal shape): y = x @ W, W [4096, 4096].
func.func @main(%x: tensor<1x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<1x4096xbf16> {
  %0 = llm.matmul %x, %w : (tensor<1x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<1x4096xbf16>
  return %0 : tensor<1x4096xbf16>
}
EOF
  cat >"$dir/models/matmul4096_bf16.mlir" <<'EOF'
// Prefill matmul in bf16 (the issue's goal shape): C = A @ B, 4096^3.
func.func @main(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = llm.matmul %a, %b : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
EOF
  cat >"$dir/models/index_checks.mlir" <<'EOF'
// An embedding lookup (table [16, 8], row r all r) with its run-time index
// check.
func.func @main(%ids: tensor<1x4xi64>) -> tensor<1x4x8xf32> {
  %r = llm.constant dense<[[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0], [9.0], [10.0], [11.0], [12.0], [13.0], [14.0], [15.0]]> : tensor<16x1xf32>
  %c = llm.constant dense<1.0> : tensor<16x8xf32>
  %t = llm.mul %c, %r : (tensor<16x8xf32>, tensor<16x1xf32>) -> tensor<16x8xf32>
  %0 = llm.embedding %t, %ids : (tensor<16x8xf32>, tensor<1x4xi64>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}
EOF
  cat >"$dir/models/attention512.mlir" <<'EOF'
// Causal attention of GPT-2 small's shape: 12 heads of 64, 512 tokens, f32.
func.func @main(%q: tensor<1x12x512x64xf32>, %k: tensor<1x12x512x64xf32>, %v: tensor<1x12x512x64xf32>) -> tensor<1x12x512x64xf32> {
  %0 = llm.attention %q, %k, %v {causal} : (tensor<1x12x512x64xf32>, tensor<1x12x512x64xf32>, tensor<1x12x512x64xf32>) -> tensor<1x12x512x64xf32>
  return %0 : tensor<1x12x512x64xf32>
}
EOF
  cp "$dir/models/attention512.mlir" "$dir/models/attention512_mat.mlir"
  /usr/bin/python3 - "$dir/models/matmul8192_2of4.mlir" <<'EOF'
# A bf16 weight [K = 1024, N = 1024] keeping 2 of each 4 consecutive k of
# every column (seeded), as a dense_resource blob.
import sys
import numpy as np
rng = np.random.default_rng(24)
k = n = 1024
w = rng.standard_normal((k, n)).astype(np.float32)
order = np.argsort(rng.random((k // 4, 4, n)), axis=1)
w = np.where((order < 2).reshape(k, n), w, 0).astype(np.float32)
bits = w.view(np.uint32).astype(np.uint64)
bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")
with open(sys.argv[1], "w") as f:
    f.write("""// Prefill projection with a 2:4 weight: y[8192, 1024] = x @ W (bf16).
func.func @main(%x: tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16> {
  %w = llm.constant dense_resource<w2of4> : tensor<1024x1024xbf16>
  %0 = llm.matmul %x, %w : (tensor<8192x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<8192x1024xbf16>
  return %0 : tensor<8192x1024xbf16>
}
{-#
  dialect_resources: { builtin: { w2of4: "0x02000000HEX" } }
#-}
""".replace("HEX", bits.tobytes().hex()))
EOF
  cp "$dir/models/matmul8192_2of4.mlir" "$dir/models/matmul8192_2of4_dense.mlir"
  /usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.array([[0, -16, 15, 3]], np.int64)); np.save(sys.argv[2], np.array([[1, 2, 16, 3]], np.int64))" \
    "$dir/models/index_checks.arg0.npy" "$dir/inputs/index_checks_bad.npy"
  cp "$dir/models/gpt2_layer768.mlir" "$dir/models/gpt2_layer768_bf16w.mlir"
  for m in $MODELS; do
    echo "compiling $m for $chip"
    local options=format=bin
    [[ $m == *_bf16w ]] && options="$options demote-contraction-inputs=bf16"
    [[ $m == *_mat ]] && options="$options attention=materialized"
    [[ $m == *_2of4 ]] && options="$options sparsify=auto"
    "$llmc" compile "$dir/models/$m.mlir" --target cuda --chip "$chip" \
      --emit=exe -o "$dir/$m.exe" --quiet --pipeline-options="$options" \
      --report=json --report-file "$dir/$m.report.json"
    strip "$dir/$m.exe"
  done
  # Tensor parallelism: the two ranks' programs of gpt2_model
  # (gpt2_model_tp.rank0.exe, gpt2_model_tp.rank1.exe).
  echo "compiling gpt2_model for 2 tensor-parallel ranks for $chip"
  "$llmc" compile "$dir/models/gpt2_model.mlir" --target cuda --chip "$chip" \
    --emit=exe -o "$dir/gpt2_model_tp.exe" --tensor-parallel 2 --quiet \
    --pipeline-options=format=bin >/dev/null
  strip "$dir"/gpt2_model_tp.rank*.exe
  # Inputs and CPU results of the models small enough to travel.
  for m in gpt2_model gpt2_layer768 index_checks; do
    cp "$dir/models/$m.arg0.npy" "$dir/inputs/$m.arg0.npy"
    mkdir -p "$dir/ref/$m"
    "$llmc" run "$dir/models/$m.mlir" \
      --input "arg0=$dir/inputs/$m.arg0.npy" \
      --output-dir "$dir/ref/$m" --no-cache --quiet >/dev/null
  done
  cp "$dir/inputs/gpt2_layer768.arg0.npy" "$dir/inputs/gpt2_layer768_bf16w.arg0.npy"
  cp -r "$dir/ref/gpt2_layer768" "$dir/ref/gpt2_layer768_bf16w"
  rm -rf "$dir/models"
  # Every public function of the integration tests (op families), with its
  # inputs and CPU results (scripts/gpu_check_ops.py).
  /usr/bin/python3 "$root/scripts/gpu_check_ops.py" prepare "$llmc" "$dir" \
    "$chip" "$root"/test/Integration/*.mlir "$root"/test/Integration/GPU/Inputs/*.mlir
  cp "${BASH_SOURCE[0]}" "$dir/gpu-check.sh"
  cp "$root/scripts/gpu_check_ops.py" "$dir/gpu_check_ops.py"
  du -sh "$dir"
}

# Compares the .npy outputs of two runs of one model: f32 within rtol 1e-4
# and atol 1e-5; bf16 (uint16 bit patterns) within 2^-7 relative + 1e-2.
compare_runs() {
  python3 - "$1" "$2" "$3" <<'EOF'
import os, sys
import numpy as np
a, b, kind = sys.argv[1], sys.argv[2], sys.argv[3]
names = sorted(n for n in os.listdir(a) if n.endswith(".npy"))
ok = bool(names)
def load(path):
    x = np.load(path)
    # bf16 tensors are files of their uint16 bit patterns.
    return (x.astype(np.uint32) << 16).view(np.float32) if kind == "bf16" else x
for name in names:
    x = load(os.path.join(a, name)); y = load(os.path.join(b, name))
    if kind == "bf16":
        good = x.shape == y.shape and bool(np.all(np.abs(x - y) <= 2.0 ** -7 * np.abs(y) + 1e-2))
    else:
        good = x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-5)
    print("%s %s: max |diff| %.3g" % ("PASS" if good else "FAIL", name,
          float(np.abs(x - y).max()) if x.shape == y.shape else float("nan")))
    ok &= good
sys.exit(0 if ok else 1)
EOF
}

# Compares the .npy results in $2 with the CPU's in $1 (rtol 1e-3, atol
# 1e-3 * max|expected|; 3e-2 for the bf16-demoted model $3 = *_bf16w).
compare_with_cpu() {
  python3 - "$1" "$2" "$3" <<'EOF'
import os, sys
import numpy as np
ref, out, model = sys.argv[1], sys.argv[2], sys.argv[3]
# The bf16-demoted model against the exact f32 result: bf16 keeps 8
# significant bits (relative 2^-9 per rounded input).
rel = 3e-2 if model.endswith("_bf16w") else 1e-3
ok = True
for name in sorted(os.listdir(ref)):
    a = np.load(os.path.join(ref, name)); b = np.load(os.path.join(out, name))
    tol = rel * max(1.0, float(np.abs(a).max()))
    good = a.shape == b.shape and np.allclose(b, a, rtol=rel, atol=tol)
    print("%s %s: max |diff| %.3g" % ("PASS" if good else "FAIL", name,
          float(np.abs(a - b).max()) if a.shape == b.shape else float("nan")))
    ok &= good
sys.exit(0 if ok else 1)
EOF
}

# Runs gpt2_model's two tensor-parallel ranks, one per GPU, and compares
# rank 0's result with the CPU's; skipped on a machine with one GPU.
run_tensor_parallel() {
  local gpus out="$dir/out/gpt2_model_tp" idfile pid
  gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l || true)
  echo "== gpt2_model_tp: 2 ranks on 2 GPUs (tensor parallelism, NCCL)"
  if [[ ${gpus:-0} -lt 2 ]]; then
    echo "SKIP: needs 2 GPUs, this machine has ${gpus:-0}"
    return 0
  fi
  if [[ -z "${LLMC_NCCL_LIBRARY:-}" ]] && ! ldconfig -p | grep -q libnccl.so.2; then
    LLMC_NCCL_LIBRARY=$(python3 -c "import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null || true)
    export LLMC_NCCL_LIBRARY
  fi
  mkdir -p "$out/rank0" "$out/rank1"
  idfile="$out/nccl-id.$$"
  rm -f "$idfile"
  LLMC_NCCL_ID_FILE="$idfile" LLMC_CUDA_DEVICE=1 "$dir/gpt2_model_tp.rank1.exe" \
    "$dir/inputs/gpt2_model.arg0.npy" --repeat 20 --output-dir "$out/rank1" \
    >"$out/rank1.log" 2>&1 &
  pid=$!
  if ! LLMC_NCCL_ID_FILE="$idfile" LLMC_CUDA_DEVICE=0 "$dir/gpt2_model_tp.rank0.exe" \
      "$dir/inputs/gpt2_model.arg0.npy" --repeat 20 --output-dir "$out/rank0" \
      | tee "$out/rank0.log" || ! wait "$pid"; then
    echo "FAIL: the tensor-parallel ranks did not run:"
    cat "$out/rank1.log"
    return 1
  fi
  compare_with_cpu "$dir/ref/gpt2_model" "$out/rank0" gpt2_model_tp
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
      compare_with_cpu "$dir/ref/$m" "$out" "$m" || fail=1
    fi
    python3 - "$m" "$out/log" "$dir/$m.report.json" <<'EOF'
import json, re, sys
name, log = sys.argv[1], open(sys.argv[2]).read()
t = float(re.search(r"device time: median ([0-9.]+) ms", log).group(1)) * 1e-3
print("llmc: %d kernel launches per call" % json.load(open(sys.argv[3]))["gpu_launches"])
if name.startswith("gpt2_layer768"):
    # 2 * S * (QKV, out proj, MLP) + QK^T and PV (the causal half included).
    s, d = 512, 768
    flops = 2 * s * (d * 3 * d + d * d + 2 * d * 4 * d) + 4 * s * s * d
    print("llmc: %.2f TFLOP/s" % (flops / t / 1e12))
elif name == "matvec4096":
    print("llmc: %.1f GB/s (weights read once per call)" % (4096 * 4096 * 4 / t / 1e9))
elif name == "matmul1024":
    print("llmc: %.2f TFLOP/s" % (2 * 1024 ** 3 / t / 1e12))
elif name == "matvec4096_bf16":
    print("llmc: %.1f GB/s (weights read once per call)" % (4096 * 4096 * 2 / t / 1e9))
elif name == "matmul4096_bf16":
    print("llmc: %.2f TFLOP/s" % (2 * 4096 ** 3 / t / 1e12))
elif name.startswith("attention512"):
    # QK^T and PV over the causal half.
    print("llmc: %.2f TFLOP/s" % (2 * 2 * 12 * 512 * 512 * 64 / 2 / t / 1e12))
elif name.startswith("matmul8192_2of4"):
    # Dense-equivalent FLOP (the zeros counted), as cuSPARSELt reports them.
    print("llmc: %.2f dense-equivalent TFLOP/s" % (2 * 8192 * 1024 * 1024 / t / 1e12))
EOF
  done
  # The flash kernel against the three-kernel attention, on the same seeded
  # inputs (f32: rtol 1e-4, atol 1e-5).
  echo "== attention512: flash kernel vs attention=materialized"
  compare_runs "$dir/out/attention512" "$dir/out/attention512_mat" f32 || fail=1
  # The 2:4 weight on mma.sp against mma.sync on the same weight (f32 sums
  # of the same products in another order, each rounded to bf16 once: one
  # bf16 ulp apart at most).
  echo "== matmul8192_2of4: mma.sp vs mma.sync"
  compare_runs "$dir/out/matmul8192_2of4" "$dir/out/matmul8192_2of4_dense" bf16 || fail=1
  # An out-of-range index: the program must fail and name it.
  echo "== index_checks (index 16 of a table of 16 rows)"
  if "$dir/index_checks.exe" "$dir/inputs/index_checks_bad.npy" \
      >"$dir/out/index_checks_bad.log" 2>&1; then
    echo "FAIL: index_checks accepted an out-of-range index"
    fail=1
  elif grep -q "index 16 is out of range \\[-16, 16)" "$dir/out/index_checks_bad.log"; then
    echo "PASS: $(grep error: "$dir/out/index_checks_bad.log")"
  else
    echo "FAIL: index_checks failed otherwise:"
    cat "$dir/out/index_checks_bad.log"
    fail=1
  fi
  run_tensor_parallel || fail=1
  # Per-kernel times of the GPT-2-shaped layer (Nsight Compute, when the
  # machine has it and lets it read the counters).
  if command -v ncu >/dev/null; then
    echo "== per-kernel times of gpt2_layer768 (ncu, gpu__time_duration)"
    timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes.sum \
      --csv "$dir/gpt2_layer768.exe" "$dir"/inputs/gpt2_layer768.arg0.npy \
      --repeat 1 >"$dir/ncu.csv" 2>&1 || true
    grep -E '==ERROR==|==WARNING==' "$dir/ncu.csv" | head -5 || true
    grep -E '"(gpu__time_duration.sum|dram__bytes.sum)"' "$dir/ncu.csv" \
      | awk -F'","' '{print $5, "block", $8, "grid", $9, $(NF-2), $(NF-1), $NF}' \
      | head -60 || true
  fi
  # The op families: each integration-test function against the CPU.
  if [[ -f "$dir/ops/manifest.json" ]]; then
    python3 "$dir/gpu_check_ops.py" run "$dir" || fail=1
  fi
  # Peers on the same shapes, and the read bandwidth (a sum over 2 GiB).
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
big = torch.empty(512 * 1024 * 1024, device=dev).uniform_()
t = bench(torch.sum, big, n=20)
print("read bandwidth (torch.sum over 2 GiB f32): %.0f GB/s" % (big.numel() * 4 / t / 1e9))
del big
class Block(torch.nn.Module):
    """A GPT-2 block like examples/generate.py's gpt2_block (f32)."""
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc, self.out = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = [t.view(b, s, self.h, d // self.h).transpose(1, 2) for t in (q, k, v)]
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))
with torch.no_grad():
    blk = Block(768, 12).to(dev).eval()
    xs = torch.randn(1, 512, 768, device=dev)
    for label, f in [("torch eager", blk), ("torch.compile", torch.compile(blk))]:
        print("%s gpt2_layer768 (S 512, f32): %.4f ms" % (label, bench(f, xs) * 1e3))
    # The peers of gpt2_layer768_bf16w: bf16 autocast (matmuls in bf16 with
    # f32 accumulation, as demote-contraction-inputs=bf16) and TF32.
    with torch.autocast("cuda", dtype=torch.bfloat16):
        for label, f in [("torch eager", blk), ("torch.compile", torch.compile(blk))]:
            print("%s gpt2_layer768 (S 512, bf16 autocast): %.4f ms" % (label, bench(f, xs) * 1e3))
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    print("torch eager gpt2_layer768 (S 512, f32, TF32 matmuls): %.4f ms" % (bench(blk, xs) * 1e3))
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
q, k, v = [torch.randn(1, 12, 512, 64, device=dev) for _ in range(3)]
sdpa = torch.nn.functional.scaled_dot_product_attention
for label, f in [("torch eager", lambda q, k, v: sdpa(q, k, v, is_causal=True)),
                 ("torch.compile", torch.compile(lambda q, k, v: sdpa(q, k, v, is_causal=True)))]:
    t = bench(f, q, k, v)
    print("%s attention512 f32 (SDPA, causal): %.4f ms, %.2f TFLOP/s" % (label, t * 1e3, 2 * 2 * 12 * 512 * 512 * 64 / 2 / t / 1e12))
for label, f in [("torch eager", torch.matmul), ("torch.compile", torch.compile(torch.matmul))]:
    t = bench(f, x, w)
    print("%s matvec4096 f32: %.4f ms, %.1f GB/s" % (label, t * 1e3, 4096 * 4096 * 4 / t / 1e9))
    t = bench(f, a, b)
    print("%s matmul1024 f32: %.4f ms, %.2f TFLOP/s" % (label, t * 1e3, 2 * 1024 ** 3 / t / 1e12))
xh = x.bfloat16(); wh = w.bfloat16()
ah = torch.randn(4096, 4096, device=dev).bfloat16(); bh = torch.randn(4096, 4096, device=dev).bfloat16()
for label, f in [("torch eager", torch.matmul), ("torch.compile", torch.compile(torch.matmul))]:
    t = bench(f, xh, wh)
    print("%s matvec4096 bf16: %.4f ms, %.1f GB/s" % (label, t * 1e3, 4096 * 4096 * 2 / t / 1e9))
    t = bench(f, ah, bh, n=20)
    print("%s matmul4096 bf16: %.4f ms, %.2f TFLOP/s" % (label, t * 1e3, 2 * 4096 ** 3 / t / 1e12))
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
