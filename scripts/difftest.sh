#!/usr/bin/env bash
# Differential testing on random llm graphs (test/lib/random_graph.py): N
# graphs (default 300) in batches of 30, each batch compiled and run by
# `llmc run` under every llm-lower-to-cpu configuration and compared with the
# numpy reference. Mismatches are reduced to minimal reproducers in
# ${LLMC_DIFFTEST_REPRO:-difftest-repro}/.
#
#   scripts/difftest.sh [N] [SEED] [extra random_graph.py args, e.g. --opt-level 3]
#
# The lit suite runs a fixed batch (test/Integration/random-graphs.test).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-300}"
seed="${2:-$(date +%s)}"
shift $(( $# > 2 ? 2 : $# ))
export LLMC_TOOLS_DIR="${LLMC_TOOLS_DIR:-${LLMC_BUILD_DIR:-$root/build}/bin}"
export PYTHONPATH="$root/test/lib${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$root/test/lib/random_graph.py" --count "$n" --batch 30 \
  --seed "$seed" --repro-dir "${LLMC_DIFFTEST_REPRO:-difftest-repro}" "$@"
