#!/usr/bin/env bash
# ===- setup.sh - installs the benchmark's peers (bench/run calls it) -----=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
#
# Idempotent. Debian packages (apt-get, only when one is missing):
#   python3-torch python3-numpy python3-onnx  the torch / numpy peers, export
#   libopenblas0-pthread                      OpenBLAS for numpy and torch
#   python3-matplotlib                        the chart
#   clang-22 libomp-22-dev                    bench/hw/hwlimits.c
#   nodejs (+ npm)                            ONNX Runtime's driver
# and the npm package onnxruntime-node@1.30.0 (bench/package.json) into
# bench/node_modules, with ONNXRUNTIME_NODE_INSTALL=skip (a plain install
# tries to download CUDA parts and rolls back; the CPU binary ships in the
# package and runs offline).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

PKGS=(python3 python3-numpy python3-torch python3-onnx python3-matplotlib
      libopenblas0-pthread clang-22 libomp-22-dev)
command -v node >/dev/null 2>&1 || PKGS+=(nodejs)
command -v npm >/dev/null 2>&1 || PKGS+=(npm)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "bench/setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$HERE/node_modules/onnxruntime-node/package.json" ]; then
  echo "bench/setup: npm install onnxruntime-node into bench/node_modules"
  (cd "$HERE" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund >/dev/null)
fi
echo "bench/setup: peers present"
