//===- TargetDescription.cpp - CPU code generation targets ----------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the CPU target descriptions and host detection.
//
//===----------------------------------------------------------------------===//

#include "llm/Codegen/TargetDescription.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <thread>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace mlir;
using namespace mlir::llm;

int64_t CPUTargetDescription::getVectorLanes(Type elementType) const {
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 32;
  return std::max<int64_t>(1, vectorBits / std::max(1u, bits));
}

int64_t CPUTargetDescription::getNumThreads() const {
  if (numThreads > 0)
    return numThreads;
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

CPUTargetDescription CPUTargetDescription::getGeneric() {
  CPUTargetDescription t;
  t.name = "generic";
  // The streaming matvec block shapes were measured on AVX-512 only (their
  // 64-element int8 chunks need 4 of its 32 registers per row of x).
  t.streamedWeightMinBytes = std::numeric_limits<int64_t>::max();
  t.vectorBits = 128;
  // 4 x 2 accumulators of 4 lanes: 8 of 16 (SSE) or 32 (NEON) registers.
  t.matmulRegisterTile = {4, 8, 1};
  t.matmulCacheTile = {64, 128, 256};
  // M = 1: 8 accumulators of 4 lanes under 16-row K tiles.
  t.matvecRegisterTile = {1, 32, 1};
  t.matvecCacheTile = {0, 0, 16};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX2() {
  CPUTargetDescription t;
  t.name = "avx2";
  t.features = {"avx2", "fma"};
  // The streaming matvec block shapes were measured on AVX-512 only (their
  // 64-element int8 chunks need 4 of its 32 registers per row of x).
  t.streamedWeightMinBytes = std::numeric_limits<int64_t>::max();
  t.vectorBits = 256;
  // 6 x 2 accumulators of 8 lanes + 2 B vectors + 1 broadcast: 15 of 16 ymm
  // (the shape of BLIS's Haswell kernel). Two FMA pipes of latency 4-5 need
  // at least 8-10 independent accumulators; the former 4 x 16 had 8.
  t.matmulRegisterTile = {6, 16, 1};
  // Cache tiles as on AVX-512 (getAVX512): 256 rows of A, N tiles of 128,
  // K tiles of 384-768 (a [768, 128] f32 panel of B is 384 KiB, in a 512 KiB
  // L2). Measured on one Zen 3 core (AVX2, 512 KiB L2), `llmc tune` and
  // whole models against {4, 16} / {64, 256, 256}, same session: every
  // gpt2_layer768 matmul chose [6, 16]; gpt2_layer768 24.5-26.0 ->
  // 20.7-21.8 ms, M x 768 @ 768 x 3072 (M = 4-13) 15-45% faster.
  t.matmulCacheTile = {256, 128, 768};
  // M = 1: 8 accumulators of 8 lanes under 16-row K tiles.
  t.matvecRegisterTile = {1, 64, 1};
  t.matvecCacheTile = {0, 0, 16};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX512() {
  CPUTargetDescription t;
  t.name = "avx512";
  t.features = {"avx2", "fma", "avx512f"};
  t.vectorBits = 512;
  // 8 x 2 accumulators of 16 lanes + 2 B vectors + 1 broadcast: 19 of 32 zmm.
  t.matmulRegisterTile = {8, 32, 1};
  // Ragged row counts: 6 (or 5) x 4 accumulators (see the field).
  t.matmulTailRegisterTile = {6, 64, 1};
  // Cache tiles: 256 rows of A, N tiles of 128 (four register tiles), K
  // tiles of 384-768 (a divisor of K; all of K up to 768). A [ck, 128]
  // panel of B (<= 384 KiB) and a [256, ck] block of A fit a 1 MiB L2
  // together; packed B strips are read as long sequential runs (ck * 128
  // bytes, the whole panel contiguous when ck = K), and the C tiles are
  // reloaded K / ck times. Measured on one Zen 5 core (AVX-512, 1 MiB L2),
  // min ms per call against the former {64, 256, 256}, same session:
  // gpt2_layer768 block 11.3-11.6 -> 10.3-10.5, 128x768 @ 768x3072
  // 3.06-3.20 -> 2.95-2.99, 2048^3 (B packed at run time) 101-105 -> 93-97.
  t.matmulCacheTile = {256, 128, 768};
  // M = 1: 16 accumulators (256 lanes) under 16-row K tiles; measured
  // 1x4096 @ 4096x4096 (64 MiB of B): 12.3 ms -> 1.5-2.3 ms (min of 30).
  t.matvecRegisterTile = {1, 256, 1};
  t.matvecCacheTile = {0, 0, 16};
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX512VNNI() {
  CPUTargetDescription t = getAVX512();
  t.name = "avx512-vnni";
  t.features.push_back("avx512vnni");
  // vpdpbusd: 64 u8 x s8 products per instruction against 16 f32 FMAs;
  // W8A8 128x768 @ 768x768 on one Zen 5 core: 0.62 ms (exact f32 panels)
  // -> 0.20 ms (bench/results/w8a8-*.md).
  t.int8DotProduct = true;
  return t;
}

CPUTargetDescription CPUTargetDescription::getAVX512BF16() {
  CPUTargetDescription t = getAVX512();
  t.name = "avx512-bf16";
  t.features = {"avx2",     "fma",        "avx512f",
                "avx512bw", "avx512vnni", "avx512bf16"};
  // int4 decode matvec 1x4096 @ 4096x4096 (groups of 128), one Zen 5 core,
  // median ms: 0.53 (f32 conversion + FMA) -> 0.44-0.47 (vpermw +
  // vdpbf16ps), then bound by memory (bench/quant/results.md).
  t.bf16DotProduct = true;
  // Every CPU with AVX512-BF16 (Cooper Lake, Sapphire Rapids, Zen 4 and
  // later) has AVX512-VNNI.
  t.int8DotProduct = true;
  return t;
}

/// The ISA extensions a target reports (LLVM's spelling), in this order.
static constexpr llvm::StringLiteral kReportedFeatures[] = {
    "avx2",       "fma",     "avx512f",  "avx512bw", "avx512vnni", "avx512bf16",
    "avx512fp16", "avxvnni", "amx-tile", "amx-bf16", "amx-int8"};

CPUTargetDescription CPUTargetDescription::getForCPU(
    StringRef cpu, StringRef vendor, const llvm::StringMap<bool> &features,
    int64_t l1dBytes, int64_t l2Bytes, int64_t l3Bytes) {
  auto has = [&](StringRef f) { return features.lookup(f); };
  CPUTargetDescription t;
  if (has("avx512f") && has("avx512bw") && has("avx512bf16")) {
    t = getAVX512BF16();
    t.int8DotProduct = has("avx512vnni");
  } else if (has("avx512f") && has("avx512vnni")) {
    t = getAVX512VNNI();
  } else if (has("avx512f")) {
    t = getAVX512();
  } else if (has("avx2") && has("fma")) {
    t = getAVX2();
    // AVX-VNNI (Alder Lake and later client cores, Sierra Forest): the
    // 8-bit dot products on 256-bit vectors (`{vex} vpdpbusd` on ymm).
    t.int8DotProduct = has("avxvnni");
  } else {
    t = getGeneric();
  }
  // AMX: the tiles, their bf16 products, and the AVX512-BF16 kernel for
  // what AMX does not take (decode rows, dynamic sequences).
  t.amxBF16 = t.bf16DotProduct && has("amx-tile") && has("amx-bf16");
  t.amxInt8 = t.int8DotProduct && has("amx-tile") && has("amx-int8");
  t.cpu = cpu.str();
  t.vendor = vendor.str();
  t.features.clear();
  for (StringRef f : kReportedFeatures)
    if (has(f))
      t.features.push_back(f.str());
  t.l1dBytes = l1dBytes;
  t.l2Bytes = l2Bytes;
  t.l3Bytes = l3Bytes;
  if (l2Bytes > 0) {
    // The cache tiles keep a [k, n] f32 panel of B in L2 beside the blocks of
    // A and C: a K tile whose panel takes more than 3/4 of a smaller L2
    // (Haswell-Skylake client cores: 256 KiB) is halved. The tiles measured
    // (on 512 KiB and 1 MiB L2s) are unchanged by this rule.
    SmallVector<int64_t, 3> &cache = t.matmulCacheTile;
    while (cache.size() == 3 && cache[2] > 128 &&
           cache[2] * cache[1] * 4 > l2Bytes / 4 * 3)
      cache[2] /= 2;
    // Both thresholds are "about the L2 size" (see their comments).
    t.packRhsMinBytes = l2Bytes;
    if (t.streamedWeightMinBytes != std::numeric_limits<int64_t>::max())
      t.streamedWeightMinBytes = l2Bytes;
  }
  return t;
}

/// The vendor from CPUID leaf 0, as "AMD" / "Intel" / the raw string.
static std::string getHostVendor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
    return "";
  char id[13];
  std::memcpy(id, &ebx, 4);
  std::memcpy(id + 4, &edx, 4);
  std::memcpy(id + 8, &ecx, 4);
  id[12] = 0;
  StringRef v(id);
  if (v == "AuthenticAMD")
    return "AMD";
  if (v == "GenuineIntel")
    return "Intel";
  return v.str();
#else
  return "";
#endif
}

/// A sysfs cache size ("32K", "1024K", "32M") in bytes; 0 if unreadable.
static int64_t readCacheSize(const llvm::Twine &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFileAsStream(path);
  if (!buf)
    return 0;
  StringRef text = (*buf)->getBuffer().trim();
  int64_t scale = 1;
  if (text.consume_back("K"))
    scale = 1024;
  else if (text.consume_back("M"))
    scale = 1024 * 1024;
  int64_t v = 0;
  if (text.getAsInteger(10, v))
    return 0;
  return v * scale;
}

/// L1 data, L2 and L3 sizes of cpu0 from Linux's sysfs, else glibc's
/// sysconf (0 where unknown).
static void getHostCaches(int64_t &l1d, int64_t &l2, int64_t &l3) {
  l1d = l2 = l3 = 0;
  for (int i = 0; i < 8; ++i) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    // sysfs files report a size they do not have: read them as streams.
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> level =
        llvm::MemoryBuffer::getFileAsStream(dir + "level");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> type =
        llvm::MemoryBuffer::getFileAsStream(dir + "type");
    if (!level || !type)
      break;
    StringRef lv = (*level)->getBuffer().trim(),
              ty = (*type)->getBuffer().trim();
    int64_t size = readCacheSize(dir + "size");
    if (lv == "1" && ty == "Data")
      l1d = size;
    else if (lv == "2")
      l2 = size;
    else if (lv == "3")
      l3 = size;
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) &&       \
    defined(_SC_LEVEL3_CACHE_SIZE)
  if (!l1d)
    l1d = std::max<long>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
  if (!l2)
    l2 = std::max<long>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
  if (!l3)
    l3 = std::max<long>(0, sysconf(_SC_LEVEL3_CACHE_SIZE));
#endif
}

CPUTargetDescription CPUTargetDescription::getHost() {
  int64_t l1d, l2, l3;
  getHostCaches(l1d, l2, l3);
  return getForCPU(llvm::sys::getHostCPUName(), getHostVendor(),
                   llvm::sys::getHostCPUFeatures(), l1d, l2, l3);
}

/// Vendor and per-core caches (L1d, L2 bytes) of the x86-64 cores llmc has
/// tile choices for, by LLVM CPU name (vendors' published figures); other
/// CPUs get 32 KiB and 1 MiB.
struct KnownCore {
  StringRef prefix, vendor;
  int64_t l1dKiB, l2KiB;
};
static constexpr KnownCore kKnownCores[] = {
    {"znver5", "AMD", 48, 1024},
    {"znver4", "AMD", 32, 1024},
    {"znver3", "AMD", 32, 512},
    {"znver2", "AMD", 32, 512},
    {"znver1", "AMD", 32, 512},
    {"graniterapids", "Intel", 48, 2048},
    {"emeraldrapids", "Intel", 48, 2048},
    {"sapphirerapids", "Intel", 48, 2048},
    {"icelake-server", "Intel", 48, 1280},
    {"cooperlake", "Intel", 32, 1024},
    {"cascadelake", "Intel", 32, 1024},
    {"skylake-avx512", "Intel", 32, 1024},
    {"alderlake", "Intel", 48, 1280},
    {"raptorlake", "Intel", 48, 2048},
    {"meteorlake", "Intel", 48, 2048},
    {"tigerlake", "Intel", 48, 1280},
    {"icelake-client", "Intel", 48, 512},
    {"skylake", "Intel", 32, 256},
    {"broadwell", "Intel", 32, 256},
    {"haswell", "Intel", 32, 256}};

FailureOr<CPUTargetDescription> CPUTargetDescription::lookup(StringRef name) {
  if (name == "host")
    return getHost();
  if (name == "generic")
    return getGeneric();
  if (name == "avx2")
    return getAVX2();
  if (name == "avx512")
    return getAVX512();
  if (name == "avx512-vnni")
    return getAVX512VNNI();
  if (name == "avx512-bf16")
    return getAVX512BF16();
  // An x86-64 CPU: its features from LLVM's target parser.
  if (llvm::X86::parseArchX86(name, /*Only64Bit=*/true) == llvm::X86::CK_None)
    return failure();
  // LLVM lists a CPU's own features; those they imply (avx512bw ->
  // avx512f, avxvnni -> avx2 on Alder Lake) are added.
  SmallVector<StringRef> list;
  llvm::X86::getFeaturesForCPU(name, list);
  llvm::StringMap<bool> features;
  for (StringRef f : list) {
    features[f] = true;
    llvm::X86::updateImpliedFeatures(f, /*Enabled=*/true, features);
  }
  StringRef vendor;
  int64_t l1d = 32 * 1024, l2 = 1024 * 1024;
  for (const KnownCore &c : kKnownCores)
    if (name == c.prefix) {
      vendor = c.vendor;
      l1d = c.l1dKiB * 1024;
      l2 = c.l2KiB * 1024;
    }
  return getForCPU(name, vendor, features, l1d, l2, /*l3Bytes=*/0);
}

StringRef CPUTargetDescription::getKnownNames() {
  return "host, generic, avx2, avx512, avx512-vnni, avx512-bf16 or an x86-64 "
         "CPU name such as znver4 or sapphirerapids";
}

bool CPUTargetDescription::hasFeature(StringRef feature) const {
  return llvm::is_contained(features, feature);
}

void CPUTargetDescription::print(llvm::raw_ostream &os) const {
  auto kib = [](int64_t bytes) -> std::string {
    return bytes > 0 ? std::to_string(bytes / 1024) + " KiB" : "unknown";
  };
  auto tile = [](ArrayRef<int64_t> t) {
    return llvm::join(
        llvm::map_range(t, [](int64_t v) { return std::to_string(v); }), "x");
  };
  os << "target:          " << name << "\n";
  os << "cpu:             " << cpu;
  if (!vendor.empty())
    os << " (" << vendor << ")";
  os << "\n";
  os << "features:        "
     << (features.empty() ? std::string("(none that llmc uses)")
                          : llvm::join(features, " "))
     << "\n";
  os << "caches:          L1d " << kib(l1dBytes) << ", L2 " << kib(l2Bytes)
     << ", L3 " << kib(l3Bytes) << "\n";
  os << "threads:         " << getNumThreads() << "\n";
  os << "vector:          " << vectorBits << " bits\n";
  os << "matmul tiles:    register " << tile(matmulRegisterTile) << ", cache "
     << tile(matmulCacheTile) << ", weights "
     << stringifyWeightLayout(matmulWeightLayout) << "\n";
  if (!matmulTailRegisterTile.empty())
    os << "ragged M tile:   register " << tile(matmulTailRegisterTile) << "\n";
  if (!matvecRegisterTile.empty())
    os << "matvec tiles:    register " << tile(matvecRegisterTile) << ", cache "
       << tile(matvecCacheTile) << "\n";
  os << "attention tile:  " << tile(attentionTile) << "\n";
  os << "dot products:    int8 matmul "
     << (!int8DotProduct     ? "f32 panels"
         : vectorBits >= 512 ? "i8 (vpdpbusd zmm)"
                             : "i8 (vpdpbusd ymm, AVX-VNNI)")
     << ", int4 decode and bf16 matmul "
     << (bf16DotProduct ? "bf16 (vdpbf16ps)" : "f32")
     << (amxBF16 ? ", bf16 prefill matmul amx_bf16 (tdpbf16ps)" : "")
     << (amxInt8 ? ", int8 prefill matmul amx_i8 (tdpbusd)" : "") << "\n";
  os << "packed B from:   " << kib(packRhsMinBytes) << "\n";
  os << "streamed from:   "
     << (streamedWeightMinBytes == std::numeric_limits<int64_t>::max()
             ? std::string("never (block shapes measured on AVX-512 only)")
             : kib(streamedWeightMinBytes))
     << "\n";
}
