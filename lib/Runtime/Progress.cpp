//===- Progress.cpp - Compile progress reporting --------------------------===//
//
// Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "llm/Runtime/Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cmath>

using namespace mlir::llm::runtime;

CompileProgress::~CompileProgress() = default;

TerminalProgress::TerminalProgress(llvm::raw_ostream &os,
                                   std::chrono::milliseconds delay,
                                   std::chrono::milliseconds interval)
    : os(os), start(std::chrono::steady_clock::now()), delay(delay),
      interval(interval) {
  width = llvm::sys::Process::StandardErrColumns();
}

TerminalProgress::~TerminalProgress() { clear(); }

std::string TerminalProgress::format(llvm::StringRef stage, double fraction,
                                     unsigned width) {
  if (!(fraction >= 0)) // Also NaN.
    fraction = 0;
  int percent = static_cast<int>(std::floor(std::min(fraction, 1.0) * 100));
  std::string line;
  llvm::raw_string_ostream ls(line);
  ls << llvm::format("llmc: [%3d%%] ", percent) << stage;
  // One column short of the width: writing the last column would wrap the
  // cursor to the next line on some terminals.
  if (width > 1 && line.size() > width - 1)
    line.resize(width - 1);
  return line;
}

void TerminalProgress::update(llvm::StringRef stage, double fraction) {
  std::lock_guard<std::mutex> lock(mutex);
  auto now = std::chrono::steady_clock::now();
  if (now - start < delay)
    return;
  std::string line = format(stage, fraction, width);
  int percent = static_cast<int>(std::floor(
      std::clamp(std::isnan(fraction) ? 0.0 : fraction, 0.0, 1.0) * 100));
  if (line == shown)
    return;
  if (percent == shownPercent && !shown.empty() && now - lastWrite < interval)
    return;
  // \r: back to the start of the line; ESC [ K: clear to its end.
  os << '\r' << line << "\x1b[K";
  os.flush();
  shown = std::move(line);
  shownPercent = percent;
  lastWrite = now;
}

void TerminalProgress::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  if (shown.empty())
    return;
  os << "\r\x1b[K";
  os.flush();
  shown.clear();
  shownPercent = -1;
}
