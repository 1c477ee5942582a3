#!/usr/bin/env bash
# Sets up the machine (Debian packages), builds llmc and runs every test: the lit
# suite (dialect, passes, pipelines, driver, integration tests executed on the CPU).
# Ends with lit's summary, a plain "N passed, N failed" line and the ONNX
# node-test conformance summary.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LLMC_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
log="$(mktemp)"
set +e
/usr/lib/llvm-22/bin/lit -v --time-tests "$build/test" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -cE '^(PASS|XFAIL): ' "$log" || true)
failed=$(grep -cE '^(FAIL|XPASS|UNRESOLVED|TIMEOUT): ' "$log" || true)
skipped=$(grep -cE '^(UNSUPPORTED|SKIPPED): ' "$log" || true)
rm -f "$log"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
# The ONNX backend node-test conformance counts (written by
# test/Target/ONNX/onnx-node-conformance.test).
conformance="$build/test/Target/ONNX/Output/onnx-node-conformance.test.tmp.summary"
if [ -f "$conformance" ]; then cat "$conformance"; fi
exit "$rc"
