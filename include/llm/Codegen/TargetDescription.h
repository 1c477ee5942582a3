//===- TargetDescription.h - CPU code generation targets --------*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The description of a code generation target: every target-specific choice
// of the codegen passes (tile sizes, vector width, parallel mapping) is read
// from here, so that a GPU description can sit next to the CPU one later and
// the same fusion group becomes one CPU loop nest or one GPU kernel.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_CODEGEN_TARGETDESCRIPTION_H
#define LLM_CODEGEN_TARGETDESCRIPTION_H

#include "llm/Dialect/LLM/IR/LoweringConfig.h"

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::llm {

/// A CPU target. Tile sizes are in elements; a size of 0 leaves that
/// dimension untiled.
///
/// A target is data about a CPU: its kernel family (`name`), the CPU
/// (`cpu`, `vendor`), the ISA extensions the kernels use (`features`) and
/// its caches, from which the kernel choices below follow. `lookup` builds
/// one from a family name, from an x86-64 CPU name (LLVM's: its features
/// from LLVM's X86 target parser, its caches from a table of known cores)
/// or from the machine that runs the compiler ("host": CPUID through LLVM,
/// caches from Linux's sysfs).
struct CPUTargetDescription {
  /// Kernel family: "generic", "avx2", "avx512", "avx512-vnni",
  /// "avx512-bf16" (CPUs and "host" resolve to one of them).
  std::string name = "generic";

  /// The CPU, in LLVM's spelling ("znver4", "sapphirerapids",
  /// "skylake-avx512", ...), or "generic" for a family target.
  std::string cpu = "generic";
  /// "AMD", "Intel" (from CPUID on the host, from the CPU name otherwise),
  /// or "" when not known (a family target, another vendor).
  std::string vendor;
  /// The ISA extensions of the CPU that llmc's kernels use or report, in
  /// LLVM's feature spelling: avx2, fma, avx512f, avx512bw, avx512vnni,
  /// avx512bf16, avx512fp16, avxvnni, amx-tile, amx-bf16, amx-int8 (a
  /// family target: those its kernels need).
  SmallVector<std::string> features;
  /// Cache sizes in bytes: L1 data and L2 of one core, the L3 shared by the
  /// cores of the host (0: not known). The L2 size sets `packRhsMinBytes`
  /// and `streamedWeightMinBytes`.
  int64_t l1dBytes = 0, l2Bytes = 0, l3Bytes = 0;

  /// Width of one SIMD register in bits (128 SSE/NEON, 256 AVX2, 512
  /// AVX-512).
  unsigned vectorBits = 128;

  /// Register tile of an f32 matmul [m, n, k]: m rows of C times n columns
  /// held in registers (n is two vectors wide), k = 1 so that the K loop is
  /// a sequence of outer products (broadcast A, load B, FMA). The default
  /// for 512-bit vectors is [8, 32, 1]: 16 accumulators + 2 B vectors + 1
  /// broadcast of the 32 zmm registers.
  SmallVector<int64_t, 3> matmulRegisterTile = {4, 8, 1};

  /// Register tile of a one-thread matmul whose static M leaves the
  /// regular tile a ragged last tile (M % matmulRegisterTile[0] neither 0
  /// nor half of it) and whose N is a multiple of the tail tile's n (other
  /// N keep the regular tile and its packed strips): its rows r or r - 1,
  /// whichever needs fewer row tiles
  /// (then the one whose last tile is fuller), times its n columns. Empty:
  /// the regular tile everywhere. For 512-bit vectors [6, 64, 1]: 24
  /// accumulators; on one Zen 5 core, M x 768 @ 768 x 3072 with M = 9-23
  /// not a multiple of 4 ran 10-25% faster than with [8, 32] (M = 15:
  /// 0.43 -> 0.34 ms; an [8, 32] tile over 1-3 or 5-7 remaining rows ran at
  /// about 2/3 of its rate, for a reason not found), and M = 12, 16, 20, 24
  /// as fast with [8, 32]. At two threads the same shapes measured either
  /// way (noisy), so the rule is for one thread.
  SmallVector<int64_t, 3> matmulTailRegisterTile = {};

  /// Cache tile [m, n, k] of a matmul: an m x k panel of A and a k x n panel
  /// of B are reused out of L2 across the register tiles (k = 0: all of K;
  /// otherwise the largest divisor of K in [k / 2, k], or all of K). [64, 256,
  /// 0] measured ~100 GFLOP/s (OpenBLAS single-thread speed) on Zen 4. A
  /// detected L2 smaller than 4/3 of the [k, n] f32 panel of B halves k
  /// (getForCPU; down to 128).
  SmallVector<int64_t, 3> matmulCacheTile = {64, 256, 0};

  /// Whether `llm-tile-and-vectorize` stores the B operand [K, N] of a plain
  /// f32-style matmul as [N / n, K, n] strips of the register tile's width n
  /// (N a multiple of n), so that the register tile reads B contiguously: a
  /// constant at compile time when M has at least two register tiles of
  /// rows, another value of the function body by a transpose at run time
  /// when M has at least four and B has at least `packRhsMinBytes`.
  bool packMatmulRhs = true;
  /// Smallest B (bytes) packed at run time (constants are packed at compile
  /// time whatever their size): about the L2 size; a smaller B stays cached
  /// across the register tiles and its packing would cost more than it saves.
  int64_t packRhsMinBytes = 1 << 20;

  /// Register tile [m, n, k] of a matmul with fewer rows than
  /// `matmulRegisterTile[0]` (decode-shaped matvecs, M = 1): more
  /// accumulators along N, so that each step of K reads a longer piece of a
  /// row of B. Empty: such matmuls use `matmulRegisterTile`.
  SmallVector<int64_t, 3> matvecRegisterTile = {};

  /// Cache tile [m, n, k] of those matmuls. A short K tile with all of N
  /// (n = 0) makes the register tiles walk `k` rows of B side by side along
  /// whole rows: `k` sequential streams instead of one page per step of K.
  SmallVector<int64_t, 3> matvecCacheTile = {0, 0, 0};

  /// Tile of the flash-attention lowering of `llm.attention` [query rows,
  /// key/value rows] (convert-llm-to-linalg{attention=flash}): each step of
  /// the online softmax works on a [q, kv] f32 score tile plus [kv, D] key
  /// and [kv, Dv] value tiles, so q * kv * 4 bytes (16 KiB for [64, 64]) and
  /// the K/V tiles (16 KiB each at D = 64) stay in L1/L2. A size larger than
  /// the sequence is clamped to it. Recorded on each `llm.attention` by
  /// llm-select-lowering-config (`llm.lowering_config`, attention_tile).
  /// [64, 64] against [32, 64] (the earlier default) on a Zen 5 core, 8
  /// heads of 128 positions: head dims 15, 64 and 128 5-10% faster at one
  /// and two threads, 40, 96 and 256 the same within the noise; 512
  /// positions, head dim 64, 5% faster at two threads.
  SmallVector<int64_t, 2> attentionTile = {64, 64};
  /// Storage of a matmul's B operand that the matmul kernel reads
  /// contiguously: `KN` (B row-major [K, N]: the outer-product register tile
  /// loads a row of B per step of K) or `NK` (B stored [N, K], as a
  /// dot-product kernel wants). `llm-optimize-layout` rewrites constant
  /// weights into it (the CPU pipeline passes it as
  /// `weight-layout`). Default KN on every CPU target (measured on the
  /// current kernel: an [N, K] weight is either gathered with stride K or
  /// transposed at run time).
  using WeightLayout = llm::WeightLayout;
  WeightLayout matmulWeightLayout = WeightLayout::KN;

  /// Threads the parallel loops are planned for; 0 means every hardware
  /// thread of the machine that compiles (the OpenMP runtime decides the
  /// actual count when the code runs).
  int64_t numThreads = 0;

  /// Whether parallel loops become OpenMP worksharing loops.
  bool useOpenMP = true;

  /// Smallest iteration-space size (elements) of a non-matmul linalg op that
  /// is worth a parallel loop; smaller ops stay serial (the fork/join costs
  /// a few microseconds).
  int64_t minParallelElements = 1 << 15;

  /// Smallest matmul (multiply-adds, batch x M x N x K) whose outer loop is
  /// parallel; smaller ones run on one thread unless B has 256 KiB or more
  /// (a decode matvec, bound by reading B). 2^21 (about 40 us on one core):
  /// below it the fork/join of a parallel region costs as much as it saves,
  /// and on a shared 2-vCPU machine a region sometimes costs 60 us (16x16x16
  /// at 2 threads: 0.001 ms or 0.064 ms; bench/sweep).
  int64_t minParallelMatmulWork = 1 << 21;

  /// Whether the target has AVX512-BF16 dot products (`vdpbf16ps`,
  /// `x86vector.avx512.dot`) and AVX512-BW word permutes (`vpermw`). The
  /// 4-bit weight-only decode matvec then converts nibbles to bf16 with a
  /// 32-entry `vpermw` table and multiplies them with the activations held as
  /// two bf16 terms (hi = bf16(x), lo = bf16(x - hi): 16 significant bits,
  /// |x - hi - lo| <= 2^-16 |x|) in f32 accumulators; see
  /// docs/Quantization.md. False: the exact f32 kernel. Recorded on each
  /// `llm.dequant_matmul` by llm-select-lowering-config (dot_product).
  bool bf16DotProduct = false;

  /// Whether the target has AMX tiles with bf16 products (`amx-tile` and
  /// `amx-bf16`: Intel Sapphire Rapids and later). Prefill matmuls by a
  /// constant weight that take the bf16 dot products then run on AMX tiles
  /// (`tdpbf16ps`: a 16 x 16 f32 tile += 16 x 32 bf16 by 32 x 16 bf16 per
  /// instruction, 16 times the multiply-adds of a `vdpbf16ps`);
  /// llm-select-lowering-config records it (dot_product = "amx_bf16").
  bool amxBF16 = false;

  /// Whether the target has AMX tiles with 8-bit products (`amx-tile` and
  /// `amx-int8`): W8A8 prefill matmuls (`llm.matmul_integer` by a constant
  /// weight, at least 32 static rows) then run on them (`tdpbusd`, u8 x s8
  /// into i32 tiles, 16 times the products of a `vpdpbusd`);
  /// llm-select-lowering-config records it (dot_product = "amx_i8").
  bool amxInt8 = false;

  /// Whether the target has 4-way 8-bit dot products into i32 lanes
  /// (`vpdpbusd`: u8 x s8; AVX512-VNNI on 512-bit vectors, AVX-VNNI on
  /// 256-bit ones with `vectorBits` 256). `llm.matmul_integer` with a constant
  /// 8-bit weight then takes the dot-product kernel (exact, as the f32
  /// panels it replaces). Recorded on each `llm.matmul_integer` by
  /// llm-select-lowering-config (dot_product = "i8").
  bool int8DotProduct = false;

  /// Smallest weight (stored bytes) of a weight-only decode matvec
  /// (`llm.dequant_matmul` with a few rows of x) assumed streamed from DRAM
  /// on every call, as in a decode step, which reads every layer's weights
  /// once and a model's weights do not fit in the caches: about the L2 size.
  /// Such weights take the kernels' streaming block shapes, fewer weight
  /// rows per block (faster when the weight comes from DRAM, slower when it
  /// stays cached between calls; bench/quant/results.md). 0: every weight.
  /// llm-select-lowering-config records the decision on each
  /// `llm.dequant_matmul` (streamed).
  int64_t streamedWeightMinBytes = 1 << 20;

  /// Number of `elementType` lanes in one vector register (at least 1).
  int64_t getVectorLanes(Type elementType) const;

  /// `numThreads`, or the number of hardware threads when it is 0.
  int64_t getNumThreads() const;

  /// Whether `features` holds `feature` (LLVM's spelling).
  bool hasFeature(StringRef feature) const;

  /// Prints the target as `llmc --print-target` shows it: the family, the
  /// CPU, its features and caches, and the kernel choices that follow.
  void print(llvm::raw_ostream &os) const;

  /// Portable 128-bit target.
  static CPUTargetDescription getGeneric();
  /// x86-64 with AVX2 and FMA (16 x 256-bit registers).
  static CPUTargetDescription getAVX2();
  /// x86-64 with AVX-512F (32 x 512-bit registers).
  static CPUTargetDescription getAVX512();
  /// AVX-512 with AVX512-VNNI (`int8DotProduct`: Cascade Lake, Ice Lake).
  static CPUTargetDescription getAVX512VNNI();
  /// AVX-512 with AVX512-BF16, AVX512-BW and AVX512-VNNI (`bf16DotProduct`,
  /// `int8DotProduct`: Zen 4 and later, Cooper Lake and Sapphire Rapids and
  /// later).
  static CPUTargetDescription getAVX512BF16();
  /// The family of a CPU with these features: avx512f + avx512bw +
  /// avx512bf16 -> avx512-bf16 (with int8DotProduct only if avx512vnni),
  /// avx512f + avx512vnni -> avx512-vnni, avx512f -> avx512, avx2 + fma ->
  /// avx2, anything else -> generic; `cpu`, `vendor`, `features` and the
  /// caches recorded, the cache-dependent choices set from the L2 size.
  static CPUTargetDescription getForCPU(StringRef cpu, StringRef vendor,
                                        const llvm::StringMap<bool> &features,
                                        int64_t l1dBytes, int64_t l2Bytes,
                                        int64_t l3Bytes);
  /// The machine that runs the compiler (llvm::sys::getHostCPUName and
  /// getHostCPUFeatures, the vendor from CPUID, the caches from
  /// /sys/devices/system/cpu/cpu0/cache), through getForCPU.
  static CPUTargetDescription getHost();
  /// Looks a target up by name: "host", a family ("generic", "avx2",
  /// "avx512", "avx512-vnni", "avx512-bf16") or an x86-64 CPU name that LLVM
  /// knows ("znver4", "sapphirerapids", "icelake-server", "haswell", ...:
  /// its features from LLVM, its caches from a table of known cores, else
  /// 32 KiB L1d and 1 MiB L2); failure for any other name.
  static FailureOr<CPUTargetDescription> lookup(StringRef name);
  /// The names `lookup` accepts, for diagnostics.
  static StringRef getKnownNames();
};

} // namespace mlir::llm

#endif // LLM_CODEGEN_TARGETDESCRIPTION_H
