#!/usr/bin/env bash
# Configures (once) and builds llmc into ${LLMC_BUILD_DIR:-build}. Idempotent.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LLMC_BUILD_DIR:-$root/build}"
type="${LLMC_BUILD_TYPE:-Release}"
extra=()
if [ "${LLMC_SANITIZE:-0}" = 1 ]; then extra+=(-DLLMC_ENABLE_SANITIZERS=ON); fi
# libFuzzer targets (fuzz/); scripts/fuzz.sh sets it.
if [ "${LLMC_FUZZ:-0}" = 1 ]; then extra+=(-DLLMC_ENABLE_FUZZERS=ON); fi
# Assertions in llmc's own code (libMLIR.so keeps its build's setting).
if [ "${LLMC_ASSERTIONS:-0}" = 1 ]; then extra+=(-DLLMC_ENABLE_ASSERTIONS=ON); fi
# Use ccache when the machine has it (developer machines; CI does not need it).
if command -v ccache >/dev/null 2>&1; then
  extra+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="$type" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${extra[@]}" >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
# LLMC_TARGETS: what to build (default: all).
ninja -C "$build" ${LLMC_JOBS:+-j "$LLMC_JOBS"} ${LLMC_TARGETS:-all}
