//===- LibraryPaths.cpp - Where llmc's own shared libraries are -----------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Support/LibraryPaths.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>

llvm::SmallVector<std::string>
mlir::llm::getLibraryCandidates(llvm::StringRef fileName, const void *anchor,
                                llvm::StringRef buildPath) {
  llvm::SmallVector<std::string> binaries;
  Dl_info info;
  // (The main program's name from dladdr may be relative: argv[0].)
  if (dladdr(anchor, &info) && info.dli_fname &&
      llvm::sys::path::is_absolute(info.dli_fname))
    binaries.push_back(info.dli_fname);
  std::string exe =
      llvm::sys::fs::getMainExecutable(nullptr, const_cast<void *>(anchor));
  if (!exe.empty())
    binaries.push_back(exe);
  llvm::SmallVector<std::string> paths;
  auto add = [&](std::string path) {
    if (!llvm::is_contained(paths, path))
      paths.push_back(std::move(path));
  };
  for (const std::string &binary : binaries) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(binary));
    llvm::SmallString<256> lib(dir);
    llvm::sys::path::append(lib, "..", "lib", fileName);
    add(std::string(lib));
    llvm::sys::path::append(dir, fileName);
    add(std::string(dir));
  }
  if (!buildPath.empty())
    add(buildPath.str());
  return paths;
}

std::string mlir::llm::findLibrary(llvm::StringRef fileName, const void *anchor,
                                   llvm::StringRef buildPath) {
  for (const std::string &path :
       getLibraryCandidates(fileName, anchor, buildPath))
    if (llvm::sys::fs::is_regular_file(path))
      return path;
  return buildPath.str();
}
