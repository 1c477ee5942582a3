#!/usr/bin/env bash
#===- run-example.sh - run an example model and check it against numpy ---===#
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===----------------------------------------------------------------------===#
#
# Builds llmc if needed, runs an example model from examples/ with its sample
# inputs through `llmc run` (JIT on the CPU), and checks the output against the
# independent float64 numpy reference (test/lib/llmc_ref.py via llmc_check):
#
#   scripts/run-example.sh [MODEL] [--build-dir DIR] [--no-build] [--repeat N]
#                          [--threads N]
#
# MODEL defaults to examples/gpt2_model.mlir; also examples/gpt2_block.mlir,
# examples/llama_block.mlir, or any file written by examples/generate.py (its
# inputs are the MODEL stem's .argN.npy files; a missing default example is
# generated first). Prints llmc's output summary and timing, the comparison
# with the reference (max abs/rel error, tolerances, PASS/FAIL) and the
# wall time. Exits non-zero if the build, the run or the check fails.
# --no-build uses DIR/bin/llmc as it is (it must exist).
#
# Environment: LLMC_BUILD_DIR (default <repo>/build), PYTHON (default
# /usr/bin/python3, which sees Debian's numpy).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${LLMC_BUILD_DIR:-$ROOT/build}"
PYTHON="${PYTHON:-/usr/bin/python3}"
MODEL="$ROOT/examples/gpt2_model.mlir"
REPEAT=10
THREADS=""
BUILD_LLMC=1

usage() { sed -n '/^# Builds/,/^#===/p' "$0" | sed 's/^# \{0,1\}//; /^===/d'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD="$2"; shift 2 ;;
    --no-build) BUILD_LLMC=0; shift ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run-example: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) MODEL="$1"; shift ;;
  esac
done
case "$MODEL" in /*) ;; *) MODEL="$PWD/$MODEL" ;; esac
STEM="${MODEL%.mlir}"

# 0. Debian packages (idempotent; skipped with --no-build).
if [ "$BUILD_LLMC" = 1 ]; then
  bash "$ROOT/scripts/setup.sh"
fi

# 1. The example (generated on demand for the default ones).
if [ ! -f "$MODEL" ]; then
  kind="$(basename "$STEM")"
  case "$kind" in
    gpt2_block|gpt2_model|llama_block)
      echo "== generating $kind"
      "$PYTHON" "$ROOT/examples/generate.py" "$kind" --out-dir "$(dirname "$MODEL")" ;;
    *) echo "run-example: no such model '$MODEL'" >&2; exit 1 ;;
  esac
fi

# 2. The driver.
LLMC="$BUILD/bin/llmc"
if [ "$BUILD_LLMC" = 1 ]; then
  if [ ! -f "$BUILD/build.ninja" ]; then
    echo "== configuring $BUILD"
    cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DLLVM_USE_LINKER=lld -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
  fi
  echo "== building llmc ($BUILD)"
  ninja -C "$BUILD" llmc | { grep -v '^ninja: \(no work to do\|Entering directory\)' || true; }
elif [ ! -x "$LLMC" ]; then
  echo "run-example: --no-build but no $LLMC" >&2
  exit 1
fi

# 3. Run it.
inputs=()
for f in "$STEM".arg*.npy; do
  [ -e "$f" ] || continue
  name="$(basename "$f" .npy)"; name="${name##*.}"
  inputs+=(--input "$name=$f")
done
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
extra=(--repeat "$REPEAT")
[ -n "$THREADS" ] && extra+=(--threads "$THREADS")
echo "== llmc run $(basename "$MODEL") ${inputs[*]}"
start=$(date +%s.%N)
"$LLMC" run "$MODEL" "${inputs[@]}" --output-dir "$OUT" "${extra[@]}"
end=$(date +%s.%N)

# 4. Check against the numpy reference.
echo "== check against the numpy reference (test/lib/llmc_ref.py)"
check_inputs=()
for ((i = 0; i < ${#inputs[@]}; i += 2)); do check_inputs+=(--input "${inputs[i+1]}"); done
status=0
PYTHONPATH="$ROOT/test/lib:/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}" \
  "$PYTHON" -m llmc_check model "$MODEL" "${check_inputs[@]}" --actual "$OUT/out0.npy" || status=$?
awk -v s="$start" -v e="$end" -v r="$REPEAT" \
  'BEGIN { printf "== wall time of llmc run (JIT compile, warm-up, %d timed runs): %.2f s\n", r, e - s }'
if [ "$status" -eq 0 ]; then echo "== PASS"; else echo "== FAIL"; fi
exit "$status"
