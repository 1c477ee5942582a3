//===- llmc-cuda-probe.cpp - Print what probeDriver() finds ---------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A test helper: `llmc-cuda-probe [LIBRARY]` prints llm::cuda::probeDriver()'s
// description of the CUDA driver and devices and exits 0, or prints
// "error: <reason>" to stderr and exits 1. LIBRARY overrides the driver
// library (default $LLMC_CUDA_DRIVER_LIBRARY, else libcuda.so.1). With
// --quiet it prints nothing (lit.cfg.py's `cuda-driver` feature).
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CUDA/DriverProbe.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  bool quiet = false;
  const char *library = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quiet") == 0)
      quiet = true;
    else
      library = argv[i];
  }
  mlir::llm::cuda::DriverInfo info = mlir::llm::cuda::probeDriver(library);
  if (!info.ok()) {
    if (!quiet)
      fprintf(stderr, "error: %s\n", info.error.c_str());
    return 1;
  }
  if (!quiet)
    printf("%s\n", info.describe().c_str());
  return 0;
}
