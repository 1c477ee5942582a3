//===- OutputFile.h - Writing the output files of llmc's tools --*- C++ -*-===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// How llmc, llm-opt and llm-translate write their outputs, so that no tool
// damages a file it was not asked to write:
//
// * An output is never one of the tool's inputs or another of its outputs
//   (`checkOutputFiles`, before anything is read or written): files are
//   compared by identity (device and inode, through links and hard links),
//   and paths that do not exist yet by their real path.
// * "-" is stdout. A regular file (or a new one) is written to a temporary
//   file in the same directory, renamed over the path once complete: a
//   failed tool leaves the old file (or none) behind. Anything else that
//   exists (a character or block device such as /dev/null, a FIFO, a
//   socket) is opened as it is and written in place: it is never replaced,
//   truncated or removed. A directory is an error.
// * Every write, flush and close is checked (stdout too): a write error
//   (e.g. a full disk or /dev/full) is an error, never a silent success.
//
// Errors read "cannot write 'PATH': <reason>" ("cannot write to stdout:
// <reason>" for "-").
//
//===----------------------------------------------------------------------===//

#ifndef LLM_SUPPORT_OUTPUTFILE_H
#define LLM_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::llm {

/// True when `a` and `b` name the same file: when both exist, the same file
/// identity (llvm::sys::fs::equivalent: device and inode, through symbolic
/// and hard links); when neither exists, the same real path (the real path
/// of the deepest existing ancestor directory, then the rest). A path that
/// exists and one that does not are different files. "-" (stdin/stdout) is
/// no file.
bool isSameFile(llvm::StringRef a, llvm::StringRef b);

/// A file named on a tool's command line, for `checkOutputFiles`.
struct NamedFile {
  std::string path;
  /// How diagnostics name it, e.g. "the model file", "input file 'x.npy'",
  /// "output 'out.o'", "--report-file 'r.json'".
  std::string description;
};

/// Checks that no output names the same file as an input or as an earlier
/// output (paths "-" are skipped). The error reads "<output's description>
/// would overwrite <the other file's description>".
llvm::Error checkOutputFiles(llvm::ArrayRef<NamedFile> inputs,
                             llvm::ArrayRef<NamedFile> outputs);

/// A name for the type of a file that is not a regular file: "a directory",
/// "a character device", "a block device", "a FIFO", "a socket", else "not a
/// regular file".
llvm::StringRef describeFileType(llvm::sys::fs::file_type type);

/// Checks that the input `path` (a model) can be read as a stream of known
/// length: "-" (stdin), a regular file or a FIFO pass (a missing file is left
/// for the reader to report); a directory, a character or block device or a
/// socket is an error "cannot read <description>: not a regular file (a
/// character device)". A device such as /dev/zero would otherwise be read
/// until memory runs out.
llvm::Error checkInputFile(llvm::StringRef path, llvm::StringRef description);

/// An output being written: see the file comment. Destroying an OutputFile
/// that was not committed removes its temporary file.
class OutputFile {
public:
  /// How the output reaches its path.
  enum class Kind {
    /// "-": llvm::outs().
    Stdout,
    /// A regular or new file: a temporary file renamed over the path.
    Replace,
    /// An existing device, FIFO or socket: written in place.
    InPlace,
  };

  /// How `path` would be written, or an error for an empty path and a
  /// directory (or a path that cannot be examined). Opens nothing.
  static llvm::Expected<Kind> classify(llvm::StringRef path);

  /// Opens `path` for writing (see `Kind`). A FIFO blocks until it has a
  /// reader, as a shell redirection does.
  static llvm::Expected<std::unique_ptr<OutputFile>> open(llvm::StringRef path);

  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  llvm::StringRef getPath() const { return path; }
  Kind getKind() const { return kind; }
  /// The stream to write to.
  llvm::raw_ostream &os();
  /// Replace: the path of the temporary file, for writers that open a path
  /// themselves (what they write there is what `commit` renames into
  /// place); empty otherwise.
  llvm::StringRef getTempPath() const;

  /// Flushes the stream and reports a write error so far (the stream's error
  /// is then cleared). Renames nothing.
  llvm::Error checkWritten();

  /// Flushes and closes the output and checks for errors; a temporary file
  /// is then renamed over the path (on an error it is removed and the path
  /// is untouched). Call once.
  llvm::Error commit();

  /// Abandons the output: a temporary file is removed (what was written to
  /// stdout or a device stays written).
  void discard();

private:
  OutputFile(std::string path, Kind kind) : path(std::move(path)), kind(kind) {}
  llvm::Error error(const llvm::Twine &reason) const;

  std::string path;
  Kind kind;
  /// Replace: the temporary file.
  std::optional<llvm::sys::fs::TempFile> temp;
  /// InPlace: the file descriptor (-1 once closed).
  int fd = -1;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
  bool done = false;
};

/// Writes the files `paths` as a set, all or none: `write(i, os)` writes the
/// bytes of `paths[i]`. Regular (and new) files are written to temporary
/// files and renamed into place only when every output was written; outputs
/// written in place (stdout, devices, FIFOs) are buffered and written after
/// every temporary file is complete, before the renames. On an error no
/// regular file is touched and every temporary file is removed. Errors read
/// "cannot write 'PATH': <reason>".
llvm::Error
writeFiles(llvm::ArrayRef<std::string> paths,
           llvm::function_ref<llvm::Error(size_t, llvm::raw_ostream &)> write);

/// `writeFiles` whose writer also gets the path of the temporary file an
/// output goes to (empty for an output that is buffered: stdout, devices,
/// FIFOs), for a writer that reads back what it wrote (after flushing `os`).
llvm::Error writeFiles(
    llvm::ArrayRef<std::string> paths,
    llvm::function_ref<llvm::Error(size_t, llvm::raw_ostream &,
                                   llvm::StringRef tempPath)>
        write);

/// `writeFiles` for one file.
llvm::Error writeFile(llvm::StringRef path,
                      llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

/// Flushes llvm::outs() and reports an error of any write to it so far
/// ("cannot write to stdout: <reason>"), clearing the stream's error (so that
/// its destructor does not abort the process). Tools call this before
/// returning success.
llvm::Error checkStdout();

} // namespace mlir::llm

#endif // LLM_SUPPORT_OUTPUTFILE_H
