//===- OutputFile.cpp - Writing the output files of llmc's tools ----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <vector>

using namespace mlir::llm;
namespace fs = llvm::sys::fs;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

//===----------------------------------------------------------------------===//
// File identity
//===----------------------------------------------------------------------===//

/// The real path of `path` (all links resolved); for a path that does not
/// exist, the real path of its deepest existing ancestor followed by the
/// remaining components, with `.` and `..` removed from those.
static std::string getRealPath(StringRef path) {
  llvm::SmallString<256> real;
  if (!fs::real_path(path, real))
    return std::string(real);
  StringRef parent = llvm::sys::path::parent_path(path);
  StringRef name = llvm::sys::path::filename(path);
  llvm::SmallString<256> result;
  if (parent.empty()) {
    if (fs::current_path(result))
      result = ".";
  } else if (parent.size() < path.size()) {
    result = getRealPath(parent);
  } else {
    result = parent;
  }
  llvm::sys::path::append(result, name);
  llvm::sys::path::remove_dots(result, /*remove_dot_dot=*/true);
  return std::string(result);
}

bool mlir::llm::isSameFile(StringRef a, StringRef b) {
  if (a == "-" || b == "-" || a.empty() || b.empty())
    return false;
  bool existsA = fs::exists(a), existsB = fs::exists(b);
  if (existsA != existsB)
    return false;
  if (existsA) {
    bool equivalent = false;
    if (!fs::equivalent(a, b, equivalent))
      return equivalent;
  }
  return getRealPath(a) == getRealPath(b);
}

llvm::StringRef mlir::llm::describeFileType(llvm::sys::fs::file_type type) {
  using llvm::sys::fs::file_type;
  switch (type) {
  case file_type::directory_file:
    return "a directory";
  case file_type::character_file:
    return "a character device";
  case file_type::block_file:
    return "a block device";
  case file_type::fifo_file:
    return "a FIFO";
  case file_type::socket_file:
    return "a socket";
  default:
    return "not a regular file";
  }
}

llvm::Error mlir::llm::checkInputFile(llvm::StringRef path,
                                      llvm::StringRef description) {
  namespace fs = llvm::sys::fs;
  if (path == "-")
    return llvm::Error::success();
  fs::file_status status;
  if (fs::status(path, status))
    return llvm::Error::success();
  if (status.type() == fs::file_type::regular_file ||
      status.type() == fs::file_type::fifo_file)
    return llvm::Error::success();
  return llvm::createStringError("cannot read " + description.str() +
                                 ": not a regular file (" +
                                 describeFileType(status.type()) + ")");
}

llvm::Error mlir::llm::checkOutputFiles(llvm::ArrayRef<NamedFile> inputs,
                                        llvm::ArrayRef<NamedFile> outputs) {
  for (auto [i, out] : llvm::enumerate(outputs)) {
    if (out.path == "-") {
      for (const NamedFile &other : outputs.take_front(i))
        if (other.path == "-")
          return makeError(out.description + " and " + other.description +
                           " both write to stdout");
      continue;
    }
    for (const NamedFile &in : inputs)
      if (isSameFile(out.path, in.path))
        return makeError(out.description + " would overwrite " +
                         in.description);
    for (const NamedFile &other : outputs.take_front(i))
      if (isSameFile(out.path, other.path))
        return makeError(out.description + " would overwrite " +
                         other.description);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// OutputFile
//===----------------------------------------------------------------------===//

static llvm::Error cannotWrite(StringRef path, const llvm::Twine &reason) {
  if (path == "-")
    return makeError("cannot write to stdout: " + reason);
  return makeError("cannot write '" + path + "': " + reason);
}

llvm::Error OutputFile::error(const llvm::Twine &reason) const {
  return cannotWrite(path, reason);
}

llvm::Expected<OutputFile::Kind> OutputFile::classify(StringRef path) {
  if (path.empty())
    return cannotWrite(path, "empty file name");
  if (path == "-")
    return Kind::Stdout;
  // Through links: a link to /dev/null is written in place, not replaced.
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status)) {
    // A new file (or one the temporary file's creation reports on).
    return Kind::Replace;
  }
  switch (status.type()) {
  case fs::file_type::directory_file:
    return cannotWrite(path, "Is a directory");
  case fs::file_type::regular_file:
  case fs::file_type::file_not_found:
    return Kind::Replace;
  default:
    // Character and block devices, FIFOs, sockets.
    return Kind::InPlace;
  }
}

llvm::Expected<std::unique_ptr<OutputFile>> OutputFile::open(StringRef path) {
  llvm::Expected<Kind> kind = classify(path);
  if (!kind)
    return kind.takeError();
  std::unique_ptr<OutputFile> file(new OutputFile(path.str(), *kind));
  switch (*kind) {
  case Kind::Stdout:
    break;
  case Kind::Replace: {
    llvm::Expected<fs::TempFile> temp = fs::TempFile::create(
        path + ".tmp-%%%%%%", fs::all_read | fs::all_write);
    if (!temp)
      return cannotWrite(path, llvm::toString(temp.takeError()));
    file->temp.emplace(std::move(*temp));
    // A replaced file keeps its permissions (e.g. an executable bit).
    llvm::ErrorOr<fs::perms> perms = fs::getPermissions(path);
    if (perms)
      (void)fs::setPermissions(file->temp->FD, *perms);
    file->stream = std::make_unique<llvm::raw_fd_ostream>(
        file->temp->FD, /*shouldClose=*/false);
    break;
  }
  case Kind::InPlace: {
    // Opened as it is: no O_CREAT, no O_TRUNC.
    if (std::error_code ec = fs::openFileForWrite(path, file->fd,
                                                  fs::CD_OpenExisting))
      return cannotWrite(path, ec.message());
    file->stream =
        std::make_unique<llvm::raw_fd_ostream>(file->fd, /*shouldClose=*/false);
    break;
  }
  }
  return std::move(file);
}

OutputFile::~OutputFile() {
  if (!done)
    discard();
}

llvm::raw_ostream &OutputFile::os() {
  if (kind == Kind::Stdout)
    return llvm::outs();
  return *stream;
}

llvm::StringRef OutputFile::getTempPath() const {
  return temp ? llvm::StringRef(temp->TmpName) : llvm::StringRef();
}

llvm::Error OutputFile::checkWritten() {
  llvm::raw_fd_ostream &s = kind == Kind::Stdout ? llvm::outs() : *stream;
  s.flush();
  if (!s.has_error())
    return llvm::Error::success();
  std::error_code ec = s.error();
  s.clear_error();
  return error(ec.message());
}

llvm::Error OutputFile::commit() {
  if (llvm::Error e = checkWritten()) {
    discard();
    return e;
  }
  done = true;
  switch (kind) {
  case Kind::Stdout:
    return llvm::Error::success();
  case Kind::Replace: {
    stream.reset();
    if (llvm::Error e = temp->keep(path)) {
      std::string reason = llvm::toString(std::move(e));
      llvm::consumeError(temp->discard());
      return error(reason);
    }
    return llvm::Error::success();
  }
  case Kind::InPlace: {
    stream.reset();
    std::error_code ec = llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    fd = -1;
    if (ec)
      return error(ec.message());
    return llvm::Error::success();
  }
  }
  llvm_unreachable("unknown output kind");
}

void OutputFile::discard() {
  done = true;
  if (kind == Kind::Stdout) {
    // What was written stays written; a write error is not reported (the
    // tool failed already), nor left for the stream's destructor to abort.
    llvm::outs().flush();
    llvm::outs().clear_error();
  }
  if (stream) {
    // Cleared so that the stream's destructor does not abort.
    stream->clear_error();
    stream.reset();
  }
  if (temp)
    llvm::consumeError(temp->discard());
  if (fd >= 0) {
    (void)llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    fd = -1;
  }
}

//===----------------------------------------------------------------------===//
// Sets of files
//===----------------------------------------------------------------------===//

llvm::Error mlir::llm::writeFiles(
    llvm::ArrayRef<std::string> paths,
    llvm::function_ref<llvm::Error(size_t, llvm::raw_ostream &)> write) {
  return writeFiles(paths,
                    [&](size_t i, llvm::raw_ostream &os, llvm::StringRef) {
                      return write(i, os);
                    });
}

llvm::Error mlir::llm::writeFiles(
    llvm::ArrayRef<std::string> paths,
    llvm::function_ref<llvm::Error(size_t, llvm::raw_ostream &,
                                   llvm::StringRef tempPath)>
        write) {
  // Every path is examined before anything is written: a directory fails
  // with nothing touched.
  std::vector<OutputFile::Kind> kinds;
  for (const std::string &path : paths) {
    llvm::Expected<OutputFile::Kind> kind = OutputFile::classify(path);
    if (!kind)
      return kind.takeError();
    kinds.push_back(*kind);
  }
  // Regular files go to temporary files; the others are buffered.
  std::vector<std::unique_ptr<OutputFile>> files(paths.size());
  std::vector<std::string> buffered(paths.size());
  for (auto [i, path] : llvm::enumerate(paths)) {
    if (kinds[i] != OutputFile::Kind::Replace) {
      llvm::raw_string_ostream os(buffered[i]);
      if (llvm::Error e = write(i, os, llvm::StringRef()))
        return cannotWrite(path, llvm::toString(std::move(e)));
      continue;
    }
    llvm::Expected<std::unique_ptr<OutputFile>> file = OutputFile::open(path);
    if (!file)
      return file.takeError();
    files[i] = std::move(*file);
    if (llvm::Error e = write(i, files[i]->os(), files[i]->getTempPath()))
      return cannotWrite(path, llvm::toString(std::move(e)));
    if (llvm::Error e = files[i]->checkWritten())
      return e;
  }
  // Every temporary file is complete: write the in-place outputs, then
  // rename the temporary files into place. (The files not yet committed
  // are discarded when `files` goes out of scope.)
  for (auto [i, path] : llvm::enumerate(paths)) {
    if (kinds[i] == OutputFile::Kind::Replace)
      continue;
    llvm::Expected<std::unique_ptr<OutputFile>> file = OutputFile::open(path);
    if (!file)
      return file.takeError();
    (*file)->os() << buffered[i];
    if (llvm::Error e = (*file)->commit())
      return e;
  }
  for (std::unique_ptr<OutputFile> &file : files)
    if (file)
      if (llvm::Error e = file->commit())
        return e;
  return llvm::Error::success();
}

llvm::Error
mlir::llm::writeFile(StringRef path,
                     llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  std::string pathStr = path.str();
  return writeFiles(pathStr, [&](size_t, llvm::raw_ostream &os) {
    return write(os);
  });
}

llvm::Error mlir::llm::checkStdout() {
  llvm::raw_fd_ostream &os = llvm::outs();
  os.flush();
  if (!os.has_error())
    return llvm::Error::success();
  std::error_code ec = os.error();
  os.clear_error();
  return cannotWrite("-", ec.message());
}
