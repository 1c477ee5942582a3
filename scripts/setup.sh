#!/usr/bin/env bash
# Installs every Debian package llmc needs to build and test. Idempotent: packages
# already present are skipped, and apt is only asked when something is missing.
set -euo pipefail

PKGS=(
  # toolchain
  cmake ninja-build g++ clang-22 lld-22
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libomp-22-dev
  # ONNX importer
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  # tokenizers (lib/Runtime/Tokenizer.cpp): ICU's character classes, and
  # sentencepiece .model files (optional at build time)
  libicu-dev libsentencepiece-dev
  # calibration data in .npz files (lib/Runtime/Calibration.cpp)
  libzip-dev
  # tensor parallelism: llmc run --tensor-parallel N under mpirun (optional
  # at build time: without MPI llmc refuses the flag)
  libopenmpi-dev openmpi-bin
  # sanitizer and libFuzzer runtimes (scripts/test-sanitizers.sh, fuzz.sh)
  libclang-rt-22-dev
  # tests and python
  python3 python3-numpy python3-onnx python3-torch pybind11-dev python3-dev
  libopenblas0-pthread libgtest-dev
  # tokenizer tests: the reference's pre-tokenization regexes, and training
  # a sentencepiece model to compare with
  python3-regex python3-sentencepiece
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all packages present"
