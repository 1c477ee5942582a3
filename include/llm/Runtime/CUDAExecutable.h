//===- CUDAExecutable.h - Stand-alone CUDA programs of a model --*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `llmc compile --target cuda --emit=exe|shared`: the host object of a model
// lowered by llm-lower-to-nvvm linked with llmc's CUDA runtime (static) into
// a program or a shared library that needs only libc and, at run time, the
// CUDA driver (libcuda.so.1, loaded by the runtime): what runs on a GPU
// machine that has no MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_CUDAEXECUTABLE_H
#define LLM_RUNTIME_CUDAEXECUTABLE_H

#include "llm/Runtime/CompiledModel.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlir::llm::runtime {

/// The C source of the runner of `--emit=exe` for `signature` (static
/// shapes; f32, f64, f16, i1, i8, i32 and i64 tensors). The program
///
///   model [--repeat N] [--output-dir DIR] [--seed S] [INPUT.npy ...]
///
/// reads its inputs from .npy files (or, when none is given, fills them
/// with the same kind of seeded values as `llmc run`: floats uniform in
/// [-1, 1), integers in [0, 16)), runs `<entry>_host` once untimed and N
/// times timed (wall clock, including the copies to and from the device),
/// checks the CUDA runtime's error after each call (one message, exit 1),
/// prints each result's sum and the median and minimum time, and writes
/// DIR/out<k>.npy. Errors: an unsupported element type or a dynamic
/// dimension.
///
/// For rank `rank` of a `tensorParallel`-way program (llm-lower-to-nvvm
/// {tensor-parallel rank}, > 1) the runner first joins the job's NCCL
/// communicator: rank 0 writes a new NCCL id to the file
/// $LLMC_NCCL_ID_FILE (which must not exist yet; it stays, so each job needs
/// a path of its own), the other ranks wait for it (at most 5 minutes; anything
/// but a regular file of 128 bytes is an error); each rank runs on the
/// device LLMC_CUDA_DEVICE names. Every rank must get the same arguments (each
/// call is a collective).
llvm::Expected<std::string> generateCUDARunner(const EntrySignature &signature,
                                               int64_t tensorParallel = 1,
                                               int64_t rank = 0);

/// Links `objectPath` (the host object of `--emit=obj`), llmc's static CUDA
/// runtime and, for an executable, the runner source `runnerSource`, into
/// `outputPath` with the system C compiler (`cc`, else `clang`, else `gcc`
/// on $PATH): `shared` gives a shared library exporting the model's C
/// interface, else an executable. Errors: no C compiler, no CUDA runtime
/// (llmc built without the CUDA toolkit), or the compiler's failure.
llvm::Error linkCUDAProgram(llvm::StringRef objectPath,
                            llvm::StringRef runnerSource, bool shared,
                            llvm::StringRef outputPath);

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_CUDAEXECUTABLE_H
