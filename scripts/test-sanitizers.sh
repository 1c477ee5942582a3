#!/usr/bin/env bash
# Builds llmc with AddressSanitizer + UndefinedBehaviorSanitizer (and
# assertions, and the libFuzzer targets, which share this build) into
# ${LLMC_ASAN_BUILD_DIR:-build-asan} and runs the whole lit suite under it.
# Nightly-style: a cold build takes ~40 min on 2 loaded cores, the suite ~15 min.
#
#   scripts/test-sanitizers.sh [LIT ARGS...]     e.g. -sv, or a test path
#
# Only llmc's code is instrumented: libMLIR.so, libLLVM.so and the JIT-compiled
# model code are not (ASan still intercepts their malloc/free). Leak checking
# is off: MLIR's and LLVM's global registries are intentionally never freed.
# Uninstrumented programs that load instrumented llmc libraries get the shared
# ASan runtime preloaded by their lit.local.cfg: python3 for test/python (the
# extension), mlir-opt for test/Plugin. Unsupported under ASan: the
# downstream-build tests (test/Examples; a plain downstream build cannot link
# the instrumented libraries). LLMC_JOBS=N limits the build's parallelism.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LLMC_ASAN_BUILD_DIR:-$root/build-asan}"
LLMC_BUILD_DIR="$build" LLMC_SANITIZE=1 LLMC_FUZZ=1 LLMC_ASSERTIONS=1 \
  "$root/scripts/build.sh"
# allocator_may_return_null: llmc reports a failed allocation (the run-limits
# and runtime unit tests request impossible sizes on purpose); ASan would abort.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:detect_odr_violation=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if [ "$#" -eq 0 ]; then set -- -sv "$build/test"; fi
exec /usr/lib/llvm-22/bin/lit "$@"
