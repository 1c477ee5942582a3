//===- TuningCache.h - Persistent matmul tuning cache -----------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The tuning cache of the CPU codegen: for each kind of CPU and each distinct
// matmul kernel (shape, element types, where B comes from, threads), the
// register and cache tiles that measured fastest on such a CPU (`llmc tune`,
// llm/Runtime/Tuning.h). `llm-apply-tuning-cache` records them on the
// matching `linalg.matmul` / `linalg.batch_matmul` as `llm.lowering_config`
// (register_tile, cache_tile), which `llm-tile-and-vectorize` reads instead
// of the target's heuristics. In the manner of TVM's AutoTVM tuning logs:
// measured, keyed by target and workload, applied at compile time.
//
// The file is JSON:
//
//   {"format": "llmc-tuning-cache", "version": 1, "entries": [
//     {"target": "znver5/avx512-bf16",
//      "kernel": "matmul b=1 m=128 n=3072 k=768 f32*f32->f32 rhs=const-kn
//      threads=1", "register_tile": [8, 32, 1], "cache_tile": [128, 256, 768],
//      "time_ms": 0.412, "default_ms": 0.455},
//     {"target": "znver5/avx512-bf16",
//      "kernel": "attention b=1 hq=8 hkv=8 sq=128 skv=128 d=64 dv=64 f32
//      layout=bhsd causal=1 mask=0 threads=1", "attention_tile": [64, 64],
//      "time_ms": 0.21, "default_ms": 0.25}, ...]}
//
// `time_ms` is the kernel's measured time with the entry's tiles and
// `default_ms` with the target's default tiles, in the same run (for the
// report; not read by the compiler).
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_TUNINGCACHE_H
#define LLM_CODEGEN_TUNINGCACHE_H

#include "llm/Codegen/TargetDescription.h"
#include "llm/Codegen/Transforms.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <string>

namespace mlir::llm {

/// The kind of CPU a tuning result holds for: "<cpu>/<family>" of the
/// target description ("znver5/avx512-bf16", "generic/avx2" for a family
/// target). Results measured on one kind are not used for another.
std::string getTuningTargetId(const CPUTargetDescription &target);

/// What identifies a matmul kernel for tuning.
struct MatmulTuningKey {
  /// "matmul" or "batch_matmul".
  std::string op;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  /// Element types of A, B and C, e.g. "f32*f32->f32".
  std::string types;
  /// B: "const" (a constant, packed at compile time) or "value"
  /// (computed at run time); its layout "kn" (row-major [K, N]), "nk"
  /// ([N, K]) or "other" (another indexing map).
  bool constRhs = false;
  std::string rhsLayout = "kn";
  /// Threads the outer loop is planned for (1: serial compile).
  int64_t threads = 1;

  /// The canonical text of the key, as stored in the cache:
  /// "matmul b=1 m=128 n=3072 k=768 f32*f32->f32 rhs=const-kn threads=1".
  std::string str() const;
  /// The problem this key describes for tile selection (accType from
  /// `ctx`, f32 when the type is not one MLIR's parser reads).
  MatmulProblem getProblem(MLIRContext *ctx) const;
};

/// The key of `op`, a `linalg.matmul` or `linalg.batch_matmul` on tensors
/// of static shape, for a compile planned for `threads` threads; failure for
/// any other op.
FailureOr<MatmulTuningKey> getMatmulTuningKey(Operation *op, int64_t threads);

/// The key of `op`, an `llm.attention` with static shapes and no
/// `kv_length` (whose value the tiles' speed depends on), for a compile
/// planned for `threads` threads:
/// "attention b=1 hq=8 hkv=8 sq=128 skv=128 d=64 dv=64 f32 layout=bhsd
/// causal=1 mask=0 threads=1"; failure for any other op.
FailureOr<std::string> getAttentionTuningKey(Operation *op, int64_t threads);

/// Whether `kernel` (a key) is an attention's.
bool isAttentionKernel(StringRef kernel);

/// One tuning result: the matmul tiles of a matmul kernel, or the
/// flash-attention tile of an attention kernel.
struct TuningEntry {
  std::string target;
  std::string kernel;
  std::array<int64_t, 3> registerTile = {1, 1, 1};
  std::array<int64_t, 3> cacheTile = {0, 0, 0};
  /// Attention kernels: [query rows, key/value rows].
  std::array<int64_t, 2> attentionTile = {1, 1};
  double timeMs = 0, defaultMs = 0;
};

/// The entries of a tuning cache file, in the order they were added.
class TuningCache {
public:
  /// Reads a tuning cache file. Errors: the file cannot be read ("cannot
  /// read tuning cache 'PATH': REASON"), is not JSON, is nested more than
  /// 64 levels deep, or is not a tuning cache (names the first bad field;
  /// times must be finite and non-negative). A later entry for the same
  /// target and kernel replaces an earlier one.
  static llvm::Expected<TuningCache> load(StringRef path);
  /// Parses the text of a tuning cache; `path` names it in errors.
  static llvm::Expected<TuningCache> parse(StringRef text, StringRef path);

  /// The cache as JSON text (the format of the file comment).
  std::string serialize() const;
  /// Writes the cache to `path` through a temporary file in the same
  /// directory renamed over it, so that a reader never sees half a file (a
  /// symbolic link is written through: its target is replaced). Times that
  /// are not finite are written as 0.
  llvm::Error save(StringRef path) const;

  /// The entry for `kernel` on `target`, or null.
  const TuningEntry *lookup(StringRef target, StringRef kernel) const;
  /// Adds `entry`, replacing the one with the same target and kernel.
  void insert(const TuningEntry &entry);

  ArrayRef<TuningEntry> getEntries() const { return entries; }
  /// The targets with at least one entry, in order of first appearance.
  SmallVector<std::string> getTargets() const;
  bool hasTarget(StringRef target) const;

private:
  SmallVector<TuningEntry> entries;
  /// "target\nkernel" -> position in `entries`.
  llvm::StringMap<size_t> index;
};

/// Candidate tiles of a tuning search for `problem` on `target`:
/// `getRegisterTileCandidates` gives register tiles (with the target's
/// cache tile) whose accumulators, B vectors and broadcast fit the target's
/// vector registers; `getCacheTileCandidates` gives the cache tiles that
/// differ from `best` along `dim` (1: N, 2: K). Both normalized
/// (normalizeMatmulTiles), without duplicates and without `best` itself.
SmallVector<MatmulTiles>
getRegisterTileCandidates(const CPUTargetDescription &target,
                          const MatmulProblem &problem,
                          const MatmulTiles &best);
SmallVector<MatmulTiles>
getCacheTileCandidates(const CPUTargetDescription &target,
                       const MatmulProblem &problem, const MatmulTiles &best,
                       unsigned dim);

/// Flash-attention tiles that differ from `best` along `dim` (0: query
/// rows, 8 to 128; 1: key/value rows, 16 to 256; 2: both, a grid of 32 to
/// 128 query by 64 to 256 key/value rows), none beyond the sequence (`sq`,
/// `skv`) but the whole of it, without `best` and duplicates.
SmallVector<std::array<int64_t, 2>>
getAttentionTileCandidates(std::array<int64_t, 2> best, int64_t sq, int64_t skv,
                           unsigned dim);

} // namespace mlir::llm

#endif // LLM_CODEGEN_TUNINGCACHE_H
