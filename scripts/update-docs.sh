#!/usr/bin/env bash
# Regenerates the ODS-generated docs (dialect ops, passes) into docs/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LLMC_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" >/dev/null
ninja -C "$build" mlir-doc
(cd "$build/docs" && find . -name "*.md" -exec cp --parents {} "$root/docs/" \;)
echo "docs updated: $(cd "$build/docs" && find . -name '*.md' | sort | tr '\n' ' ')"
