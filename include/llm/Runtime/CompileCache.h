//===- CompileCache.h - Persistent cache of compiled models -----*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A persistent, size-limited cache of compiled models on disk, shared by
// `llmc run`, the C API and the Python package: the second compilation of
// the same model with the same options on the same machine by the same llmc
// build loads the object code of the first instead of lowering anything.
//
// Key: the xxh3-128 hash of a text that names
//   * the model's content: the hash of the exact input bytes (the .mlir
//     text; or the .onnx file, every external data file it references and
//     the --dim values; or the bytecode of an in-memory module),
//   * the options that change the code: the entry, the effective
//     llm-lower-to-cpu options (pipeline options with --no-opt etc. applied,
//     every option printed), the LLVM optimization level,
//   * the target: the host triple, CPU name and features (as
//     createHostTargetMachine uses them),
//   * the compiler: llmc's version and the GNU build IDs of the binaries
//     holding llmc's code, libMLIR and libLLVM (a rebuilt llmc never reuses
//     an older build's code).
// The key text is stored in the entry and compared on lookup.
//
// Entries: one file per key, `DIR/<32 hex digits>.llmcc`: a 128-byte header
// (magic, format version, sizes, the xxh3-128 checksums of the metadata, the
// object, the weights and the header), JSON metadata (the key text, the
// entry signature with names, the arena size, the weights' symbols and
// offsets, the warnings and remarks the compilation emitted), the object
// (CompiledObject), and from a page boundary the weights
// (CompiledObject::weights), which a hit maps in place instead of copying them
// into the JIT. Written to a temporary file in DIR and renamed, so readers
// never see a partial entry; a truncated or corrupt entry fails its checksum
// and is removed and recompiled. A hit sets the entry's modification time; once
// the entries exceed the size limit the least recently used ones are deleted. A
// directory that cannot be written disables storing with one warning; it is
// never an error.
//
//===----------------------------------------------------------------------===//

#ifndef LLM_RUNTIME_COMPILECACHE_H
#define LLM_RUNTIME_COMPILECACHE_H

#include "llm/Runtime/CompiledModel.h"
#include "llm/Runtime/RecordedDiagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::llm::runtime {

/// The default cache directory: $LLMC_CACHE_DIR, else $XDG_CACHE_HOME/llmc,
/// else $HOME/.cache/llmc ("" when none of them is set).
std::string getDefaultCacheDirectory();

/// The default size limit in bytes: $LLMC_CACHE_MAX_MB MiB, else 2 GiB.
uint64_t getDefaultCacheMaxBytes();

/// Settings of a CompileCache.
struct CacheOptions {
  /// False: no lookups and no stores.
  bool enabled = true;
  /// The directory; empty: getDefaultCacheDirectory().
  std::string directory;
  /// The most bytes the entries may take together; 0:
  /// getDefaultCacheMaxBytes(). An entry larger than this is not stored.
  uint64_t maxBytes = 0;
  /// Receives the warnings (e.g. an unwritable directory); default: prints
  /// `llmc: warning: MESSAGE` on stderr, each message once per process.
  std::function<void(const std::string &)> onWarning;

  /// The defaults, disabled when $LLMC_CACHE is 0, off, false or no.
  static CacheOptions fromEnvironment();
};

/// The content digest of the model in the file at `path`: an ONNX model
/// (name ending in .onnx) with the external data files it references and
/// `onnxDims` (the --dim values), or MLIR. Fails for a file that cannot be
/// read, is not a regular file, or an ONNX file that does not parse as a
/// ModelProto (the import reports that).
llvm::Expected<std::string>
digestModelFile(llvm::StringRef path, ArrayRef<std::string> onnxDims = {});

/// The content digest of MLIR text (the same as for a .mlir file holding it).
std::string digestModelText(llvm::StringRef text);

/// The content digest of an in-memory module (its bytecode); nullopt if the
/// module cannot be written as bytecode.
std::optional<std::string> digestModule(ModuleOp module);

/// What happened to one compilation.
enum class CacheOutcome {
  /// Caching off, or nothing to key on (e.g. a model read from stdin).
  Disabled,
  /// Loaded from the cache without compiling.
  Hit,
  /// Compiled (and stored unless `CacheEvent::detail` says otherwise).
  Miss,
};

/// The outcome of a lookup and/or store: the entry's path and a note (why
/// an entry was not used or not stored), for `llmc run --verbose`.
struct CacheEvent {
  CacheOutcome outcome = CacheOutcome::Disabled;
  std::string path;
  std::string detail;
  /// On a hit: the warnings and remarks compiling the model emitted
  /// (stored with the entry), for the caller to emit again
  /// (replayDiagnostics) so that a hit shows what the compilation showed.
  std::vector<RecordedDiagnostic> diagnostics;
};

class CompileCache {
public:
  explicit CompileCache(CacheOptions options = CacheOptions::fromEnvironment());

  bool isEnabled() const { return enabled; }
  llvm::StringRef getDirectory() const { return directory; }
  uint64_t getMaxBytes() const { return maxBytes; }

  struct Key {
    /// 32 hex digits, the entry's file name stem.
    std::string hash;
    /// What was hashed.
    std::string text;
  };

  /// The key of the model with content `modelDigest` compiled with
  /// `options`; nullopt when caching is off or `options` are invalid (the
  /// compilation reports them).
  std::optional<Key> getKey(llvm::StringRef modelDigest,
                            const CompileOptions &options) const;

  /// DIR/<hash>.llmcc.
  std::string getEntryPath(const Key &key) const;

  /// Loads the model stored under `key`, or returns null: no entry, or one
  /// that is truncated, corrupt or from another key (removed), or that does
  /// not load. `event` gets the path and why an entry was not used.
  std::unique_ptr<CompiledModel> lookup(const Key &key,
                                        const CompileOptions &options,
                                        CacheEvent *event = nullptr);

  /// Stores `object` under `key` (temporary file + rename) with the
  /// warnings and remarks its compilation emitted (`diagnostics`, from a
  /// DiagnosticRecorder around the import and the compilation), then evicts
  /// the least recently used entries beyond the size limit. Failing to
  /// write warns once and stops further stores; it is never an error.
  void store(const Key &key, const CompiledObject &object,
             llvm::ArrayRef<RecordedDiagnostic> diagnostics,
             CacheEvent *event = nullptr);

  /// Looks the model up (when `modelDigest` is given and caching is on); a
  /// hit emits the stored diagnostics again in `ctx`. On a miss calls
  /// `loadModule` (null: it failed and reported why; it creates the module
  /// in `ctx`), compiles the module with CompiledModel::create and stores
  /// it with the warnings and remarks emitted meanwhile. `modelName` is the
  /// file name the model's locations carry (DiagnosticRecorder).
  FailureOr<std::unique_ptr<CompiledModel>>
  getOrCompile(MLIRContext &ctx, llvm::StringRef modelName,
               std::optional<std::string> modelDigest,
               const CompileOptions &options,
               llvm::function_ref<OwningOpRef<ModuleOp>()> loadModule,
               CacheEvent *event = nullptr);

  /// Deletes the least recently used entries (and stale temporary files)
  /// until the entries take at most the size limit, keeping `keep`.
  void evict(llvm::StringRef keep = "");

private:
  void warn(const std::string &message);

  bool enabled;
  bool writable = true;
  std::string directory;
  uint64_t maxBytes;
  std::function<void(const std::string &)> onWarning;
};

} // namespace mlir::llm::runtime

#endif // LLM_RUNTIME_COMPILECACHE_H
