#!/usr/bin/env bash
# Runs llmc's libFuzzer targets (fuzz/) for a fixed time each.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 120); TARGETs: llm-lower-fuzzer (parse + verify
# + llm-lower-to-cpu on mutated llm modules) and onnx-import-fuzzer (the ONNX
# importer on mutated model files); default both. Builds them first into
# ${LLMC_ASAN_BUILD_DIR:-build-asan} (ASan + UBSan + assertions, shared with
# scripts/test-sanitizers.sh). Seeds: every module of test/**/*.mlir (split
# at `// -----`) and the ONNX backend node tests' model.onnx files under
# 64 KiB (/usr/share/libonnx-testdata, Debian libonnx-testdata) plus the
# bad-input models of test/lib/onnx_models/make_bad_model.py. The corpus
# grows in BUILD/fuzz/corpus/TARGET across runs; crashing inputs are written
# to BUILD/fuzz/artifacts/TARGET/ and listed at the end. Turn each into a
# regression test and fix it at its root.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LLMC_ASAN_BUILD_DIR:-$root/build-asan}"
seconds="${1:-120}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then targets=(llm-lower-fuzzer onnx-import-fuzzer); fi

LLMC_BUILD_DIR="$build" LLMC_SANITIZE=1 LLMC_FUZZ=1 LLMC_ASSERTIONS=1 \
  LLMC_TARGETS="${targets[*]}" "$root/scripts/build.sh"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:detect_odr_violation=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

seed_mlir() {
  find "$root/test" -name '*.mlir' -not -path '*/Output/*' -print0 |
    /usr/bin/python3 -c '
import hashlib, os, sys
out = sys.argv[1]
for path in sys.stdin.read().split("\0"):
    if not path:
        continue
    text = open(path, errors="replace").read()
    for part in text.split("// -----"):
        # Drop comment lines (RUN/CHECK lines are noise for the mutator).
        body = "\n".join(l for l in part.splitlines()
                         if not l.lstrip().startswith("//")).strip() + "\n"
        if "llm." not in body or len(body) > 16384:
            continue
        with open(os.path.join(out, hashlib.sha1(body.encode()).hexdigest()), "w") as f:
            f.write(body)
' "$1"
}

seed_onnx() {
  local dir="$1" data=/usr/share/libonnx-testdata/data/node
  # The bad-input models of the lit tests (attribute types, duplicate names,
  # integer folding, external-data paths: the names the fuzzer's model
  # directory provides).
  /usr/bin/python3 - "$root/test/lib/onnx_models/make_bad_model.py" "$dir" <<'PY'
import os, subprocess, sys
script, out = sys.argv[1], sys.argv[2]
names = ["int_fold", "int_div_zero", "int_mod_zero", "int_pow_zero",
         "slice_extreme_steps", "range_extreme", "reshape_overflow",
         "input_overflow", "split_num_outputs", "gemm_alpha_string",
         "gemm_alpha_int", "softmax_axis_string", "gather_axis_float",
         "attr_mislabeled", "attr_twice", "attr_missing", "attr_unknown",
         "dup_input", "dup_initializer", "dup_output", "input_default",
         "overflow_dims", "huge_dims", "short_raw", "short_float_data",
         "external_escape", "external_absolute"]
names += ["external_file:" + l for l in
          ["w.bin", "in.bin", "out.bin", "outdir/secret.bin", "fifo.bin",
           "dev.bin", "sub"]]
for n in names:
    path = os.path.join(out, "bad_" + n.replace(":", "_").replace("/", "_") + ".onnx")
    subprocess.run([sys.executable, script, n, path], check=True)
PY
  [ -d "$data" ] || { echo "fuzz.sh: $data missing (apt-get install libonnx-testdata); seeding from test/ only" >&2; return; }
  # One process for all ~900 copies (a cp per file crawls on a loaded machine).
  find "$data" -name model.onnx -size -64k -print0 | /usr/bin/python3 -c '
import os, shutil, sys
for f in sys.stdin.read().split("\0"):
    if f:
        shutil.copyfile(f, os.path.join(sys.argv[1], os.path.basename(os.path.dirname(f)) + ".onnx"))
' "$dir"
}

status=0
for t in "${targets[@]}"; do
  corpus="$build/fuzz/corpus/$t"
  artifacts="$build/fuzz/artifacts/$t"
  seeds="$build/fuzz/seeds/$t"
  mkdir -p "$corpus" "$artifacts" "$seeds"
  if [ -z "$(ls -A "$seeds")" ]; then
    case "$t" in
      llm-lower-fuzzer) seed_mlir "$seeds" ;;
      onnx-import-fuzzer) seed_onnx "$seeds" ;;
    esac
  fi
  dict=()
  if [ "$t" = llm-lower-fuzzer ]; then dict=(-dict="$root/fuzz/llm.dict"); fi
  if [ "$t" = onnx-import-fuzzer ]; then dict=(-dict="$root/fuzz/onnx.dict"); fi
  log="$build/fuzz/$t.log"
  echo "== $t: ${seconds}s, $(ls "$seeds" | wc -l) seeds, corpus $(ls "$corpus" | wc -l) inputs"
  "$build/bin/$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" \
    "$corpus" "$seeds" >"$log" 2>&1 || status=1
  grep -E "stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb|^#[0-9]+.*(DONE|pulse)" "$log" | tail -4
  grep -E "ERROR: (AddressSanitizer|libFuzzer)|runtime error:|Test unit written" "$log" | head -5 || true
  echo "   artifacts: $(ls "$artifacts" | wc -l) in $artifacts (log: $log)"
done
exit "$status"
