//===- CompileCache.cpp - Persistent cache of compiled models -------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// See the header for the key, the entry format and the policies.
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/CompileCache.h"
#include "llm/Pipelines/Pipelines.h"
#include "llm/Support/JSON.h"
#include "llm/Support/MLIRNesting.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LLMC_VERSION
#define LLMC_VERSION "unknown"
#endif

using namespace mlir;
using namespace mlir::llm::runtime;
namespace fs = llvm::sys::fs;

/// The entry file format; a change of layout or metadata bumps it.
static constexpr uint32_t kFormatVersion = 5;
static constexpr char kMagic[8] = {'L', 'L', 'M', 'C', 'A', 'C', 'H', 'E'};
/// The header, little-endian: magic (8 bytes), format version (u32),
/// header size (u32), metadata size, object offset, object size, weights
/// offset, weights size (u64 each), the xxh3-128 checksums (16 bytes each)
/// of the metadata, the object, the weights and the header's first 104
/// bytes, then zeros.
static constexpr uint64_t kHeaderSize = 128;
static constexpr uint64_t kHeaderChecked = 104;
/// The weights start on a page: mapped with the entry, each keeps the 64-byte
/// alignment of its offset.
static constexpr uint64_t kWeightsAlignment = 4096;
static constexpr llvm::StringLiteral kEntrySuffix(".llmcc");
static constexpr llvm::StringLiteral kTempPrefix("tmp-");
static constexpr llvm::StringLiteral kTempSuffix(".part");

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The xxh3-128 hash of `data`, as 32 hex digits.
static std::string hashHex(llvm::StringRef data) {
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(data));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format_hex_no_prefix(h.high64, 16)
     << llvm::format_hex_no_prefix(h.low64, 16);
  return text;
}

/// The 16 bytes of the xxh3-128 hash of `data`.
static std::string hashBytes(llvm::StringRef data) {
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(data));
  char bytes[16];
  llvm::support::endian::write64le(bytes, h.low64);
  llvm::support::endian::write64le(bytes + 8, h.high64);
  return std::string(bytes, 16);
}

/// The default warning handler: `llmc: warning: MESSAGE` on stderr, each
/// message once per process.
static void printWarningOnce(const std::string &message) {
  static std::mutex mutex;
  static llvm::StringSet<> printed;
  std::lock_guard<std::mutex> lock(mutex);
  if (!printed.insert(message).second)
    return;
  llvm::WithColor::warning(llvm::errs(), "llmc") << message << "\n";
}

//===----------------------------------------------------------------------===//
// Location and limit
//===----------------------------------------------------------------------===//

std::string mlir::llm::runtime::getDefaultCacheDirectory() {
  auto env = [](const char *name) -> llvm::StringRef {
    const char *value = std::getenv(name);
    return value ? value : "";
  };
  if (!env("LLMC_CACHE_DIR").empty())
    return env("LLMC_CACHE_DIR").str();
  llvm::SmallString<256> dir;
  if (!env("XDG_CACHE_HOME").empty()) {
    dir = env("XDG_CACHE_HOME");
  } else if (!env("HOME").empty()) {
    dir = env("HOME");
    llvm::sys::path::append(dir, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(dir, "llmc");
  return dir.str().str();
}

uint64_t mlir::llm::runtime::getDefaultCacheMaxBytes() {
  constexpr uint64_t kDefault = uint64_t(2) << 30;
  const char *value = std::getenv("LLMC_CACHE_MAX_MB");
  if (!value || !*value)
    return kDefault;
  char *end = nullptr;
  double mib = std::strtod(value, &end);
  if (end == value || *end || !(mib > 0) || mib > 1e12) {
    printWarningOnce(std::string("LLMC_CACHE_MAX_MB='") + value +
                     "' is not a positive number of MiB; using 2048");
    return kDefault;
  }
  return std::max<uint64_t>(1, static_cast<uint64_t>(mib * 1048576.0));
}

CacheOptions CacheOptions::fromEnvironment() {
  CacheOptions options;
  if (const char *value = std::getenv("LLMC_CACHE")) {
    llvm::StringRef v = llvm::StringRef(value).trim();
    if (v.equals_insensitive("0") || v.equals_insensitive("off") ||
        v.equals_insensitive("false") || v.equals_insensitive("no"))
      options.enabled = false;
  }
  return options;
}

CompileCache::CompileCache(CacheOptions options)
    : enabled(options.enabled), directory(options.directory),
      maxBytes(options.maxBytes), onWarning(std::move(options.onWarning)) {
  if (directory.empty())
    directory = getDefaultCacheDirectory();
  if (directory.empty())
    enabled = false;
  if (!maxBytes)
    maxBytes = getDefaultCacheMaxBytes();
  if (!onWarning)
    onWarning = printWarningOnce;
}

void CompileCache::warn(const std::string &message) { onWarning(message); }

//===----------------------------------------------------------------------===//
// Model digests
//===----------------------------------------------------------------------===//

namespace {
/// Walks the protobuf wire format of an ONNX ModelProto along the fields
/// that can hold a TensorProto (graphs, nodes, attributes, sparse tensors,
/// functions) and collects the `location` of every TensorProto's
/// `external_data`. Field numbers from onnx.proto (ONNX 1.12).
class ExternalDataScanner {
public:
  explicit ExternalDataScanner(std::set<std::string> &locations)
      : locations(locations) {}

  bool scanModel(llvm::StringRef bytes) {
    return forEachField(bytes, [&](uint32_t field, llvm::StringRef value) {
      if (field == 7) // graph
        return scanGraph(value, 0);
      if (field == 25) // functions
        return scanFunction(value, 0);
      return true;
    });
  }

private:
  static constexpr unsigned kMaxDepth = 64;

  /// Calls `fn(field, bytes)` for every length-delimited field of
  /// `message` (other wire types are skipped); false when the message is
  /// malformed or `fn` returns false.
  static bool
  forEachField(llvm::StringRef message,
               llvm::function_ref<bool(uint32_t, llvm::StringRef)> fn) {
    const uint8_t *p = message.bytes_begin(), *end = message.bytes_end();
    auto readVarint = [&](uint64_t &value) {
      value = 0;
      for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p == end)
          return false;
        uint8_t byte = *p++;
        value |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80))
          return true;
      }
      return false;
    };
    while (p != end) {
      uint64_t tag;
      if (!readVarint(tag))
        return false;
      uint32_t field = tag >> 3;
      switch (tag & 7) {
      case 0: { // varint
        uint64_t ignored;
        if (!readVarint(ignored))
          return false;
        break;
      }
      case 1: // 64-bit
        if (end - p < 8)
          return false;
        p += 8;
        break;
      case 5: // 32-bit
        if (end - p < 4)
          return false;
        p += 4;
        break;
      case 2: { // length-delimited
        uint64_t size;
        if (!readVarint(size) || size > static_cast<uint64_t>(end - p))
          return false;
        llvm::StringRef value(reinterpret_cast<const char *>(p), size);
        p += size;
        if (!fn(field, value))
          return false;
        break;
      }
      default: // groups (unused by ONNX) and invalid wire types
        return false;
      }
    }
    return true;
  }

  bool scanGraph(llvm::StringRef bytes, unsigned depth) {
    if (depth > kMaxDepth)
      return false;
    return forEachField(bytes, [&](uint32_t field, llvm::StringRef value) {
      if (field == 1) // node
        return scanNode(value, depth + 1);
      if (field == 5) // initializer
        return scanTensor(value);
      if (field == 15) // sparse_initializer
        return scanSparseTensor(value);
      return true;
    });
  }

  bool scanFunction(llvm::StringRef bytes, unsigned depth) {
    return forEachField(bytes, [&](uint32_t field, llvm::StringRef value) {
      return field == 7 ? scanNode(value, depth + 1) : true; // node
    });
  }

  bool scanNode(llvm::StringRef bytes, unsigned depth) {
    return forEachField(bytes, [&](uint32_t field, llvm::StringRef value) {
      if (field != 5) // attribute
        return true;
      return forEachField(value, [&](uint32_t f, llvm::StringRef v) {
        if (f == 5 || f == 10) // t, tensors
          return scanTensor(v);
        if (f == 6 || f == 11) // g, graphs
          return scanGraph(v, depth + 1);
        if (f == 22 || f == 23) // sparse_tensor, sparse_tensors
          return scanSparseTensor(v);
        return true;
      });
    });
  }

  bool scanSparseTensor(llvm::StringRef bytes) {
    return forEachField(bytes, [&](uint32_t field, llvm::StringRef value) {
      return field == 1 || field == 2 ? scanTensor(value) : true;
    });
  }

  bool scanTensor(llvm::StringRef bytes) {
    return forEachField(bytes, [&](uint32_t field, llvm::StringRef value) {
      if (field != 13) // external_data: StringStringEntryProto
        return true;
      llvm::StringRef key, location;
      if (!forEachField(value, [&](uint32_t f, llvm::StringRef v) {
            if (f == 1)
              key = v;
            else if (f == 2)
              location = v;
            return true;
          }))
        return false;
      if (key == "location")
        locations.insert(location.str());
      return true;
    });
  }

  std::set<std::string> &locations;
};
} // namespace

/// The hash of the regular file at `path`, or why there is none.
static std::string hashFile(llvm::StringRef path) {
  fs::file_status status;
  if (fs::status(path, status) || !fs::is_regular_file(status))
    return "missing";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return "unreadable";
  return hashHex((*buffer)->getBuffer());
}

llvm::Expected<std::string>
mlir::llm::runtime::digestModelFile(llvm::StringRef path,
                                    ArrayRef<std::string> onnxDims) {
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status))
    return makeError("cannot read '" + path + "': " + ec.message());
  if (!fs::is_regular_file(status))
    return makeError("'" + path + "' is not a regular file");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (!path.ends_with_insensitive(".onnx"))
    return digestModelText(bytes);

  std::set<std::string> locations;
  if (!ExternalDataScanner(locations).scanModel(bytes))
    return makeError("'" + path + "' is not an ONNX ModelProto");
  std::string digest = "onnx " + hashHex(bytes);
  // External data is read relative to the model's directory.
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  for (const std::string &location : locations) {
    llvm::SmallString<256> file(dir);
    llvm::sys::path::append(file, location);
    digest += "\nexternal " + location + " " + hashFile(file);
  }
  // The --dim values, in a canonical order.
  SmallVector<std::string> dims;
  for (const std::string &spec : onnxDims) {
    SmallVector<llvm::StringRef> items;
    llvm::StringRef(spec).split(items, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef item : items)
      if (!item.trim().empty())
        dims.push_back(item.trim().str());
  }
  llvm::sort(dims);
  digest += "\ndims " + llvm::join(dims, ",");
  return digest;
}

std::string mlir::llm::runtime::digestModelText(llvm::StringRef text) {
  return "mlir " + hashHex(text);
}

std::optional<std::string> mlir::llm::runtime::digestModule(ModuleOp module) {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (failed(writeBytecodeToFile(module, os)))
    return std::nullopt;
  return "module " + hashHex(bytes);
}

//===----------------------------------------------------------------------===//
// Key
//===----------------------------------------------------------------------===//

/// The GNU build ID of the loaded binary (executable or shared library)
/// that contains `address`, in hex; else its path, size and modification
/// time; else "unknown".
static std::string getBuildIdOf(const void *address) {
  struct Search {
    uintptr_t address = 0;
    bool found = false;
    std::string id;
  } search;
  search.address = reinterpret_cast<uintptr_t>(address);
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) -> int {
        auto &s = *static_cast<Search *>(data);
        bool contains = false;
        for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          contains = ph.p_type == PT_LOAD && s.address >= start &&
                     s.address < start + ph.p_memsz;
        }
        if (!contains)
          return 0;
        s.found = true;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          const char *p =
              reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
          const char *end = p + ph.p_memsz;
          while (static_cast<size_t>(end - p) >= sizeof(ElfW(Nhdr))) {
            const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof(ElfW(Nhdr));
            size_t nameSize = llvm::alignTo(note->n_namesz, 4);
            size_t descSize = llvm::alignTo(note->n_descsz, 4);
            if (static_cast<size_t>(end - name) < nameSize + descSize)
              break;
            const char *desc = name + nameSize;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0) {
              s.id = llvm::toHex(llvm::StringRef(desc, note->n_descsz),
                                 /*LowerCase=*/true);
              return 1;
            }
            p = desc + descSize;
          }
        }
        return 1;
      },
      &search);
  if (!search.id.empty())
    return search.id;
  Dl_info info;
  struct stat st;
  if (dladdr(address, &info) && info.dli_fname &&
      ::stat(info.dli_fname, &st) == 0)
    return std::string("file ") + info.dli_fname + " " +
           std::to_string(st.st_size) + " " + std::to_string(st.st_mtime);
  return "unknown";
}

/// The builds of the compiler: the binaries holding the runtime, the
/// pipeline, libMLIR and libLLVM (each once).
static const std::string &getCompilerBuildIds() {
  static const std::string ids = [] {
    const void *addresses[] = {
        reinterpret_cast<const void *>(&getBuildIdOf),
        reinterpret_cast<const void *>(&mlir::llm::buildLLMLowerToCPUPipeline),
        reinterpret_cast<const void *>(&mlir::translateModuleToLLVMIR),
        reinterpret_cast<const void *>(&llvm::xxh3_128bits)};
    SmallVector<std::string> list;
    for (const void *address : addresses) {
      std::string id = getBuildIdOf(address);
      if (!llvm::is_contained(list, id))
        list.push_back(id);
    }
    return llvm::join(list, " ");
  }();
  return ids;
}

/// The host target as createHostTargetMachine sees it: triple, CPU and the
/// (sorted) features.
static const std::string &getTargetDescription() {
  static const std::string text = [] {
    llvm::Expected<llvm::orc::JITTargetMachineBuilder> jtmb =
        llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) {
      llvm::consumeError(jtmb.takeError());
      return std::string("unknown");
    }
    std::vector<std::string> features = jtmb->getFeatures().getFeatures();
    llvm::sort(features);
    return jtmb->getTargetTriple().str() + " " + jtmb->getCPU() + " " +
           llvm::join(features, ",");
  }();
  return text;
}

std::optional<CompileCache::Key>
CompileCache::getKey(llvm::StringRef modelDigest,
                     const CompileOptions &options) const {
  // A CUDA model is not cached: its kernels are compiled for the device
  // found when compiling, which the key does not describe.
  if (!enabled || modelDigest.empty() || options.lowering.target == "cuda")
    return std::nullopt;
  llvm::Expected<std::string> pipeline =
      getEffectivePipelineOptions(options.lowering);
  if (!pipeline) {
    llvm::consumeError(pipeline.takeError());
    return std::nullopt;
  }
  Key key;
  llvm::raw_string_ostream os(key.text);
  os << "llmc compile cache " << kFormatVersion << "\n"
     << "compiler: llmc " << LLMC_VERSION << ", LLVM " << LLVM_VERSION_STRING
     << ", builds " << getCompilerBuildIds() << "\n"
     << "target: " << getTargetDescription() << "\n"
     << "model: " << modelDigest << "\n"
     << "entry: " << options.entry << "\n"
     << "pipeline: " << *pipeline << "\n"
     << "opt-level: " << std::min(options.optLevel, 3u) << "\n";
  // The tuned tiles are part of what is compiled: a retuned cache is a new
  // key.
  std::string tuningCache = getTuningCachePath(options.lowering);
  if (!tuningCache.empty())
    os << "tuning cache: " << hashFile(tuningCache) << "\n";
  key.hash = hashHex(key.text);
  return key;
}

std::string CompileCache::getEntryPath(const Key &key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, key.hash + kEntrySuffix.str());
  return path.str().str();
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

static llvm::json::Array specsToJSON(ArrayRef<TensorSpec> specs,
                                     ArrayRef<std::string> names) {
  llvm::json::Array array;
  for (auto [k, spec] : llvm::enumerate(specs)) {
    llvm::json::Array shape;
    for (int64_t d : spec.shape)
      shape.push_back(d);
    array.push_back(llvm::json::Object{
        {"dtype", static_cast<int64_t>(spec.dtype)},
        {"shape", std::move(shape)},
        {"name", k < names.size() ? names[k] : std::string()}});
  }
  return array;
}

static bool specsFromJSON(const llvm::json::Array *array,
                          SmallVectorImpl<TensorSpec> &specs,
                          SmallVectorImpl<std::string> &names) {
  if (!array)
    return false;
  for (const llvm::json::Value &value : *array) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return false;
    std::optional<int64_t> dtype = object->getInteger("dtype");
    const llvm::json::Array *shape = object->getArray("shape");
    std::optional<llvm::StringRef> name = object->getString("name");
    if (!dtype || *dtype < 0 || *dtype > static_cast<int64_t>(DType::I64) ||
        !shape || !name)
      return false;
    TensorSpec spec;
    spec.dtype = static_cast<DType>(*dtype);
    for (const llvm::json::Value &d : *shape) {
      std::optional<int64_t> size = d.getAsInteger();
      if (!size)
        return false;
      spec.shape.push_back(*size);
    }
    specs.push_back(std::move(spec));
    names.push_back(name->str());
  }
  return true;
}

static std::string
serializeMetadata(const CompileCache::Key &key, const CompiledObject &object,
                  llvm::ArrayRef<RecordedDiagnostic> diagnostics) {
  const EntrySignature &sig = object.signature;
  llvm::json::Object metadata{
      {"key", key.text},
      {"entry", sig.name},
      {"inputs", specsToJSON(sig.inputs, sig.inputNames)},
      {"results", specsToJSON(sig.results, sig.resultNames)},
      {"seq_bound", sig.seqBound},
      {"kv_cache_inputs", llvm::json::Array(sig.inputIsKVCache)},
      {"caller_arena", object.callerArena},
      {"arena_bytes", object.arenaBytes},
      {"tile_scratch_bytes", object.tileScratchBytes},
      {"has_init", object.hasInit},
      {"has_fini", object.hasFini},
      {"index_checks", llvm::json::Array(object.indexChecks)},
      {"diagnostics", diagnosticsToJSON(diagnostics)},
  };
  llvm::json::Array weights;
  for (const ExternalConstant &weight : object.weights)
    weights.push_back(llvm::json::Object{{"symbol", weight.symbol},
                                         {"offset", weight.offset},
                                         {"size", weight.size}});
  metadata["weights"] = std::move(weights);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(metadata));
  return text;
}

/// Parses an entry file's bytes: checks the header, the sizes and the
/// checksums, and fills `object` (its `object` buffer and its weights refer
/// into `bytes`) and `keyText`. The error says what is wrong.
static llvm::Error parseEntry(llvm::StringRef bytes, CompiledObject &object,
                              std::string &keyText,
                              std::vector<RecordedDiagnostic> &diagnostics) {
  using llvm::support::endian::read32le;
  using llvm::support::endian::read64le;
  if (bytes.size() < kHeaderSize)
    return makeError("truncated header");
  const char *h = bytes.data();
  if (std::memcmp(h, kMagic, sizeof(kMagic)))
    return makeError("not a cache entry");
  if (read32le(h + 8) != kFormatVersion)
    return makeError("format version " + llvm::Twine(read32le(h + 8)) +
                     ", expected " + llvm::Twine(kFormatVersion));
  if (read32le(h + 12) != kHeaderSize)
    return makeError("header size " + llvm::Twine(read32le(h + 12)) +
                     ", expected " + llvm::Twine(kHeaderSize));
  if (llvm::StringRef(h + kHeaderChecked, 16) !=
      hashBytes(bytes.take_front(kHeaderChecked)))
    return makeError("header checksum mismatch");
  uint64_t metadataSize = read64le(h + 16), objectOffset = read64le(h + 24),
           objectSize = read64le(h + 32), weightsOffset = read64le(h + 40),
           weightsSize = read64le(h + 48);
  // Header, metadata, object, weights, in this order, the weights (or the
  // object when there are none) ending the file.
  uint64_t objectEnd = objectOffset + objectSize;
  if (metadataSize > bytes.size() - kHeaderSize ||
      objectOffset < kHeaderSize + metadataSize ||
      objectOffset > bytes.size() || objectSize > bytes.size() - objectOffset ||
      (weightsSize == 0 ? objectEnd != bytes.size()
                        : weightsOffset < objectEnd ||
                              weightsOffset % kWeightsAlignment != 0 ||
                              weightsOffset > bytes.size() ||
                              weightsSize != bytes.size() - weightsOffset))
    return makeError("size " + llvm::Twine(bytes.size()) +
                     " does not match the header (truncated?)");
  llvm::StringRef metadata = bytes.substr(kHeaderSize, metadataSize);
  llvm::StringRef code = bytes.substr(objectOffset, objectSize);
  llvm::StringRef weightBytes =
      weightsSize ? bytes.substr(weightsOffset, weightsSize) : "";
  if (llvm::StringRef(h + 56, 16) != hashBytes(metadata))
    return makeError("metadata checksum mismatch");
  if (llvm::StringRef(h + 72, 16) != hashBytes(code))
    return makeError("object checksum mismatch");
  if (llvm::StringRef(h + 88, 16) != hashBytes(weightBytes))
    return makeError("weights checksum mismatch");

  // llvm::json recurses per level: bound the nesting first. An entry's
  // deepest values are the locations of its recorded diagnostics, at most
  // two levels per level of the MLIR text, which llmc's tools parse up to
  // kMaxMLIRNesting levels deep; the bound leaves room for those.
  constexpr int64_t kMaxMetadataDepth = 2 * mlir::llm::kMaxMLIRNesting + 64;
  if (mlir::llm::exceedsJSONDepth(metadata, kMaxMetadataDepth))
    return makeError("bad metadata: nested more than " +
                     llvm::Twine(kMaxMetadataDepth) + " levels deep");
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(metadata);
  if (!json)
    return makeError("bad metadata: " + llvm::toString(json.takeError()));
  const llvm::json::Object *m = json->getAsObject();
  std::optional<llvm::StringRef> key = m ? m->getString("key") : std::nullopt;
  std::optional<llvm::StringRef> entry =
      m ? m->getString("entry") : std::nullopt;
  std::optional<int64_t> seqBound =
      m ? m->getInteger("seq_bound") : std::nullopt;
  std::optional<int64_t> arenaBytes =
      m ? m->getInteger("arena_bytes") : std::nullopt;
  std::optional<bool> callerArena =
      m ? m->getBoolean("caller_arena") : std::nullopt;
  std::optional<bool> hasInit = m ? m->getBoolean("has_init") : std::nullopt;
  std::optional<bool> hasFini = m ? m->getBoolean("has_fini") : std::nullopt;
  const llvm::json::Array *checks = m ? m->getArray("index_checks") : nullptr;
  const llvm::json::Array *kvCache =
      m ? m->getArray("kv_cache_inputs") : nullptr;
  const llvm::json::Array *weights = m ? m->getArray("weights") : nullptr;
  const llvm::json::Array *diags = m ? m->getArray("diagnostics") : nullptr;
  EntrySignature &sig = object.signature;
  if (!key || !entry || !seqBound || !arenaBytes || *arenaBytes < 0 ||
      !callerArena || !hasInit || !hasFini || !checks || !weights || !kvCache ||
      !diags || !diagnosticsFromJSON(*diags, diagnostics) ||
      !specsFromJSON(m->getArray("inputs"), sig.inputs, sig.inputNames) ||
      !specsFromJSON(m->getArray("results"), sig.results, sig.resultNames))
    return makeError("bad metadata");
  keyText = key->str();
  sig.name = entry->str();
  sig.inputIsKVCache.clear();
  if (kvCache->size() != sig.inputs.size())
    return makeError("bad metadata");
  for (const llvm::json::Value &flag : *kvCache) {
    std::optional<bool> isCache = flag.getAsBoolean();
    if (!isCache)
      return makeError("bad metadata");
    sig.inputIsKVCache.push_back(*isCache);
  }
  sig.seqBound = *seqBound;
  object.callerArena = *callerArena;
  object.arenaBytes = *arenaBytes;
  // Absent in entries written before it was recorded: unknown, 0.
  if (std::optional<int64_t> scratch = m->getInteger("tile_scratch_bytes");
      scratch && *scratch > 0)
    object.tileScratchBytes = *scratch;
  object.hasInit = *hasInit;
  object.hasFini = *hasFini;
  object.indexChecks.clear();
  for (const llvm::json::Value &check : *checks) {
    std::optional<llvm::StringRef> text = check.getAsString();
    if (!text)
      return makeError("bad metadata");
    object.indexChecks.push_back(text->str());
  }
  object.weights.clear();
  for (const llvm::json::Value &value : *weights) {
    const llvm::json::Object *weight = value.getAsObject();
    std::optional<llvm::StringRef> symbol =
        weight ? weight->getString("symbol") : std::nullopt;
    std::optional<int64_t> offset =
        weight ? weight->getInteger("offset") : std::nullopt;
    std::optional<int64_t> size =
        weight ? weight->getInteger("size") : std::nullopt;
    if (!symbol || !offset || !size || *offset < 0 || *size < 0 ||
        static_cast<uint64_t>(*offset) > weightBytes.size() ||
        static_cast<uint64_t>(*size) > weightBytes.size() - *offset ||
        *offset % 64 != 0)
      return makeError("bad metadata (weights)");
    object.weights.push_back({symbol->str(), static_cast<uint64_t>(*offset),
                              static_cast<uint64_t>(*size)});
  }
  object.weightBytes = weightBytes;
  object.object = llvm::MemoryBuffer::getMemBuffer(
      code, "llmc-cache-object", /*RequiresNullTerminator=*/false);
  return llvm::Error::success();
}

std::unique_ptr<CompiledModel>
CompileCache::lookup(const Key &key, const CompileOptions &options,
                     CacheEvent *event) {
  CacheEvent local;
  CacheEvent &ev = event ? *event : local;
  if (!enabled)
    return nullptr;
  std::string path = getEntryPath(key);
  ev.path = path;
  // Only a regular file is opened (a FIFO put there would block the open).
  fs::file_status pathStatus;
  if (fs::status(path, pathStatus)) {
    ev.detail = "no entry";
    return nullptr;
  }
  if (!fs::is_regular_file(pathStatus)) {
    ev.detail = "unreadable entry (not a regular file)";
    return nullptr;
  }
  int fd;
  if (fs::openFileForRead(path, fd)) {
    ev.detail = "no entry";
    return nullptr;
  }
  llvm::scope_exit closeFile([&] { ::close(fd); });
  fs::file_status status;
  if (fs::status(fd, status) || !fs::is_regular_file(status)) {
    ev.detail = "unreadable entry";
    return nullptr;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getOpenFile(fd, path, status.getSize(),
                                      /*RequiresNullTerminator=*/false);
  if (!buffer) {
    ev.detail = "unreadable entry: " + buffer.getError().message();
    return nullptr;
  }
  // The mapped entry: the loaded model reads its weights there.
  std::shared_ptr<const llvm::MemoryBuffer> entry = std::move(*buffer);
  CompiledObject object;
  std::string keyText;
  std::vector<RecordedDiagnostic> diagnostics;
  if (llvm::Error err =
          parseEntry(entry->getBuffer(), object, keyText, diagnostics)) {
    // Corrupt or truncated: remove it (a store replaces it anyway).
    ev.detail = "corrupt entry (" + llvm::toString(std::move(err)) + "): " +
                (fs::remove(path) ? "cannot remove it, " : "removed, ") +
                "recompiling";
    return nullptr;
  }
  if (keyText != key.text) {
    ev.detail = "entry of another key (hash collision): recompiling";
    return nullptr;
  }
  if (!object.weights.empty()) {
    object.weightOwner = entry;
    // A small entry is read into a heap buffer rather than mapped (LLVM maps
    // files of 16 KiB and more): its weights lose the alignment the code
    // was compiled for (aligned vector loads faulted), so they are copied
    // to a buffer aligned as a mapped entry's.
    if (reinterpret_cast<uintptr_t>(object.weightBytes.data()) %
            kWeightsAlignment !=
        0) {
      std::unique_ptr<llvm::WritableMemoryBuffer> aligned =
          llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
              object.weightBytes.size(), path, llvm::Align(kWeightsAlignment));
      if (!aligned) {
        ev.detail = "out of memory for the entry's weights: recompiling";
        return nullptr;
      }
      std::memcpy(aligned->getBufferStart(), object.weightBytes.data(),
                  object.weightBytes.size());
      object.weightBytes =
          llvm::StringRef(aligned->getBufferStart(), aligned->getBufferSize());
      object.weightOwner =
          std::shared_ptr<const llvm::MemoryBuffer>(std::move(aligned));
    }
  }
  llvm::Expected<std::unique_ptr<CompiledModel>> model =
      CompiledModel::load(object, options);
  if (!model) {
    ev.detail = "entry does not load (" + llvm::toString(model.takeError()) +
                "): " + (fs::remove(path) ? "cannot remove it, " : "removed, ") +
                "recompiling";
    return nullptr;
  }
  // Least recently used: a hit makes the entry the newest.
  ::futimens(fd, nullptr);
  ev.outcome = CacheOutcome::Hit;
  ev.detail.clear();
  ev.diagnostics = std::move(diagnostics);
  return std::move(*model);
}

void CompileCache::store(const Key &key, const CompiledObject &object,
                         llvm::ArrayRef<RecordedDiagnostic> diagnostics,
                         CacheEvent *event) {
  CacheEvent local;
  CacheEvent &ev = event ? *event : local;
  if (!enabled || !object.object)
    return;
  std::string path = getEntryPath(key);
  ev.path = path;
  // After the lookup's note (why there was no usable entry).
  auto note = [&](const llvm::Twine &message) {
    ev.detail = ev.detail.empty() || ev.detail == "no entry"
                    ? message.str()
                    : ev.detail + "; " + message.str();
  };
  if (!writable) {
    note("not stored: the cache directory is not writable");
    return;
  }
  std::string metadata = serializeMetadata(key, object, diagnostics);
  llvm::StringRef code = object.object->getBuffer();
  llvm::StringRef weightBytes =
      object.weights.empty() ? llvm::StringRef() : object.weightBytes;
  uint64_t objectOffset = llvm::alignTo(kHeaderSize + metadata.size(), 64);
  uint64_t weightsOffset =
      weightBytes.empty()
          ? 0
          : llvm::alignTo(objectOffset + code.size(), kWeightsAlignment);
  uint64_t total = weightBytes.empty() ? objectOffset + code.size()
                                       : weightsOffset + weightBytes.size();
  if (total > maxBytes) {
    note("not stored: the entry (" + llvm::Twine(total) +
         " bytes) exceeds the cache size limit (" + llvm::Twine(maxBytes) +
         " bytes)");
    return;
  }
  auto disable = [&](const llvm::Twine &why) {
    writable = false;
    note("not stored: " + why);
    warn(("compile cache: cannot store compiled models in '" + directory +
          "': " + why + " (caching of new models is off)")
             .str());
  };
  if (std::error_code ec = fs::create_directories(directory))
    return disable(ec.message());

  char header[kHeaderSize] = {};
  std::memcpy(header, kMagic, sizeof(kMagic));
  llvm::support::endian::write32le(header + 8, kFormatVersion);
  llvm::support::endian::write32le(header + 12, kHeaderSize);
  llvm::support::endian::write64le(header + 16, metadata.size());
  llvm::support::endian::write64le(header + 24, objectOffset);
  llvm::support::endian::write64le(header + 32, code.size());
  llvm::support::endian::write64le(header + 40, weightsOffset);
  llvm::support::endian::write64le(header + 48, weightBytes.size());
  std::memcpy(header + 56, hashBytes(metadata).data(), 16);
  std::memcpy(header + 72, hashBytes(code).data(), 16);
  std::memcpy(header + 88, hashBytes(weightBytes).data(), 16);
  std::memcpy(header + kHeaderChecked,
              hashBytes(llvm::StringRef(header, kHeaderChecked)).data(), 16);

  // A temporary file in the cache directory, renamed over the entry once
  // complete: readers see the old entry, none, or the new one.
  llvm::SmallString<256> model(directory), temp;
  llvm::sys::path::append(model, kTempPrefix + "%%%%%%%%%%%%" + kTempSuffix);
  int fd;
  if (std::error_code ec = fs::createUniqueFile(model, fd, temp))
    return disable(ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(header, kHeaderSize);
    os << metadata;
    os.write_zeros(objectOffset - kHeaderSize - metadata.size());
    os << code;
    if (!weightBytes.empty()) {
      os.write_zeros(weightsOffset - objectOffset - code.size());
      os << weightBytes;
    }
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      fs::remove(temp);
      return disable(message);
    }
  }
  if (std::error_code ec = fs::rename(temp, path)) {
    fs::remove(temp);
    return disable(ec.message());
  }
  note("stored");
  evict(path);
}

void CompileCache::evict(llvm::StringRef keep) {
  if (directory.empty())
    return;
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::ErrorOr<fs::basic_file_status> status = it->status();
    if (!status || status->type() != fs::file_type::regular_file)
      continue;
    if (name.starts_with(kTempPrefix) && name.ends_with(kTempSuffix)) {
      // Left by a process that died while writing (a live writer takes
      // seconds, not an hour).
      if (now - status->getLastModificationTime() > std::chrono::hours(1))
        fs::remove(it->path());
      continue;
    }
    if (!name.ends_with(kEntrySuffix))
      continue;
    entries.push_back(
        {it->path(), status->getSize(), status->getLastModificationTime()});
    total += status->getSize();
  }
  if (total <= maxBytes)
    return;
  llvm::sort(entries,
             [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const Entry &entry : entries) {
    if (total <= maxBytes)
      break;
    if (entry.path == keep)
      continue;
    if (!fs::remove(entry.path))
      total -= entry.size;
  }
}

FailureOr<std::unique_ptr<CompiledModel>> CompileCache::getOrCompile(
    MLIRContext &ctx, llvm::StringRef modelName,
    std::optional<std::string> modelDigest, const CompileOptions &options,
    llvm::function_ref<OwningOpRef<ModuleOp>()> loadModule, CacheEvent *event) {
  CacheEvent local;
  CacheEvent &ev = event ? *event : local;
  ev = CacheEvent();
  std::optional<Key> key;
  // Models with several entries are not cached (the entry format holds one).
  if (modelDigest && options.extraEntries.empty())
    key = getKey(*modelDigest, options);
  if (key) {
    if (std::unique_ptr<CompiledModel> model = lookup(*key, options, &ev)) {
      replayDiagnostics(ctx, ev.diagnostics, modelName);
      return model;
    }
  }
  DiagnosticRecorder recorder(ctx, modelName);
  OwningOpRef<ModuleOp> module = loadModule();
  if (!module)
    return failure();
  CompiledObject object;
  FailureOr<std::unique_ptr<CompiledModel>> model =
      CompiledModel::create(*module, options, key ? &object : nullptr);
  if (failed(model))
    return failure();
  if (key) {
    ev.outcome = CacheOutcome::Miss;
    store(*key, object, recorder.getDiagnostics(), &ev);
  }
  return model;
}
